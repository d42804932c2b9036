package tools

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Remote describes a tool that runs outside tackle (an MCP server's
// tool): its JSON Schema comes from the server as it is, and its calls
// are sent there.
type Remote struct {
	// Name is the name the model calls it by: 1 to 64 letters, digits,
	// '_' or '-'.
	Name string
	// Server is the name of the server the tool belongs to; Registry.Replace
	// swaps a server's tools as a whole.
	Server string
	// Tool is the tool's own name on its server, for display.
	Tool        string
	Description string
	// Kind is what the tool declares it does: KindRead for a tool the
	// server marks read-only, else KindExec. Remote tools are never
	// KindEdit: tackle cannot tell which files they change.
	Kind Kind
	// Schema is the JSON Schema of the arguments as the server gives it;
	// it must be a JSON object. Empty means any object.
	Schema json.RawMessage
	// Call runs the call with its arguments, a JSON object. Failures the
	// model should read are error results; a Go error is a failure of
	// the harness.
	Call func(ctx context.Context, args json.RawMessage) (Result, error)
}

// RemoteArgs are the decoded arguments of a remote tool's call: the JSON
// object as sent, with its fields in the schema's order first.
type RemoteArgs struct {
	Raw    json.RawMessage
	fields []Arg
}

// MarshalJSON gives the arguments as sent.
func (a RemoteArgs) MarshalJSON() ([]byte, error) { return a.Raw, nil }

// Summary lists the arguments by name, values cut short.
func (a RemoteArgs) Summary() string {
	parts := make([]string, 0, len(a.fields))
	for _, f := range a.fields {
		v := f.Value
		if len(v) > 60 {
			v = cutRunes(v, 60) + "…"
		}
		parts = append(parts, f.Name+": "+strings.ReplaceAll(v, "\n", "⏎"))
	}
	return strings.Join(parts, ", ")
}

// Remote result caps: what the model reads of a remote tool's result,
// like bash's output.
const (
	remoteHeadBytes = 15 << 10
	remoteTailBytes = 15 << 10
)

// NewRemote defines a tool from a Remote. It fails for a bad name, a
// schema that is not a JSON object, or a KindEdit kind. Arguments are
// checked to be a JSON object and passed on as sent; the server
// validates them against its schema. Results are made safe to show
// (terminal escapes removed) and cut in the middle past 30 KiB.
func NewRemote(r Remote) (*Tool, error) {
	if !toolName().MatchString(r.Name) {
		return nil, fmt.Errorf("remote tool: invalid tool name %q", r.Name)
	}
	if r.Kind == KindEdit {
		return nil, errors.New("remote tool: a remote tool cannot declare KindEdit")
	}
	if r.Kind == 0 {
		r.Kind = KindExec
	}
	schema := bytes.TrimSpace(r.Schema)
	if len(schema) == 0 || string(schema) == "null" {
		schema = []byte(`{"type":"object"}`)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("remote tool %s: the input schema is not a JSON Schema object: %v", r.Name, err)
	}
	if (s.Type != "" && s.Type != "object") || len(s.Types) > 0 {
		// Model APIs refuse a function whose parameters are not an
		// object, and with it the whole request.
		return nil, fmt.Errorf("remote tool %s: the input schema is not an object schema (type %s)", r.Name, cmp.Or(s.Type, strings.Join(s.Types, ", ")))
	}
	s.PropertyOrder = propertyOrder(schema)
	as := newArgSchema(r.Name, &s)
	decode := func(raw []byte) (any, error) {
		sent := string(raw)
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			raw = []byte("{}")
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			if err == nil {
				err = fmt.Errorf("got %s", describeJSON(raw))
			}
			return nil, &ArgsError{Tool: r.Name, Problems: []string{fmt.Sprintf("the arguments are not a JSON object (%v)", err)}, Sent: sent, Expected: as.expected}
		}
		return RemoteArgs{Raw: raw, fields: remoteFields(as, obj)}, nil
	}
	t := &Tool{
		name:        r.Name,
		description: r.Description,
		kind:        r.Kind,
		params:      schema,
		args:        as,
		server:      r.Server,
		remoteName:  r.Tool,
		decode:      decode,
		lenient:     decode,
		execute: func(ctx context.Context, args any) (Result, error) {
			res, err := r.Call(ctx, args.(RemoteArgs).Raw)
			if err != nil {
				return res, err
			}
			out := newHeadTail(remoteHeadBytes, remoteTailBytes)
			out.Write([]byte(res.Content))
			res.Content, _ = out.text(newScrubber(nil))
			return res, nil
		},
	}
	t.preview = func(args any) Preview {
		a := args.(RemoteArgs)
		return Preview{Summary: a.Summary(), Args: a.fields}
	}
	return t, nil
}

// remoteFields lists the arguments sent: the schema's fields in its
// order, then the others by name. A string is given as its text, any
// other value as JSON.
func remoteFields(as *argSchema, obj map[string]json.RawMessage) []Arg {
	out := make([]Arg, 0, len(obj))
	value := func(v json.RawMessage) string {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
		return string(v)
	}
	for _, f := range as.fields {
		if v, ok := obj[f.name]; ok {
			out = append(out, Arg{Name: f.name, Value: value(v)})
		}
	}
	var rest []string
	for name := range obj {
		if !slices.ContainsFunc(as.fields, func(f argField) bool { return f.name == name }) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	for _, name := range rest {
		out = append(out, Arg{Name: name, Value: value(obj[name])})
	}
	return out
}

// propertyOrder returns the names of a schema's properties in the order
// the server wrote them (decoding into a map loses it), or nil.
func propertyOrder(schema []byte) []string {
	var top struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &top) != nil || len(top.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		name, _ := tok.(string)
		names = append(names, name)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
	}
	return names
}

// cutRunes cuts s to at most n bytes at a character boundary.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
