package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestAddStringsKeepsTheRestOfTheFile(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
		add              []string
	}{
		{
			name: "after the last element, as the array separates them",
			body: "{\n  \"model\": \"qwen3\",\n  \"allow\": [\n    \"bash(go test *)\",\n    \"read_file\"\n  ],\n  \"max_retries\": 0\n}\n",
			add:  []string{"bash(git status *)"},
			want: "{\n  \"model\": \"qwen3\",\n  \"allow\": [\n    \"bash(go test *)\",\n    \"read_file\",\n    \"bash(git status *)\"\n  ],\n  \"max_retries\": 0\n}\n",
		},
		{
			name: "one element, one line; a value there already",
			body: `{"allow": ["a"], "deny": ["b"]}`,
			add:  []string{"a", "b", "b"},
			want: `{"allow": ["a", "b"], "deny": ["b"]}`,
		},
		{
			name: "an empty array",
			body: `{"allow": [], "model": "m"}`,
			add:  []string{"bash(echo \"<hi>\" *)"},
			want: `{"allow": ["bash(echo \"<hi>\" *)"], "model": "m"}`,
		},
		{
			name: "no such field: indented like the others",
			body: "\xEF\xBB\xBF{\n  \"model\": \"m\",\n  \"hooks\": {\"on_turn_end\": [{\"name\": \"x\", \"command\": [\"allow\"]}]}\n}\n",
			add:  []string{"edit_file(main.go)"},
			want: "\xEF\xBB\xBF{\n  \"model\": \"m\",\n  \"hooks\": {\"on_turn_end\": [{\"name\": \"x\", \"command\": [\"allow\"]}]},\n  \"allow\": [\"edit_file(main.go)\"]\n}\n",
		},
		{name: "an empty object", body: `{}`, add: []string{"x"}, want: `{"allow": ["x"]}`},
		{name: "an empty file", body: "\n", add: []string{"x"}, want: "{\n  \"allow\": [\"x\"]\n}\n"},
		{name: "nothing to add", body: `{"allow": ["x"]}`, add: []string{"x"}, want: `{"allow": ["x"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			if err := os.WriteFile(path, []byte(tc.body), 0o640); err != nil {
				t.Fatal(err)
			}
			wrote, err := AddStrings(path, "allow", tc.add, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.want || string(wrote) != tc.want {
				t.Errorf("file:\n%s\nreturned:\n%s\nwant:\n%s", got, wrote, tc.want)
			}
			if _, err := Parse(got); err != nil {
				t.Error(err)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
				t.Errorf("mode %v", fi.Mode())
			}
		})
	}
}

func TestAddStringsCreatesTheFileAndChecksFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tackle", "config.json")
	var saw []byte = []byte("not called")
	if _, err := AddStrings(path, "allow", []string{"read_file"}, func(old []byte) error { saw = old; return nil }); err != nil {
		t.Fatal(err)
	}
	if saw != nil {
		t.Errorf("check saw %q for a missing file", saw)
	}
	got, _ := os.ReadFile(path)
	cfg, err := Parse(got)
	if err != nil || len(cfg.Allow) != 1 || cfg.Allow[0] != "read_file" {
		t.Fatalf("%s: %+v %v", got, cfg, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("a new config file has mode %v", fi.Mode())
	}
	refuse := errors.New("not trusted")
	if _, err := AddStrings(path, "allow", []string{"x"}, func(old []byte) error {
		if string(old) != string(got) {
			t.Errorf("check saw %q", old)
		}
		return refuse
	}); !errors.Is(err, refuse) {
		t.Fatalf("err = %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(got) {
		t.Errorf("a refused add changed the file: %s", after)
	}
	// A broken file, or a field that is no list, is not touched.
	for _, body := range []string{`{"allow": `, `{"allow": "x"}`} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := AddStrings(path, "allow", []string{"y"}, nil); err == nil {
			t.Errorf("%s: no error", body)
		}
		if after, _ := os.ReadFile(path); string(after) != body {
			t.Errorf("%s became %s", body, after)
		}
	}
}
