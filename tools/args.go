package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tools/suggest"
)

// quoteLimit is how much of a bad call the model is shown back.
const quoteLimit = 200

// ArgsError is arguments that do not fit a tool's schema. Its message is
// written for the model: what was wrong, a bounded quote of what was
// sent, and the fields that were expected.
type ArgsError struct {
	Tool     string
	Problems []string // e.g. `missing required field "path" (string)`
	Sent     string   // the arguments as sent
	Expected string   // one line per field: name, type, required, description
}

func (e *ArgsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Invalid arguments for %s: %s.\n", e.Tool, strings.Join(e.Problems, "; "))
	fmt.Fprintf(&b, "You sent: %s\n", chat.Quote(e.Sent, quoteLimit))
	b.WriteString("Expected a JSON object with these fields:\n")
	b.WriteString(e.Expected)
	b.WriteString("Call the tool again with corrected arguments.")
	return b.String()
}

// argSchema checks call arguments against a tool's generated schema.
type argSchema struct {
	tool string
	// resolved is the schema ready to validate with, made on first use:
	// most tools of a run are never called.
	resolved func() (*jsonschema.Resolved, error)
	fields   []argField
	expected string
}

type argField struct {
	name     string
	types    []string // JSON Schema types; empty means any
	required bool
	desc     string
}

func newArgSchema(tool string, s *jsonschema.Schema) *argSchema {
	as := &argSchema{tool: tool, resolved: sync.OnceValues(func() (*jsonschema.Resolved, error) { return s.Resolve(nil) })}
	names := s.PropertyOrder
	if len(names) == 0 {
		for name := range s.Properties {
			names = append(names, name)
		}
		slices.Sort(names)
	}
	var exp strings.Builder
	for _, name := range names {
		p := s.Properties[name]
		if p == nil {
			continue // a remote schema's odd property
		}
		f := argField{name: name, required: slices.Contains(s.Required, name), desc: p.Description}
		if p.Type != "" {
			f.types = []string{p.Type}
		} else {
			f.types = p.Types
		}
		as.fields = append(as.fields, f)
		req := "optional"
		if f.required {
			req = "required"
		}
		fmt.Fprintf(&exp, "- %s (%s, %s)", name, f.typeName(), req)
		if f.desc != "" {
			fmt.Fprintf(&exp, ": %s", f.desc)
		}
		exp.WriteByte('\n')
	}
	if len(as.fields) == 0 {
		exp.WriteString("(no fields: send {})\n")
	}
	as.expected = exp.String()
	return as
}

func (f argField) typeName() string {
	if len(f.types) == 0 {
		return "any"
	}
	return strings.Join(f.types, " or ")
}

