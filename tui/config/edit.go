package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Removed is a string RemoveStrings took out of an array field.
type Removed struct {
	Field string // "allow"
	Index int    // its index in the array before the edit
	Value string
}

// RemoveStrings removes, from the top-level array fields of the config
// file at path, the strings for which drop returns true, and returns what
// it removed. The file must be a valid config (see Parse).
//
// Only the removed elements and the separators around them change: every
// other byte of the file (other settings, key order, indentation, the
// other elements) stays as it was, and an array left empty becomes []. The
// file is replaced atomically (a temporary file in its directory, synced,
// then renamed over it) and keeps its permission bits; when path is a
// symbolic link, the file it points to is the one replaced. Nothing is
// written when nothing is removed.
func RemoveStrings(path string, fields []string, drop func(field, value string) bool) ([]Removed, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	b, err := os.ReadFile(real)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if _, err := Parse(b); err != nil {
		return nil, InFile(path, err)
	}
	out, removed, err := removeStrings(b, fields, drop)
	if err != nil {
		return nil, InFile(path, err)
	}
	if len(removed) == 0 {
		return nil, nil
	}
	if err := writeAtomic(real, out); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return removed, nil
}

// removeStrings edits a config file's bytes; see RemoveStrings.
func removeStrings(b []byte, fields []string, drop func(field, value string) bool) ([]byte, []Removed, error) {
	body := bytes.TrimPrefix(b, utf8BOM)
	base := len(b) - len(body)
	if len(bytes.TrimSpace(body)) == 0 {
		return b, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil { // {
		return nil, nil, err
	}
	type cut struct{ from, to int }
	type edit struct {
		cut
		with string
	}
	var edits []edit
	var removed []Removed
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		if !slices.Contains(fields, key) || len(raw) == 0 || raw[0] != '[' {
			continue
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		// The elements' spans inside raw.
		var elems []cut
		var values []string
		ad := json.NewDecoder(bytes.NewReader(raw))
		ad.Token() // [
		for ad.More() {
			from := int(ad.InputOffset())
			for from < len(raw) && (isSpace(raw[from]) || raw[from] == ',' || raw[from] == '[') {
				from++
			}
			var v string
			if err := ad.Decode(&v); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", key, err)
			}
			elems = append(elems, cut{from, int(ad.InputOffset())})
			values = append(values, v)
		}
		var kept []int
		for i, v := range values {
			if drop(key, v) {
				removed = append(removed, Removed{Field: key, Index: i, Value: v})
			} else {
				kept = append(kept, i)
			}
		}
		if len(kept) == len(elems) {
			continue
		}
		var arr []byte
		if len(kept) == 0 {
			arr = []byte("[]")
		} else {
			// What led to the first element, each kept element followed by
			// the separator that followed it, and what followed the last.
			arr = append(arr, raw[:elems[0].from]...)
			for j, k := range kept {
				arr = append(arr, raw[elems[k].from:elems[k].to]...)
				if j < len(kept)-1 {
					arr = append(arr, raw[elems[k].to:elems[k+1].from]...)
				}
			}
			arr = append(arr, raw[elems[len(elems)-1].to:]...)
		}
		edits = append(edits, edit{cut{base + start, base + end}, string(arr)})
	}
	out := slices.Clone(b)
	for _, e := range slices.Backward(edits) {
		out = slices.Replace(out, e.from, e.to, []byte(e.with)...)
	}
	return out, removed, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// writeAtomic replaces the file at path with data: a temporary file in
// the same directory with path's permission bits, synced, renamed over it.
func writeAtomic(path string, data []byte) (err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tackle-*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if dir, err := os.Open(filepath.Dir(path)); err == nil {
		dir.Sync() // the rename, on file systems that need it; best effort
		dir.Close()
	}
	return nil
}
