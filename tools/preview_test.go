package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/tools/chat"
)

func preview(t *testing.T, r *Registry, name string, args any) Preview {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	return r.Preview(chat.ToolCall{ID: "call_1", Name: name, Arguments: raw})
}

// TestEditPreviewIsWhatRuns: the preview of an edit is the file as the
// tool then writes it, for every way edit_file matches old_string.
func TestEditPreviewIsWhatRuns(t *testing.T) {
	for name, tt := range map[string]struct {
		file string
		args EditFileArgs
	}{
		"once":        {"a\nb\nc\n", EditFileArgs{OldString: "b\n", NewString: "B\n"}},
		"replace all": {"x x x\n", EditFileArgs{OldString: "x", NewString: "yy", ReplaceAll: true}},
		"crlf":        {"one\r\ntwo\r\nthree\r\n", EditFileArgs{OldString: "one\ntwo\n", NewString: "1\n2\n"}},
	} {
		t.Run(name, func(t *testing.T) {
			r, dir := newTestRegistry(t)
			path := writeFile(t, dir, "f.txt", tt.file)
			wantOK(t, call(t, r, ReadFile, ReadFileArgs{Path: "f.txt"}))
			tt.args.Path = "f.txt"
			p := preview(t, r, EditFile, tt.args)
			c := p.Change
			if p.Problem != "" || c == nil || c.Action != "edit" || c.Path != "f.txt" || c.Old != tt.file || c.Created {
				t.Fatalf("preview = %+v, change %+v", p, c)
			}
			wantOK(t, call(t, r, EditFile, tt.args))
			if got := readFile(t, path); got != c.New {
				t.Errorf("the edit wrote %q, the preview showed %q", got, c.New)
			}
		})
	}
}

// TestEditPreviewSaysWhyItFails: an edit that will fail shows the text it
// names and why; nothing is changed or recorded.
func TestEditPreviewSaysWhyItFails(t *testing.T) {
	r, dir := newTestRegistry(t)
	writeFile(t, dir, "f.txt", "x x\n")
	writeFile(t, dir, "bin", "a\x00b")
	wantOK(t, call(t, r, ReadFile, ReadFileArgs{Path: "f.txt"}))
	for _, tt := range []struct {
		args EditFileArgs
		want string
	}{
		{EditFileArgs{Path: "f.txt", OldString: "nope", NewString: "y"}, "old_string is not in the file: the edit will fail"},
		{EditFileArgs{Path: "f.txt", OldString: "x", NewString: "y"}, "old_string occurs 2 times: the edit will fail"},
		{EditFileArgs{Path: "f.txt", OldString: "x", NewString: "x"}, "identical"},
		{EditFileArgs{Path: "gone.txt", OldString: "x", NewString: "y"}, "does not exist"},
		{EditFileArgs{Path: "../out.txt", OldString: "x", NewString: "y"}, "outside the workspace"},
		{EditFileArgs{Path: "bin", OldString: "a", NewString: "b"}, "binary"},
	} {
		p := preview(t, r, EditFile, tt.args)
		c := p.Change
		if !strings.Contains(p.Problem, tt.want) || c == nil || c.Old != tt.args.OldString || c.New != tt.args.NewString {
			t.Errorf("preview of %+v = %+v, change %+v; want the problem %q", tt.args, p, c, tt.want)
		}
	}
	if got := readFile(t, filepath.Join(dir, "f.txt")); got != "x x\n" {
		t.Errorf("a preview changed the file: %q", got)
	}
	// The preview recorded nothing: an edit of a file never read still
	// needs a read.
	writeFile(t, dir, "g.txt", "x x\n")
	preview(t, r, EditFile, EditFileArgs{Path: "g.txt", OldString: "x x", NewString: "y"})
	wantError(t, call(t, r, EditFile, EditFileArgs{Path: "g.txt", OldString: "x x", NewString: "y"}), "has not been read")
}

