package e2e

// End-to-end tests of the command line: settings from flags, environment
// and the config file, their errors, exit codes, command hook validation
// and `tackle permissions`.

import (
	"os"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/app"
)

// strictHook pushes new feedback at every turn end, so only the retry
// budget stops the run.
const strictHook = `"hooks": {"on_turn_end": [{"name": "strict", "command":
  "n=$(cat rounds 2>/dev/null || echo 0); n=$((n+1)); echo $n > rounds; echo \"main.go:$n:1: still broken\" >&2; exit 2"}]}`

// TestE2EMaxRetriesZeroMeansNoRetries: --max-retries 0 (or 0 in the
// environment or the file) allows no retry round; it used to mean 3.
func TestE2EMaxRetriesZeroMeansNoRetries(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config string
		env    []string
		args   []string
	}{
		{"flag", `{` + strictHook + `}`, nil, []string{"--max-retries", "0"}},
		{"env", `{` + strictHook + `}`, []string{"TACKLE_MAX_RETRIES=0"}, nil},
		{"file", `{"max_retries": 0, ` + strictHook + `}`, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t, "never_fixed.json")
			e.config(tc.config)
			r := e.runEnv(tc.env, nil, append(tc.args, "-p", "fix it")...)
			if r.code != app.ExitCapped {
				t.Fatalf("exit %d, want %d (capped)", r.code, app.ExitCapped)
			}
			if n := len(e.requests()); n != 1 {
				t.Errorf("requests = %d, want 1 (no retry)", n)
			}
			if !strings.Contains(r.stderr, "retries are off") {
				t.Errorf("stderr does not say why: %q", r.stderr)
			}
		})
	}
}

// TestE2ESettingsPrecedence: flags win over the environment, which wins
// over the file.
func TestE2ESettingsPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      []string
		args     []string
		requests int
	}{
		{"file", nil, nil, 3},
		{"env over file", []string{"TACKLE_MAX_RETRIES=1"}, nil, 2},
		{"flag over env", []string{"TACKLE_MAX_RETRIES=1"}, []string{"--max-retries", "0"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t, "never_fixed.json")
			e.config(`{"max_retries": 2, ` + strictHook + `}`)
			r := e.runEnv(tc.env, nil, append(tc.args, "-p", "fix it")...)
			if r.code != app.ExitCapped {
				t.Fatalf("exit %d", r.code)
			}
			if n := len(e.requests()); n != tc.requests {
				t.Errorf("requests = %d, want %d", n, tc.requests)
			}
		})
	}
}

// TestE2EBadNumbersAreUsageErrors: 0 model requests makes no sense, and
// negative numbers are refused, each naming where the value came from;
// nothing is sent to the model.
func TestE2EBadNumbersAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config string
		env    []string
		args   []string
		want   string
	}{
		{"zero requests", "", nil, []string{"--max-requests", "0"},
			"tackle: --max-requests: got 0; want 1 or more (a run makes at least one model request)"},
		{"negative requests flag", "", nil, []string{"--max-requests=-1"},
			"tackle: --max-requests: got -1; want 1 or more"},
		{"negative retries flag", "", nil, []string{"--max-retries=-2"},
			"tackle: --max-retries: got -2; want 0 or more"},
		{"negative retries env", "", []string{"TACKLE_MAX_RETRIES=-1"}, nil,
			"tackle: TACKLE_MAX_RETRIES: got -1; want 0 or more"},
		{"zero requests env", "", []string{"TACKLE_MAX_REQUESTS=0"}, nil,
			"tackle: TACKLE_MAX_REQUESTS: got 0; want 1 or more"},
		{"negative requests file", `{"max_requests": -3}`, nil, nil,
			": field max_requests: got -3; want 1 or more"},
		{"zero requests file", `{"max_requests": 0}`, nil, nil,
			": field max_requests: got 0; want 1 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t, "plain.json")
			if tc.config != "" {
				e.config(tc.config)
			}
			r := e.runEnv(tc.env, nil, append(tc.args, "-p", "hi")...)
			if r.code != app.ExitUsage {
				t.Fatalf("exit %d, want %d", r.code, app.ExitUsage)
			}
			want := tc.want
			if tc.config != "" {
				want = "tackle: config " + e.configPath() + want
			}
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr:\n%s\nwant it to contain\n%s", r.stderr, want)
			}
			if n := len(e.requests()); n != 0 {
				t.Errorf("%d requests were sent", n)
			}
		})
	}
}

