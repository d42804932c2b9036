package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type sampleArgs struct {
	Path  string   `json:"path" jsonschema:"the file"`
	Count int      `json:"count,omitempty" jsonschema:"how many"`
	Flag  bool     `json:"flag,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	Small int8     `json:"small,omitempty"`
}

func sampleTool() *Tool {
	return New("sample", "A sample.", KindRead, func(ctx context.Context, a sampleArgs) (Result, error) {
		return OK("path=" + a.Path), nil
	}, nil)
}

func TestNewGeneratesSchema(t *testing.T) {
	tool := sampleTool()
	var schema struct {
		Type                 string                     `json:"type"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(tool.Parameters(), &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || len(schema.Properties) != 5 {
		t.Errorf("schema = %s", tool.Parameters())
	}
	if len(schema.Required) != 1 || schema.Required[0] != "path" {
		t.Errorf("required = %v, want [path]", schema.Required)
	}
	if schema.AdditionalProperties == nil || *schema.AdditionalProperties {
		t.Errorf("additionalProperties should be false: %s", tool.Parameters())
	}
	if !strings.Contains(string(schema.Properties["path"]), `"description":"the file"`) {
		t.Errorf("path property lacks its description: %s", schema.Properties["path"])
	}
	spec := tool.Spec()
	if spec.Name != "sample" || spec.Description != "A sample." || string(spec.Parameters) != string(tool.Parameters()) {
		t.Errorf("Spec() = %+v", spec)
	}
}

func TestNewPanicsOnBadDefinitions(t *testing.T) {
	for name, f := range map[string]func(){
		"bad name": func() {
			New("has space", "", KindRead, func(context.Context, sampleArgs) (Result, error) { return Result{}, nil }, nil)
		},
		"not a struct": func() {
			New("s", "", KindRead, func(context.Context, string) (Result, error) { return Result{}, nil }, nil)
		},
		"unsupported field": func() {
			New("c", "", KindRead, func(context.Context, struct{ C chan int }) (Result, error) { return Result{}, nil }, nil)
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("New did not panic")
				}
			}()
			f()
		})
	}
}

func TestDecodeArguments(t *testing.T) {
	tool := sampleTool()
	long := `{"path": "` + strings.Repeat("é", 300) + `", "count": "x"}`
	tests := []struct {
		name string
		args string
		want []string // parts of the message; nil means valid
	}{
		{"valid", `{"path":"a.go","count":3,"flag":true,"tags":["x"]}`, nil},
		{"whitespace around", " \n{\"path\":\"a\"}\n", nil},
		{"not json", `{"path": "a.go"`, []string{"not a JSON object", `You sent: {"path": "a.go"`, "- path (string, required): the file"}},
		{"array", `["a.go"]`, []string{"not a JSON object"}},
		{"null", `null`, []string{"not a JSON object", "got null"}},
		{"empty means {}", ``, []string{`missing required field "path" (string)`, "You sent: \n"}},
		{"missing required", `{"count": 2}`, []string{`missing required field "path" (string)`, `You sent: {"count": 2}`}},
		{"wrong type", `{"path": 12}`, []string{`field "path" must be a string, got an integer (12)`}},
		{"string for integer", `{"path": "a", "count": "3"}`, []string{`field "count" must be an integer, got a string ("3")`}},
		{"fraction for integer", `{"path": "a", "count": 1.5}`, []string{`field "count" must be an integer, got a number (1.5)`}},
		{"null for optional", `{"path": "a", "flag": null}`, []string{`field "flag" must be a boolean, got null`}},
		{"unknown field", `{"path": "a", "bogus": 1}`, []string{`unknown field "bogus"`}},
		{"misspelt field", `{"Path": "a"}`, []string{`unknown field "Path" (did you mean "path"?)`, `missing required field "path"`}},
		{"camel case", `{"path": "a", "Count": 1}`, []string{`(did you mean "count"?)`}},
		{"typo", `{"pth": "a"}`, []string{`unknown field "pth" (did you mean "path"?)`, `missing required field "path"`}},
		{"schema bounds", `{"path": "a", "small": 300}`, []string{"small", "maximum"}},
		{"array items", `{"path": "a", "tags": [1]}`, []string{"tags"}},
		{"long input is quoted briefly", long, []string{"more bytes)", `field "count" must be an integer`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tool.Execute(context.Background(), tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if res.IsError {
					t.Fatalf("unexpected error:\n%s", res.Content)
				}
				return
			}
			if !res.IsError {
				t.Fatalf("accepted %s", tt.args)
			}
			wantContains(t, res.Content, append([]string{"Invalid arguments for sample"}, tt.want...)...)
			if len(res.Content) > 1500 {
				t.Errorf("message is %d bytes long", len(res.Content))
			}
			_, err = tool.Decode(tt.args)
			var ae *ArgsError
			if !errors.As(err, &ae) || ae.Tool != "sample" {
				t.Errorf("Decode error = %v, want *ArgsError", err)
			}
		})
	}
}
