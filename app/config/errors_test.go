package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseEmptyAndBOM(t *testing.T) {
	for _, body := range []string{"", "  \n\t\n", "\xEF\xBB\xBF", "\xEF\xBB\xBF\n "} {
		c, err := Parse([]byte(body))
		if err != nil || c.Model != "" || c.MaxRequests != nil {
			t.Errorf("Parse(%q) = %+v, %v; want an empty config", body, c, err)
		}
	}
	c, err := Parse([]byte("\xEF\xBB\xBF{\"model\": \"qwen3\"}\n"))
	if err != nil || c.Model != "qwen3" {
		t.Errorf("with a BOM: %+v, %v", c, err)
	}
}

func TestParseZeroIsNotUnset(t *testing.T) {
	c, err := Parse([]byte(`{"max_requests": 0, "max_retries": 0}`))
	if err != nil || c.MaxRequests == nil || *c.MaxRequests != 0 || c.MaxRetries == nil || *c.MaxRetries != 0 {
		t.Fatalf("Parse = %+v, %v", c, err)
	}
	c, err = Parse([]byte(`{"model": "m"}`))
	if err != nil || c.MaxRequests != nil || c.MaxRetries != nil {
		t.Fatalf("unset numbers: %+v, %v", c, err)
	}
}

// TestLoadErrorsNameFileAndField: every problem names the file and the
// field and says what is expected; all of them are reported at once.
func TestLoadErrorsNameFileAndField(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"string for a number", `{"max_requests": "5"}`, `field max_requests: want a whole number, got a string ("5")`},
		{"fraction", `{"max_retries": 1.5}`, `field max_retries: want a whole number, got the number 1.5`},
		{"number for a string", `{"model": 3}`, `field model: want a string, got a number (3)`},
		{"string for a list", `{"allow": "bash(ls *)"}`, `field allow: want an array, got a string ("bash(ls *)")`},
		{"nested type", `{"hooks": {"on_turn_end": [{"name": 7, "command": "x"}]}}`, `field hooks.on_turn_end[0].name: want a string, got a number`},
		{"nested unknown", `{"checks": {"vett": true}}`, `field checks: unknown field "vett"`},
		{"misspelt", `{"modle": "x"}`, `field "modle": unknown field (did you mean "model"?)`},
		{"unknown", `{"colour": "x"}`, `field "colour": unknown field (the fields are `},
		{"syntax", "{\n  \"model\": \"x\",\n}", "line 3, column 1: invalid character '}'"},
		{"not closed", `{"model": "x"`, "the JSON object is not closed"},
		{"array", `["model"]`, `want a JSON object ({"model": ...}), got an array`},
		{"null", `null`, `want a JSON object ({"model": ...}), got null`},
		{"trailing", `{} {}`, "unexpected data after the JSON object"},
		{"bad command", `{"hooks": {"pre_tool_call": [{"name": "x", "command": 5}]}}`, "field hooks.pre_tool_call[0]: command: want a string or an array of strings, got 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil {
				t.Fatal("no error")
			}
			if want := "config " + path + ": " + tc.want; !strings.Contains(err.Error(), want) {
				t.Errorf("error:\n%v\nwant it to contain\n%s", err, want)
			}
		})
	}
}

func TestLoadReportsEveryBadField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(`{"model": 1, "mode": [], "max_requests": "x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines, one per field:\n%v", err)
	}
	for i, f := range []string{"max_requests", "mode", "model"} {
		if want := "config " + path + ": field " + f + ": "; !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d = %q, want the prefix %q", i, lines[i], want)
		}
	}
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Path != path {
		t.Errorf("errors.As(*FieldError) = %+v", fe)
	}
}

// TestInFileNamesOneFile: an error that already names its file (another
// config's: a project's hook inside the user's config wiring) is not
// named after a second one.
func TestInFileNamesOneFile(t *testing.T) {
	project := InFile("/p/.tackle/config.json", errors.New("hook x: no such program"))
	field := &FieldError{Path: "/p/.tackle/config.json", Field: "allow[0]", Err: errors.New("bad rule")}
	err := InFile("/home/u/config.json", errors.Join(project, field, errors.New("mcpServers: bad"), &FieldError{Field: "keys", Err: errors.New("no key")}))
	want := "config /p/.tackle/config.json: hook x: no such program\n" +
		"config /p/.tackle/config.json: field allow[0]: bad rule\n" +
		"config /home/u/config.json: mcpServers: bad\n" +
		"config /home/u/config.json: field keys: no key"
	if err.Error() != want {
		t.Errorf("InFile:\n%v\nwant\n%s", err, want)
	}
}
