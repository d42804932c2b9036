package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Result is what a tool tells the model about one call.
type Result struct {
	// Content is the text the model reads.
	Content string
	// IsError marks a failure the model should read and act on (a missing
	// file, an ambiguous edit, a non-zero exit). Failures of the harness
	// itself are Go errors instead.
	IsError bool
	// Images are images the tool returned besides its text (an MCP
	// tool's), which Content describes for a model that takes none.
	Images []chat.Image
}

// OK returns a successful result.
func OK(content string) Result { return Result{Content: content} }

// Fail returns a failed result whose content is formatted like fmt.Sprintf.
func Fail(format string, a ...any) Result {
	return Result{Content: fmt.Sprintf(format, a...), IsError: true}
}

// Summarizer is implemented by argument types that can say in one line
// what a call is about: the path, the command, the pattern. The UI shows
// it next to the tool's name. A tool whose arguments do not implement it
// is summarised by its arguments' names and values.
type Summarizer interface {
	Summary() string
}

// PathArgs is implemented by the argument types of tools that read or
// write files. Paths returns the paths a call names, as the model sent
// them, and Access how the tool reaches them (it must not depend on the
// values: it is read from the type's zero value when the tool is
// defined); an approval policy reads both through Registry.Inspect.
type PathArgs interface {
	Paths() []string
	Access() Access
}

// Tool is one tool the model can call: a name, a description, a JSON
// Schema generated from a typed argument struct, and the function that
// runs it. Build one with New.
type Tool struct {
	name        string
	description string
	kind        Kind
	access      Access // how a file tool reaches its paths (PathArgs)
	params      json.RawMessage
	args        *argSchema
	decode      func(raw []byte) (any, error)
	// lenient decodes arguments the schema refuses as far as they go,
	// for a summary of a bad call.
	lenient func(raw []byte) (any, error)
	execute func(ctx context.Context, args any) (Result, error)
	preview func(args any) Preview // nil: the arguments by name
	// server and remoteName are a remote tool's server and its name
	// there (NewRemote); empty for tackle's own tools.
	server, remoteName string
}

var toolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

// New defines a tool whose arguments are a JSON object decoded into A, a
// struct whose fields carry json tags (fields tagged omitempty or
// omitzero are optional, the others required) and `jsonschema:"..."`
// tags with their descriptions. The JSON Schema the model sees is
// generated from A; arguments are validated against it, strictly
// (unknown fields are refused), before fn runs, and a mismatch comes back
// to the model as an error result that says what was wrong.
//
// kind declares what the tool can do (KindRead for a tool that never
// changes anything, which approval policies let run without asking).
// preview works out what a call would do without running it, for the
// approval dialog (see Preview); it must not change anything. With a nil
// preview the dialog shows the call's arguments by name.
//
// New panics when name is not 1 to 64 letters, digits, '_' or '-', or
// when no schema can be generated for A: both are programming errors,
// like a bad pattern given to regexp.MustCompile.
func New[A any](name, description string, kind Kind, fn func(ctx context.Context, args A) (Result, error), preview func(args A) Preview) *Tool {
	if !toolName().MatchString(name) {
		panic(fmt.Sprintf("tools.New: invalid tool name %q", name))
	}
	schema, err := jsonschema.For[A](nil)
	if err != nil {
		panic(fmt.Sprintf("tools.New(%s): %v", name, err))
	}
	if schema.Type != "object" {
		panic(fmt.Sprintf("tools.New(%s): arguments must be a struct, not %T", name, *new(A)))
	}
	params, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("tools.New(%s): %v", name, err))
	}
	as := newArgSchema(name, schema)
	var access Access
	if pa, ok := any(*new(A)).(PathArgs); ok {
		access = pa.Access()
	}
	t := &Tool{
		name:        name,
		description: description,
		kind:        kind,
		access:      access,
		params:      params,
		args:        as,
		decode: func(raw []byte) (any, error) {
			var a A
			if err := as.decode(raw, &a); err != nil {
				return nil, err
			}
			return a, nil
		},
		lenient: func(raw []byte) (any, error) {
			var a A
			err := json.Unmarshal(raw, &a)
			return a, err
		},
		execute: func(ctx context.Context, args any) (Result, error) {
			return fn(ctx, args.(A))
		},
	}
	if preview != nil {
		t.preview = func(args any) Preview { return preview(args.(A)) }
	}
	return t
}

// Name returns the name the model calls the tool by.
func (t *Tool) Name() string { return t.name }

// Server returns the name of the server a remote tool belongs to (see
// NewRemote), or "" for one of tackle's own tools.
func (t *Tool) Server() string { return t.server }

// RemoteName returns a remote tool's name on its server, or "".
func (t *Tool) RemoteName() string { return t.remoteName }

// Description returns the description the model reads.
func (t *Tool) Description() string { return t.description }

// Kind returns what the tool can do.
func (t *Tool) Kind() Kind { return t.kind }

// Access returns how the tool reaches the paths its calls name, as its
// argument type declares (PathArgs); zero for a tool that names none.
func (t *Tool) Access() Access { return t.access }

// Parameters returns the JSON Schema of the tool's arguments.
func (t *Tool) Parameters() json.RawMessage { return t.params }

// Spec returns the tool as the model sees it.
func (t *Tool) Spec() chat.ToolSpec {
	return chat.ToolSpec{Name: t.name, Description: t.description, Parameters: t.params}
}

// Decode validates arguments (the raw JSON text of a call; empty means
// {}) and returns them as the tool's typed argument struct, e.g. a
// ReadFileArgs value. The error is an *ArgsError written for the model.
func (t *Tool) Decode(arguments string) (any, error) {
	return t.decode([]byte(arguments))
}

// Summary says in one line what a call with arguments is about (see
// Summarizer). Arguments the tool would refuse are summarised as far as
// they can be decoded, else given as sent.
func (t *Tool) Summary(arguments string) string {
	args, err := t.decode([]byte(arguments))
	if err != nil {
		if args, err = t.lenient([]byte(arguments)); err != nil {
			return arguments
		}
	}
	if s, ok := args.(Summarizer); ok {
		return s.Summary()
	}
	return t.args.summary(args)
}

// Execute decodes arguments and runs the tool. Bad arguments become an
// error result; a Go error is a failure of the harness.
func (t *Tool) Execute(ctx context.Context, arguments string) (Result, error) {
	args, err := t.decode([]byte(arguments))
	if err != nil {
		return Result{Content: err.Error(), IsError: true}, nil
	}
	res, err := t.execute(ctx, args)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", t.name, err)
	}
	return res, nil
}