// decode validates raw and decodes it into dst, a pointer to the
// argument struct. Problems are reported together where they can be.
func (as *argSchema) decode(raw []byte, dst any) error {
	sent := string(raw)
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	fail := func(problems ...string) error {
		return &ArgsError{Tool: as.tool, Problems: problems, Sent: sent, Expected: as.expected}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		if err == nil {
			err = fmt.Errorf("got %s", describeJSON(raw))
		}
		return fail(fmt.Sprintf("the arguments are not a JSON object (%v)", err))
	}

	var problems []string
	var unknown []string
	for name := range obj {
		if !slices.ContainsFunc(as.fields, func(f argField) bool { return f.name == name }) {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		p := fmt.Sprintf("unknown field %q", name)
		if alt := as.suggest(name); alt != "" {
			p += fmt.Sprintf(" (did you mean %q?)", alt)
		}
		problems = append(problems, p)
	}
	for _, f := range as.fields {
		v, ok := obj[f.name]
		if esc, ok := loneSurrogate(v); ok {
			problems = append(problems, fmt.Sprintf("field %q contains the lone UTF-16 surrogate %s, which is not a character (JSON decoding would turn it into U+FFFD); "+
				"send a character outside the Basic Multilingual Plane as a surrogate pair such as \\ud83d\\ude00, or as UTF-8", f.name, esc))
			continue
		}
		if !ok {
			if f.required {
				problems = append(problems, fmt.Sprintf("missing required field %q (%s)", f.name, f.typeName()))
			}
			continue
		}
		if len(f.types) > 0 && !slices.ContainsFunc(f.types, func(t string) bool { return jsonIs(v, t) }) {
			problems = append(problems, fmt.Sprintf("field %q must be %s, got %s", f.name, article(f.typeName()), describeJSON(v)))
		}
	}
	if len(problems) > 0 {
		return fail(problems...)
	}

	// The schema has more to say than names and types (array items,
	// bounds of small integer types): validate the whole value.
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil {
		return fail(err.Error())
	}
	resolved, err := as.resolved()
	if err != nil {
		return fmt.Errorf("resolve the schema of %s: %w", as.tool, err)
	}
	if err := resolved.Validate(inst); err != nil {
		return fail(schemaProblem(err))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fail(strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// loneSurrogate finds a \uXXXX escape in the raw JSON value v that is a
// UTF-16 surrogate without its other half, and returns it as sent.
func loneSurrogate(v []byte) (string, bool) {
	inString := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(v):
			if v[i+1] != 'u' {
				i++ // an escaped character: \" or \\ or \n ...
				continue
			}
			r, ok := hex4(v, i+2)
			if !ok {
				continue // the decoder reports a bad escape
			}
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return string(v[i : i+6]), true
			case r >= 0xD800 && r <= 0xDBFF:
				if next, ok := hex4(v, i+8); ok && v[i+6] == '\\' && v[i+7] == 'u' && next >= 0xDC00 && next <= 0xDFFF {
					i += 11
					continue
				}
				return string(v[i : i+6]), true
			}
			i += 5
		}
	}
	return "", false
}

// hex4 reads four hexadecimal digits of b at i.
func hex4(b []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// schemaProblem rewords a validation error of the schema library
// ("validating root: validating /properties/n: maximum: ...") as
// `field "n": maximum: ...`.
func schemaProblem(err error) string {
	msg := strings.TrimPrefix(err.Error(), "validating root: ")
	if rest, ok := strings.CutPrefix(msg, "validating /properties/"); ok {
		if name, why, ok := strings.Cut(rest, ": "); ok {
			return fmt.Sprintf("field %q: %s", name, why)
		}
	}
	return msg
}

// suggest returns the field a misspelt name probably meant ("filePath"
// for "file_path"), or "".
func (as *argSchema) suggest(name string) string {
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
	}
	names := make([]string, len(as.fields))
	for i, f := range as.fields {
		if norm(f.name) == norm(name) {
			return f.name
		}
		names[i] = f.name
	}
	return suggest.Closest(name, names)
}

// jsonIs reports whether the raw JSON value v has JSON Schema type t.
func jsonIs(v json.RawMessage, t string) bool {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return false
	}
	switch t {
	case "string":
		return v[0] == '"'
	case "boolean":
		return v[0] == 't' || v[0] == 'f'
	case "null":
		return v[0] == 'n'
	case "object":
		return v[0] == '{'
	case "array":
		return v[0] == '['
	case "number":
		return v[0] == '-' || (v[0] >= '0' && v[0] <= '9')
	case "integer":
		return jsonIs(v, "number") && !bytes.ContainsAny(v, ".eE")
	}
	return true
}

// describeJSON names the type of a raw JSON value and quotes it briefly.
func describeJSON(v []byte) string {
	v = bytes.TrimSpace(v)
	q := chat.Quote(string(v), 40)
	switch {
	case len(v) == 0:
		return "nothing"
	case v[0] == '"':
		return "a string (" + q + ")"
	case v[0] == 't' || v[0] == 'f':
		return "a boolean (" + q + ")"
	case v[0] == 'n':
		return "null"
	case v[0] == '{':
		return "an object (" + q + ")"
	case v[0] == '[':
		return "an array (" + q + ")"
	case jsonIs(v, "integer"):
		return "an integer (" + q + ")"
	default:
		return "a number (" + q + ")"
	}
}

func article(typeName string) string {
	switch {
	case typeName == "any":
		return "any value"
	case strings.IndexByte("aeiou", typeName[0]) >= 0:
		return "an " + typeName
	default:
		return "a " + typeName
	}
}

// summary lists the fields of decoded arguments that are set, in schema
// order, as name: value.
func (as *argSchema) summary(args any) string {
	var parts []string
	for _, a := range as.list(args) {
		parts = append(parts, a.Name+": "+a.Value)
	}
	return strings.Join(parts, ", ")
}