func TestWritePreview(t *testing.T) {
	r, dir := newTestRegistry(t)
	writeFile(t, dir, "notes.txt", "one\ntwo\n")
	if err := os.Symlink("notes.txt", filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	wantOK(t, call(t, r, ReadFile, ReadFileArgs{Path: "notes.txt"}))
	for _, tt := range []struct {
		args WriteFileArgs
		want FileChange
	}{
		{WriteFileArgs{Path: "notes.txt", Content: "one\nthree\n"}, FileChange{Action: "write", Path: "notes.txt", Old: "one\ntwo\n", New: "one\nthree\n"}},
		{WriteFileArgs{Path: "alias", Content: "x"}, FileChange{Action: "write", Path: "notes.txt", Old: "one\ntwo\n", New: "x"}},
		{WriteFileArgs{Path: "sub/new.txt", Content: "hi\n"}, FileChange{Action: "write", Path: "sub/new.txt", New: "hi\n", Created: true}},
	} {
		p := preview(t, r, WriteFile, tt.args)
		if p.Problem != "" || p.Refused != "" || p.Change == nil || *p.Change != tt.want {
			t.Errorf("preview of %+v = %+v, change %+v; want %+v", tt.args, p, p.Change, tt.want)
		}
	}
	p := preview(t, r, WriteFile, WriteFileArgs{Path: "/etc/passwd", Content: "x"})
	if !strings.Contains(p.Problem, "outside the workspace") || p.Change == nil || p.Change.New != "x" {
		t.Errorf("outside the workspace: %+v", p)
	}
}

func TestBashPreview(t *testing.T) {
	r, _ := newTestRegistry(t)
	for _, tt := range []struct {
		args BashArgs
		want CommandRun
		why  string
	}{
		{BashArgs{Command: "go test ./..."}, CommandRun{Line: "go test ./...", Timeout: DefaultBashTimeout}, ""},
		{BashArgs{Command: "make", TimeoutMS: 5000}, CommandRun{Line: "make", Timeout: 5 * time.Second, Asked: 5 * time.Second}, ""},
		{BashArgs{Command: "sleep 1000", TimeoutMS: 3_600_000}, CommandRun{Line: "sleep 1000", Timeout: MaxBashTimeout, Asked: time.Hour}, ""},
		{BashArgs{Command: "  "}, CommandRun{Line: "  "}, "the command will fail: command is empty."},
	} {
		p := preview(t, r, Bash, tt.args)
		if p.Command == nil || *p.Command != tt.want || p.Problem != tt.why || p.Summary != tt.args.Command {
			t.Errorf("preview of %+v = %+v, command %+v; want %+v, problem %q", tt.args, p, p.Command, tt.want, tt.why)
		}
	}
}

func TestPreviewOfReadersAndOtherTools(t *testing.T) {
	r, _ := newTestRegistry(t)
	if got := preview(t, r, Grep, GrepArgs{Pattern: "TODO", Path: "cmd"}); !reflect.DeepEqual(got, Preview{Summary: "TODO  in cmd"}) {
		t.Errorf("grep: %+v", got)
	}
	if got := preview(t, r, ReadFile, ReadFileArgs{Path: "main.go", Limit: 5}); !reflect.DeepEqual(got, Preview{Summary: "main.go"}) {
		t.Errorf("read_file: %+v", got)
	}
	deploy := New("deploy", "Deploy.", KindNetwork, func(ctx context.Context, a struct {
		Env  string `json:"env"`
		Note string `json:"note,omitempty"`
	}) (Result, error) {
		return OK(""), nil
	}, nil)
	if err := r.Add(deploy); err != nil {
		t.Fatal(err)
	}
	want := Preview{Summary: "env: prod, note: two\nlines", Args: []Arg{{"env", "prod"}, {"note", "two\nlines"}}}
	if got := preview(t, r, "deploy", `{"env": "prod", "note": "two\nlines"}`); !reflect.DeepEqual(got, want) {
		t.Errorf("a tool without a preview of its own: %+v, want %+v", got, want)
	}
	if got := preview(t, r, Bash, `{"command": "ls", "timeout": 5}`); got.Summary != "ls" || !strings.Contains(got.Problem, `unknown field "timeout"`) {
		t.Errorf("bad arguments: %+v", got)
	}
	if got := preview(t, r, "nope", `{}`); !strings.Contains(got.Problem, `there is no tool "nope"`) {
		t.Errorf("unknown tool: %+v", got)
	}
}

// TestPreviewRefusesWhatRunRefuses: a call its tool will refuse is
// Refused in its preview with exactly the result run gives it (the Worker
// answers such a call without asking anyone), and a call that will run is
// not. Every check run makes before it changes anything is covered: the
// arguments, the path, a file never read or changed since it was read,
// the size, old_string.
func TestPreviewRefusesWhatRunRefuses(t *testing.T) {
	r, dir := newTestRegistry(t)
	writeFile(t, dir, "read.txt", "x x\ny\n")
	writeFile(t, dir, "unread.txt", "old\n")
	writeFile(t, dir, "changed.txt", "v1\n")
	writeFile(t, dir, "bin", "a\x00b")
	wantOK(t, call(t, r, ReadFile, ReadFileArgs{Path: "read.txt"}))
	wantOK(t, call(t, r, ReadFile, ReadFileArgs{Path: "changed.txt"}))
	writeFile(t, dir, "changed.txt", "v2, changed behind the model's back\n")
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, maxEditSize+1); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name, tool string
		args       any
		refused    string // a part of the refusal; "" when the call runs
	}{
		{"write over a file never read", WriteFile, WriteFileArgs{Path: "unread.txt", Content: "new\n"}, "has not been read"},
		{"write over a changed file", WriteFile, WriteFileArgs{Path: "changed.txt", Content: "new\n"}, "changed on disk"},
		{"write outside", WriteFile, WriteFileArgs{Path: "../x.txt", Content: "x"}, "outside the workspace"},
		{"write the root", WriteFile, WriteFileArgs{Path: ".", Content: "x"}, "workspace root"},
		{"write, missing field", WriteFile, `{"path":"a.txt"}`, "missing required field"},
		{"edit a file never read", EditFile, EditFileArgs{Path: "unread.txt", OldString: "old", NewString: "new"}, "has not been read"},
		{"edit a changed file", EditFile, EditFileArgs{Path: "changed.txt", OldString: "v2", NewString: "v3"}, "changed on disk"},
		{"edit, old_string missing", EditFile, EditFileArgs{Path: "read.txt", OldString: "zzz", NewString: "w"}, "was not found"},
		{"edit, old_string twice", EditFile, EditFileArgs{Path: "read.txt", OldString: "x", NewString: "w"}, "occurs 2 times"},
		{"edit, nothing to change", EditFile, EditFileArgs{Path: "read.txt", OldString: "y", NewString: "y"}, "identical"},
		{"edit a missing file", EditFile, EditFileArgs{Path: "gone.txt", OldString: "a", NewString: "b"}, "does not exist"},
		{"edit a binary file", EditFile, EditFileArgs{Path: "bin", OldString: "a", NewString: "b"}, "binary"},
		{"edit a file too large", EditFile, EditFileArgs{Path: "big.txt", OldString: "a", NewString: "b"}, "too large for edit_file"},
		{"empty command", Bash, BashArgs{Command: " "}, "command is empty"},
		{"negative timeout", Bash, BashArgs{Command: "true", TimeoutMS: -1}, "timeout_ms must be positive"},
		{"unknown tool", "nope", `{}`, "Unknown tool"},
		{"write a new file", WriteFile, WriteFileArgs{Path: "sub/new.txt", Content: "x"}, ""},
		{"write over a file read", WriteFile, WriteFileArgs{Path: "read.txt", Content: "new\n"}, ""},
		{"edit a file read", EditFile, EditFileArgs{Path: "read.txt", OldString: "y", NewString: "z"}, ""},
		{"a command", Bash, BashArgs{Command: "true"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := preview(t, r, tt.tool, tt.args)
			if tt.refused == "" {
				if p.Refused != "" {
					t.Fatalf("a call that runs is refused: %q", p.Refused)
				}
				return
			}
			if !strings.Contains(p.Refused, tt.refused) || p.Problem == "" {
				t.Fatalf("preview = %+v; want it refused with %q and a problem", p, tt.refused)
			}
			res := call(t, r, tt.tool, tt.args)
			if res.Status != chat.StatusError || res.Content != p.Refused {
				t.Errorf("run answered %s %q; the preview said it would answer %q", res.Status, res.Content, p.Refused)
			}
		})
	}
}
