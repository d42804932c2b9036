package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/tackle-dev/tackle/tools/atomicfile"
)

// AddStrings appends values to the top-level array field of the config
// file at path (creating the field, and the file with its directory, when
// missing) and returns the content it wrote; a value the array holds
// already is not added again, and nothing is written when every value is
// there. check, when set, is given the file's current content first (nil
// for a file that does not exist) and may refuse it: a project's config
// takes a rule only while the user trusts it as it is.
//
// As with RemoveStrings, only the added text changes: every other byte of
// the file stays as it was; the new elements are separated like the
// array's own, and a new field is indented like the others. The result
// must be a valid config (see Parse). The file is replaced atomically and
// keeps its permission bits (0600 for a new one); when path is a symbolic
// link, the file it points to is the one replaced.
func AddStrings(path, field string, values []string, check func(old []byte) error) ([]byte, error) {
	real, err := filepath.EvalSymlinks(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		real = path
	case err != nil:
		return nil, fmt.Errorf("config: %w", err)
	}
	old, err := os.ReadFile(real)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("config: %w", err)
	}
	if check != nil {
		if err := check(old); err != nil {
			return nil, err
		}
	}
	if old != nil {
		if _, err := Parse(old); err != nil {
			return nil, InFile(path, err)
		}
	}
	out, err := addStrings(old, field, values)
	if err != nil {
		return nil, InFile(path, err)
	}
	if bytes.Equal(out, old) {
		return old, nil
	}
	if _, err := Parse(out); err != nil {
		return nil, InFile(path, fmt.Errorf("the file would not be valid after adding to %s: %w", field, err))
	}
	if old == nil {
		if err := os.MkdirAll(filepath.Dir(real), 0o700); err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
	}
	if err := atomicfile.Write(real, out, 0o600); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return out, nil
}

// addStrings edits a config file's bytes; see AddStrings.
func addStrings(b []byte, field string, values []string) ([]byte, error) {
	body := bytes.TrimPrefix(b, utf8BOM)
	base := len(b) - len(body)
	if len(bytes.TrimSpace(body)) == 0 {
		values = dedup(nil, values)
		if len(values) == 0 {
			return b, nil
		}
		return fmt.Appendf(slices.Clone(b[:base]), "{\n  %s: [%s]\n}\n", quote(field), joinQuoted(values, ", ")), nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	open := base + int(dec.InputOffset()) // just after {
	indent, lastEnd := "", -1
	for dec.More() {
		before := base + int(dec.InputOffset())
		key, raw, err := nextField(dec)
		if err != nil {
			return nil, err
		}
		end := base + int(dec.InputOffset())
		if indent == "" {
			indent = leadingSpace(b[before:])
		}
		lastEnd = end
		if key != field {
			continue
		}
		if len(raw) == 0 || raw[0] != '[' {
			return nil, fmt.Errorf("%s: not a list", field)
		}
		elems, have, err := arrayStrings(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		values = dedup(have, values)
		if len(values) == 0 {
			return b, nil
		}
		from := end - len(raw)
		if len(elems) == 0 {
			return applyEdits(b, []edit{{span{from, end}, []byte("[" + joinQuoted(values, ", ") + "]")}}), nil
		}
		sep := ", "
		if n := len(elems); n > 1 {
			sep = string(raw[elems[n-2].to:elems[n-1].from])
		}
		at := from + elems[len(elems)-1].to
		return applyEdits(b, []edit{{span{at, at}, []byte(sep + joinQuoted(values, sep))}}), nil
	}
	values = dedup(nil, values)
	if len(values) == 0 {
		return b, nil
	}
	entry := quote(field) + ": [" + joinQuoted(values, ", ") + "]"
	if lastEnd < 0 { // {}
		return applyEdits(b, []edit{{span{open, open}, []byte(entry)}}), nil
	}
	if indent == "" {
		indent = " "
	}
	return applyEdits(b, []edit{{span{lastEnd, lastEnd}, []byte("," + indent + entry)}}), nil
}

// leadingSpace is the white space (and a comma) b starts with: the
// indentation of a field, from the line break before it.
func leadingSpace(b []byte) string {
	i := 0
	for i < len(b) && (isSpace(b[i]) || b[i] == ',') {
		i++
	}
	return string(bytes.TrimLeft(b[:i], ","))
}

// dedup returns the values not in have, each once, in order.
func dedup(have, values []string) []string {
	var out []string
	for _, v := range values {
		if !slices.Contains(have, v) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// quote is s as a JSON string, with <, > and & as they are.
func quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func joinQuoted(values []string, sep string) string {
	var b []byte
	for i, v := range values {
		if i > 0 {
			b = append(b, sep...)
		}
		b = append(b, quote(v)...)
	}
	return string(b)
}
