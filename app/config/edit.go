package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/tackle-dev/tackle/tools/atomicfile"
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
	if err := atomicfile.Write(real, out, 0o600); err != nil { // real exists: its mode is kept
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
	var edits []edit
	var removed []Removed
	for dec.More() {
		key, raw, err := nextField(dec)
		if err != nil {
			return nil, nil, err
		}
		if !slices.Contains(fields, key) || len(raw) == 0 || raw[0] != '[' {
			continue
		}
		end := base + int(dec.InputOffset())
		arr, rm, err := dropStrings(key, raw, drop)
		if err != nil {
			return nil, nil, err
		}
		if len(rm) > 0 {
			removed = append(removed, rm...)
			edits = append(edits, edit{span{end - len(raw), end}, arr})
		}
	}
	return applyEdits(b, edits), removed, nil
}

// span is the byte range [from, to).
type span struct{ from, to int }

// edit replaces a span of a file with new bytes.
type edit struct {
	span
	with []byte
}

// nextField reads the next key of an object and its raw value.
func nextField(dec *json.Decoder) (string, json.RawMessage, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", nil, err
	}
	key, _ := tok.(string)
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return "", nil, err
	}
	return key, raw, nil
}

// dropStrings removes from the array of strings raw, the value of field
// key, the strings drop picks. It returns the new array and what it
// removed; nothing when it removed nothing.
func dropStrings(key string, raw json.RawMessage, drop func(field, value string) bool) ([]byte, []Removed, error) {
	elems, values, err := arrayStrings(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", key, err)
	}
	var kept []int
	var removed []Removed
	for i, v := range values {
		if drop(key, v) {
			removed = append(removed, Removed{Field: key, Index: i, Value: v})
		} else {
			kept = append(kept, i)
		}
	}
	if len(removed) == 0 {
		return nil, nil, nil
	}
	return keepElements(raw, elems, kept), removed, nil
}

// arrayStrings decodes the JSON array of strings raw and returns each
// element's span in raw and its value.
func arrayStrings(raw json.RawMessage) ([]span, []string, error) {
	var elems []span
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
			return nil, nil, err
		}
		elems = append(elems, span{from, int(ad.InputOffset())})
		values = append(values, v)
	}
	return elems, values, nil
}

// keepElements rebuilds the array raw, whose elements are at elems, with
// only the elements kept (indices, ascending): what led to the first
// element, each kept element followed by the separator that followed it,
// and what followed the last. With none kept it is [].
func keepElements(raw []byte, elems []span, kept []int) []byte {
	if len(kept) == 0 {
		return []byte("[]")
	}
	arr := slices.Clone(raw[:elems[0].from])
	for j, k := range kept {
		arr = append(arr, raw[elems[k].from:elems[k].to]...)
		if j < len(kept)-1 {
			arr = append(arr, raw[elems[k].to:elems[k+1].from]...)
		}
	}
	return append(arr, raw[elems[len(elems)-1].to:]...)
}

// applyEdits returns a copy of b with edits (in file order, not
// overlapping) applied.
func applyEdits(b []byte, edits []edit) []byte {
	out := slices.Clone(b)
	for _, e := range slices.Backward(edits) {
		out = slices.Replace(out, e.from, e.to, e.with...)
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
