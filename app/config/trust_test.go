package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTrustPinsContents(t *testing.T) {
	state := t.TempDir()
	tr, err := OpenTrust(func(k string) string { return map[string]string{"XDG_STATE_HOME": state}[k] })
	if err != nil {
		t.Fatal(err)
	}
	file := "/p/.tackle/config.json"
	if ok, err := tr.Trusted(file, []byte("a")); ok || err != nil {
		t.Fatalf("trusted before pinning: %v %v", ok, err)
	}
	if err := tr.Pin(file, []byte("a")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := tr.Trusted(file, []byte("a")); !ok {
		t.Error("not trusted after pinning")
	}
	if ok, _ := tr.Trusted(file, []byte("a ")); ok {
		t.Error("a changed file is still trusted")
	}
	if ok, _ := tr.Trusted("/other/.tackle/config.json", []byte("a")); ok {
		t.Error("trust leaked to another path")
	}
	fi, err := os.Stat(filepath.Join(state, "tackle", TrustFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("trust file: %v %v, want 0600", err, fi.Mode())
	}
	os.WriteFile(filepath.Join(state, "tackle", TrustFile), []byte("{bad"), 0o600)
	if _, err := tr.Trusted(file, []byte("a")); err == nil {
		t.Error("a corrupt trust file is not an error")
	}
}