// TestE2EBrokenConfigDoesNotBlockHelpOrVersion, but blocks a run.
func TestE2EBrokenConfigDoesNotBlockHelpOrVersion(t *testing.T) {
	e := newE2E(t, "plain.json")
	e.config(`{"model": "x",`)
	if r := e.run("--help"); r.code != app.ExitOK || !strings.Contains(r.stdout, "--max-requests") {
		t.Errorf("--help: exit %d", r.code)
	}
	if r := e.run("--version"); r.code != app.ExitOK || !strings.HasPrefix(r.stdout, "tackle ") {
		t.Errorf("--version: exit %d, %q", r.code, r.stdout)
	}
	r := e.run("-p", "hi")
	if want := "tackle: config " + e.configPath() + ": the JSON object is not closed"; r.code != app.ExitUsage || !strings.Contains(r.stderr, want) {
		t.Errorf("a run: exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
}

// TestE2EStdinReadErrorIsAnError: an I/O error on stdin is exit 1, not a
// usage error.
func TestE2EStdinReadErrorIsAnError(t *testing.T) {
	e := newE2E(t, "plain.json")
	dir, err := os.Open(t.TempDir()) // reading a directory fails
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	r := e.runEnv(nil, dir)
	if r.code != app.ExitError || !strings.Contains(r.stderr, "tackle: read stdin: ") {
		t.Fatalf("exit %d, stderr %q; want %d and the read error", r.code, r.stderr, app.ExitError)
	}
}

// TestE2EConfigErrorsNameFileAndField: each problem in the file names the
// file and the field and says what is expected; a bad value from a flag
// or the environment names that.
func TestE2EConfigErrorsNameFileAndField(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config string
		env    []string
		args   []string
		theme  string   // a user theme file of this name, if set
		want   []string // in stderr; "FILE" is the config file
	}{
		{name: "mode in the file", config: `{"mode": "fast"}`,
			want: []string{`tackle: config FILE: field mode: got "fast"; want default, accept-edits, yolo or plan`}},
		{name: "mode flag", args: []string{"--mode", "fast"},
			want: []string{`tackle: --mode: got "fast"; want default, accept-edits, yolo or plan`}},
		{name: "mode env", env: []string{"TACKLE_MODE=fast"},
			want: []string{`tackle: TACKLE_MODE: got "fast"; want default`}},
		{name: "allow rule in the file", config: `{"allow": ["bash(go test *)", "bash(go vet"]}`,
			want: []string{`tackle: config FILE: field allow[1]: bad approval rule "bash(go vet": missing the closing ")"`}},
		{name: "deny rule flag", args: []string{"--deny", "Bash(rm *)"},
			want: []string{`tackle: --deny: bad approval rule "Bash(rm *)": tool names are lower case (did you mean bash?)`}},
		{name: "wrong type", config: `{"max_requests": "5"}`,
			want: []string{`tackle: config FILE: field max_requests: want a whole number, got a string ("5")`}},
		{name: "misspelt field", config: `{"max_request": 5}`,
			want: []string{`tackle: config FILE: field "max_request": unknown field (did you mean "max_requests"?)`}},
		{name: "every problem at once", config: `{"mode": "fast", "max_retries": -1, "deny": ["("]}`,
			want: []string{
				`tackle: config FILE: field mode: got "fast"`,
				`tackle: config FILE: field max_retries: got -1; want 0 or more`,
				`tackle: config FILE: field deny[0]: bad approval rule "("`,
			}},
		// Settings the interactive UI reads are validated in every run,
		// with the rest.
		{name: "theme in the file", config: `{"theme": "nope"}`,
			want: []string{`tackle: config FILE: field theme: got "nope"; want auto, dark, high-contrast, light, no-color`}},
		{name: "theme env", env: []string{"TACKLE_THEME=nope"},
			want: []string{`tackle: TACKLE_THEME: got "nope"; want auto`}},
		{name: "theme flag", args: []string{"--theme", "nope"},
			want: []string{`tackle: --theme: got "nope"; want auto`}},
		{name: "keys", config: `{"keys": {"explode": ["ctrl+x"]}}`,
			want: []string{`tackle: config FILE: field keys: unknown action "explode"; the actions are send, `}},
		{name: "prices", config: `{"prices": {"gpt-x": {"input": -1, "output": 2}}}`,
			want: []string{`tackle: config FILE: field prices.gpt-x.input: got -1; want 0 or more (dollars per million tokens)`}},
		{name: "mcpServers", config: `{"mcpServers": {"db": {"type": "stdio"}}}`,
			want: []string{`tackle: config FILE: mcpServers: server "db": a stdio server needs a command`}},
		{name: "UI settings with the others", config: `{"theme": "nope", "keys": {"expand": []}, "max_retries": -1}`,
			want: []string{
				`tackle: config FILE: field theme: got "nope"`,
				`tackle: config FILE: field keys: expand has no key`,
				`tackle: config FILE: field max_retries: got -1`,
			}},
		{name: "flag wins over a bad file value", config: `{"mode": "fast"}`, args: []string{"--mode", "plan"}},
		{name: "a user theme", config: `{"theme": "ocean"}`, theme: "ocean"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t, "plain.json")
			if tc.config != "" {
				e.config(tc.config)
			}
			if tc.theme != "" {
				e.userTheme(tc.theme)
			}
			r := e.runEnv(tc.env, nil, append(tc.args, "-p", "hi")...)
			if tc.want == nil {
				if r.code != app.ExitOK {
					t.Fatalf("exit %d", r.code)
				}
				return
			}
			if r.code != app.ExitUsage {
				t.Fatalf("exit %d, want %d", r.code, app.ExitUsage)
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "FILE", e.configPath()); !strings.Contains(r.stderr, w) {
					t.Errorf("stderr:\n%s\nwant it to contain\n%s", r.stderr, w)
				}
			}
			if n := len(e.requests()); n != 0 {
				t.Errorf("%d requests were sent", n)
			}
		})
	}
}

