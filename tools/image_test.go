package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var pngHead = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"

// An image is what its bytes say, whatever its name.
func TestReadImageSniffsTheBytes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	img, err := ReadImage(write("shot.txt", pngHead+"pixels"))
	if err != nil || img.MIMEType != "image/png" || img.Path != filepath.Join(dir, "shot.txt") || len(img.SHA256) != 64 {
		t.Errorf("a PNG named .txt: %+v, %v", img, err)
	}
	if img, err := ReadImage(write("jpeg.bin", "\xff\xd8\xff\xe0\x00\x10JFIF")); err != nil || img.MIMEType != "image/jpeg" {
		t.Errorf("a JPEG: %+v, %v", img, err)
	}
	if _, err := ReadImage(write("fake.png", "#!/bin/sh\nrm -rf ~\n")); !errors.Is(err, ErrNotImage) {
		t.Errorf("a script named .png: %v", err)
	}
	if _, err := ReadImage(write("page.png", "<svg xmlns='http://www.w3.org/2000/svg'></svg>")); !errors.Is(err, ErrNotImage) {
		t.Errorf("an SVG: %v", err)
	}
	if _, err := ReadImage(write("big.png", pngHead+strings.Repeat("x", MaxImageBytes))); err == nil || !strings.Contains(err.Error(), "larger than 5 MiB") {
		t.Errorf("a PNG over the limit: %v", err)
	}
	if _, err := ReadImage(dir); err == nil {
		t.Error("a directory was read as an image")
	}
}

// An image without a file (an editor's) is kept under its digest and
// read back as ReadImage reads it; what is no image, or too large, is
// refused and nothing is written.
func TestSaveImage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "images")
	img, err := SaveImage(dir, []byte(pngHead+"pixels"))
	if err != nil || img.MIMEType != "image/png" || filepath.Dir(img.Path) != dir || img.Path != filepath.Join(dir, img.SHA256+".png") {
		t.Fatalf("saved: %+v, %v", img, err)
	}
	back, err := ReadImage(img.Path)
	if err != nil || back.SHA256 != img.SHA256 || string(back.Data) != pngHead+"pixels" {
		t.Errorf("read back: %+v, %v", back, err)
	}
	fi, err := os.Stat(img.Path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the kept image: %v, %v", fi, err)
	}
	// Kept again: the same file, unchanged.
	if again, err := SaveImage(dir, []byte(pngHead+"pixels")); err != nil || again.Path != img.Path {
		t.Errorf("saved again: %+v, %v", again, err)
	}
	// A file planted under an image's name is replaced by the image.
	other := []byte("\xff\xd8\xff\xe0\x00\x10JFIF")
	want, err := SaveImage(t.TempDir(), other)
	if err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(dir, filepath.Base(want.Path))
	if err := os.WriteFile(planted, []byte("not it"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := SaveImage(dir, other); err != nil || got.Path != planted {
		t.Fatalf("saved over a planted file: %+v, %v", got, err)
	}
	if b, _ := os.ReadFile(planted); string(b) != string(other) {
		t.Errorf("the planted file was kept: %q", b)
	}
	for name, data := range map[string]string{"a script": "#!/bin/sh\nrm -rf ~\n", "a PNG over the limit": pngHead + strings.Repeat("x", MaxImageBytes)} {
		if _, err := SaveImage(dir, []byte(data)); err == nil {
			t.Errorf("%s was kept", name)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files kept, want the two images", len(entries))
	}
}

// @shot.png in the workspace is attached as an image, inside the
// workspace only, refused like any file a rule denies.
func TestMentionOfAnImage(t *testing.T) {
	r, dir := newTestRegistry(t)
	if err := os.WriteFile(filepath.Join(dir, "shot.png"), []byte(pngHead+"pixels"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := r.Workspace().ReadMention("shot.png", nil)
	if err != nil || m.Image == nil || m.Text != "" || m.Image.MIMEType != "image/png" || m.Image.Path != filepath.Join(r.Workspace().Dir(), "shot.png") {
		t.Fatalf("mention: %+v, %v", m, err)
	}
	if _, err := r.Workspace().ReadMention("shot.png", func(string) string { return "denied" }); err == nil {
		t.Error("a refused image was attached")
	}
	if _, err := r.Workspace().ReadMention("../outside.png", nil); err == nil {
		t.Error("an image outside the workspace was attached")
	}
}
