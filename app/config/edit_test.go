package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRemoveStringsKeepsTheRestOfTheFile(t *testing.T) {
	for _, tc := range []struct {
		name, body, drop, want string
		removed                []Removed
	}{
		{
			name:    "middle element",
			body:    "{\n  \"model\": \"qwen3\",\n  \"allow\": [\n    \"bash(go test *)\",\n    \"bash(rm *)\",\n    \"read_file\"\n  ],\n  \"max_retries\": 0\n}\n",
			drop:    "bash(rm *)",
			want:    "{\n  \"model\": \"qwen3\",\n  \"allow\": [\n    \"bash(go test *)\",\n    \"read_file\"\n  ],\n  \"max_retries\": 0\n}\n",
			removed: []Removed{{Field: "allow", Index: 1, Value: "bash(rm *)"}},
		},
		{
			name:    "last element, one line",
			body:    `{"allow": ["a", "b"], "deny": ["b"]}`,
			drop:    "b",
			want:    `{"allow": ["a"], "deny": []}`,
			removed: []Removed{{Field: "allow", Index: 1, Value: "b"}, {Field: "deny", Index: 0, Value: "b"}},
		},
		{
			name:    "first element and duplicates",
			body:    "{\"allow\": [ \"x\",\"y\" ,\"x\" ]}",
			drop:    "x",
			want:    "{\"allow\": [ \"y\" ]}",
			removed: []Removed{{Field: "allow", Index: 0, Value: "x"}, {Field: "allow", Index: 2, Value: "x"}},
		},
		{
			name:    "escapes and a BOM",
			body:    "\xEF\xBB\xBF{\"deny\": [\"bash(echo \\\"hi\\\" *)\", \"edit_file(\\u002egit/**)\"]}",
			drop:    ".git",
			want:    "\xEF\xBB\xBF{\"deny\": [\"bash(echo \\\"hi\\\" *)\"]}",
			removed: []Removed{{Field: "deny", Index: 1, Value: "edit_file(.git/**)"}},
		},
		{
			name:    "a hook's field of the same name is not touched",
			body:    `{"hooks": {"on_turn_end": [{"name": "x", "command": ["allow", "x"]}]}, "allow": ["x"]}`,
			drop:    "x",
			want:    `{"hooks": {"on_turn_end": [{"name": "x", "command": ["allow", "x"]}]}, "allow": []}`,
			removed: []Removed{{Field: "allow", Index: 0, Value: "x"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config.json")
			if err := os.WriteFile(path, []byte(tc.body), 0o640); err != nil {
				t.Fatal(err)
			}
			removed, err := RemoveStrings(path, []string{"allow", "deny"}, func(_, v string) bool {
				return v == tc.drop || tc.drop == ".git" && strings.Contains(v, ".git")
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(removed, tc.removed) {
				t.Errorf("removed = %+v, want %+v", removed, tc.removed)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.want {
				t.Errorf("file =\n%s\nwant\n%s", got, tc.want)
			}
			if _, err := Parse(got); err != nil {
				t.Errorf("the edited file does not parse: %v", err)
			}
			fi, _ := os.Stat(path)
			if fi.Mode().Perm() != 0o640 {
				t.Errorf("mode = %v, want 0640", fi.Mode().Perm())
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("files left in the directory: %v", entries)
			}
		})
	}
}

func TestRemoveStringsThroughASymlinkAndNothingToRemove(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "tackle.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	body := `{"allow": ["a", "b"]}`
	if err := os.WriteFile(real, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	fiBefore, _ := os.Stat(real)
	if removed, err := RemoveStrings(link, []string{"allow"}, func(_, v string) bool { return v == "zzz" }); err != nil || removed != nil {
		t.Fatalf("nothing to remove: %v, %v", removed, err)
	}
	if fiAfter, _ := os.Stat(real); !os.SameFile(fiBefore, fiAfter) {
		t.Error("the file was rewritten with nothing removed")
	}
	if _, err := RemoveStrings(link, []string{"allow"}, func(_, v string) bool { return v == "a" }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi, err)
	}
	if got, _ := os.ReadFile(real); string(got) != `{"allow": ["b"]}` {
		t.Errorf("target = %s", got)
	}
}

func TestRemoveStringsRefusesABrokenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	body := `{"allow": ["a"], "modle": "x"}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := RemoveStrings(path, []string{"allow"}, func(_, v string) bool { return true })
	if err == nil || !strings.Contains(err.Error(), "config "+path+`: field "modle": unknown field`) {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != body {
		t.Errorf("the file changed: %s", got)
	}
}