// TestE2EEmptyConfigAndBOM: an empty or white-space file is an empty
// config, and a UTF-8 byte order mark is skipped.
func TestE2EEmptyConfigAndBOM(t *testing.T) {
	for name, body := range map[string]string{
		"empty":      "",
		"white":      " \n\t\n",
		"bom":        "\xEF\xBB\xBF{\"model\": \"from-file\"}\n",
		"bom, empty": "\xEF\xBB\xBF",
	} {
		t.Run(name, func(t *testing.T) {
			e := newE2E(t, "plain.json")
			e.config(body)
			// TACKLE_MODEL would win over the file.
			if r := e.runEnv([]string{"-TACKLE_MODEL"}, nil, "-p", "hi"); r.code != app.ExitOK {
				t.Fatalf("exit %d", r.code)
			}
			want := "gpt-4.1-mini"
			if strings.Contains(body, "from-file") {
				want = "from-file"
			}
			if reqs := e.requests(); len(reqs) != 1 || reqs[0].Model != want {
				t.Errorf("requests = %+v, want one for the model %q", reqs, want)
			}
		})
	}
}

func TestE2EEmptyModelIsRefused(t *testing.T) {
	e := newE2E(t, "plain.json")
	r := e.runEnv([]string{"TACKLE_MODEL="}, nil, "-p", "hi")
	if r.code != app.ExitUsage || !strings.Contains(r.stderr, `tackle: TACKLE_MODEL: got ""; want a model name as the endpoint knows it`) {
		t.Fatalf("exit %d, %q", r.code, r.stderr)
	}
}

// TestE2EFlagWinsOverABadEnvironmentValue: a flag given on the command
// line is not read from the environment, so a bad value there is not an
// error (kong used to parse it anyway and fail).
func TestE2EFlagWinsOverABadEnvironmentValue(t *testing.T) {
	e := newE2E(t, "plain.json")
	r := e.runEnv([]string{"TACKLE_MAX_RETRIES=x"}, nil, "--max-retries", "1", "-p", "hi")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d, %q", r.code, r.stderr)
	}
	r = e.runEnv([]string{"TACKLE_MAX_RETRIES=x"}, nil, "-p", "hi")
	if want := `tackle: --max-retries: expected a valid 64 bit int but got "x" (from envar TACKLE_MAX_RETRIES="x")`; r.code != app.ExitUsage || !strings.Contains(r.stderr, want) {
		t.Fatalf("exit %d, %q; want %d and %q", r.code, r.stderr, app.ExitUsage, want)
	}
}

// TestE2EMissingHookCommandFailsAtStartup: a hook whose program does not
// exist used to skip every tool call silently; now tackle refuses to
// start, naming the hook, its event and the problem.
func TestE2EMissingHookCommandFailsAtStartup(t *testing.T) {
	for _, tc := range []struct {
		name, hook, want string
	}{
		{"argv", `{"name": "guard", "command": ["tackle-no-such-guard", "--strict"]}`,
			`hooks.pre_tool_call[0] "guard": command: program "tackle-no-such-guard" is not in $PATH`},
		{"script", `{"name": "guard", "command": "tackle-no-such-guard --strict | tee log"}`,
			`hooks.pre_tool_call[0] "guard": command: the script's first command "tackle-no-such-guard" is not in the hook's $PATH`},
		{"relative path", `{"name": "guard", "command": ["./hooks/guard.sh"]}`,
			`hooks.pre_tool_call[0] "guard": command: ./hooks/guard.sh does not exist (a relative path is taken from the workspace, `},
		{"bad timeout", `{"name": "guard", "command": "cat", "timeout": "0s"}`,
			`hooks.pre_tool_call[0] "guard": timeout "0s": must be positive`},
		{"impersonation", `{"name": "approval", "command": "cat"}`,
			`hooks.pre_tool_call[0] "approval": "approval" is already the name of a pre_tool_call hook`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t, "bash_echo.json")
			e.config(`{"hooks": {"pre_tool_call": [` + tc.hook + `]}}`)
			r := e.run("--yes", "-p", "say hello")
			if r.code != app.ExitUsage {
				t.Fatalf("exit %d, want %d", r.code, app.ExitUsage)
			}
			if want := "tackle: config " + e.configPath() + ": " + tc.want; !strings.Contains(r.stderr, want) {
				t.Errorf("stderr:\n%s\nwant it to contain\n%s", r.stderr, want)
			}
			if n := len(e.requests()); n != 0 {
				t.Errorf("%d requests were sent", n)
			}
		})
	}
}

func TestE2EPermissionsListAndRevoke(t *testing.T) {
	e := newE2E(t, "bash_echo.json")
	if r := e.run("--help"); !strings.Contains(r.stdout, "permissions revoke") {
		t.Errorf("--help does not list the permissions command:\n%s", r.stdout)
	}
	if r := e.run("permissions"); r.code != app.ExitOK || !strings.Contains(r.stdout, "No config file at "+e.configPath()) {
		t.Errorf("no file: exit %d, %q", r.code, r.stdout)
	}

	const body = `{
  "model": "e2e-model",
  "allow": [
    "bash(echo *)",
    "bash(tee ran.txt)",
    "read_file"
  ],
  "deny": ["bash(rm *)"],
  "max_retries": 1
}
`
	e.config(body)
	if err := os.Chmod(e.configPath(), 0o640); err != nil {
		t.Fatal(err)
	}
	r := e.run("permissions")
	if r.code != app.ExitOK {
		t.Fatalf("list: exit %d", r.code)
	}
	for _, want := range []string{
		"Rules in " + e.configPath(), "deny   bash(rm *)", "allow  bash(echo *)", "allow  bash(tee ran.txt)", "allow  read_file",
		"last for their session, also when it is continued",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("list does not show %q:\n%s", want, r.stdout)
		}
	}
	// The rules apply: the pipeline runs without asking.
	if r := e.run("-p", "say hello"); r.code != app.ExitOK {
		t.Fatalf("run with the rules: exit %d", r.code)
	}

	// Revoke one: the rest of the file is kept as it was.
	r = e.run("permissions", "revoke", "bash(tee   ran.txt)")
	if r.code != app.ExitOK || !strings.Contains(r.stdout, "Removed the allow rule bash(tee ran.txt) (allow[1]) from "+e.configPath()) {
		t.Fatalf("revoke: exit %d, %q", r.code, r.stdout)
	}
	got, err := os.ReadFile(e.configPath())
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(body, "    \"bash(tee ran.txt)\",\n", "", 1); string(got) != want {
		t.Errorf("file after revoke:\n%s\nwant\n%s", got, want)
	}
	if fi, _ := os.Stat(e.configPath()); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", fi.Mode().Perm())
	}
	// And it no longer applies.
	e.srv = newE2E(t, "bash_echo.json").srv
	if r := e.run("-p", "say hello"); r.code != app.ExitDenied {
		t.Errorf("run after revoke: exit %d, want %d", r.code, app.ExitDenied)
	}

	// A rule that is not there.
	r = e.run("permissions", "revoke", "bash(tee ran.txt)")
	if r.code != app.ExitError || !strings.Contains(r.stderr, "has no rule bash(tee ran.txt) (its rules: bash(rm *), bash(echo *), read_file)") {
		t.Errorf("revoke again: exit %d, %q", r.code, r.stderr)
	}
	if r := e.run("permissions", "revoke", "bash(x"); r.code != app.ExitUsage || !strings.Contains(r.stderr, `bad approval rule "bash(x"`) {
		t.Errorf("a bad rule: exit %d, %q", r.code, r.stderr)
	}
	if r := e.run("permissions", "revoke"); r.code != app.ExitUsage {
		t.Errorf("no rule: exit %d", r.code)
	}
}
