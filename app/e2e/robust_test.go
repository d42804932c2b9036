package e2e

// End-to-end tests of robustness against bad servers and bad input, and of
// secret redaction: the built binary against the scripted server.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/app"
)

// The stream stops after three chunks: tackle must not wait for ever.
func TestE2EStalledStreamEndsWithIdleTimeout(t *testing.T) {
	e := newE2E(t, "stall.json")
	r := e.runBounded(time.Minute, "--stream-idle-timeout", "500ms", "-p", "think")
	if r.code != app.ExitError {
		t.Errorf("exit %d, want %d", r.code, app.ExitError)
	}
	for _, want := range []string{"sent nothing for 500ms", "--stream-idle-timeout"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if n := len(e.requests()); n != 1 {
		t.Errorf("requests = %d: a reply stalled after its first token must not be retried", n)
	}
}

// The bound can come from the config file, and the stream may stall right
// after the headers: nothing arrived, so the request is sent again.
func TestE2EFirstTokenTimeoutRetries(t *testing.T) {
	e := newE2E(t, "stall_headers_then_answer.json")
	e.config(`{"first_token_timeout": "1s"}`)
	r := e.runBounded(time.Minute, "-p", "hello?")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d, want %d", r.code, app.ExitOK)
	}
	if r.stdout != "Here after all.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "no reply from the model within 1s") || !strings.Contains(r.stderr, "retry 1 of 4 in") {
		t.Errorf("stderr does not report the retry:\n%s", r.stderr)
	}
	if n := len(e.requests()); n != 2 {
		t.Errorf("requests = %d, want 2", n)
	}
}

func TestE2EStreamTimeoutSettingsAreChecked(t *testing.T) {
	e := newE2E(t, "plain.json")
	r := e.runBounded(time.Minute, "--first-token-timeout", "0s", "-p", "hi")
	if r.code != app.ExitUsage || !strings.Contains(r.stderr, "--first-token-timeout: got 0s; want a duration of more than 0") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	e.config(`{"first_token_timeout": "-5s"}`)
	r = e.runBounded(time.Minute, "-p", "hi")
	if r.code != app.ExitUsage || !strings.Contains(r.stderr, `field first_token_timeout: duration "-5s" must be more than 0`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	e.config(`{"stream_idle_timeout": "soon"}`)
	r = e.runBounded(time.Minute, "-p", "hi")
	if r.code != app.ExitUsage || !strings.Contains(r.stderr, `invalid duration "soon": expected a Go duration such as "90s"`) || !strings.Contains(r.stderr, "config.json") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if n := len(e.requests()); n != 0 {
		t.Errorf("requests = %d, want none", n)
	}
}

// In the UI a stalled reply ends with a message, and the prompt is usable.
func TestE2ETUIStalledStreamShowsErrorAndPromptStaysUsable(t *testing.T) {
	e := newE2E(t, "tui_stall.json")
	s := e.startTUI("--stream-idle-timeout", "500ms")
	s.waitFor("Ask tackle to do something")
	s.typeText("think hard")
	s.keys("Enter")
	screen := s.waitFor("sent nothing for 500ms")
	if !strings.Contains(screen, "Thinking about it") {
		t.Errorf("the partial answer is gone:\n%s", screen)
	}
	s.waitUntil("the turn to end", func(screen string) bool { return !strings.Contains(screen, "esc to interrupt") })
	s.typeText("next question")
	s.waitFor("› next question")
	s.keys("C-c") // clears the editor
	s.waitUntil("the editor to clear", func(screen string) bool { return !strings.Contains(screen, "› next question") })
	s.keys("C-d")
	if code := s.waitExit(); code != app.ExitOK {
		t.Errorf("exit status %d", code)
	}
}

// A path ending in "/" and a lone surrogate in any string argument are
// refused with a message for the model, not turned into a file named like
// the directory or a U+FFFD.
func TestE2EDirectoryPathAndLoneSurrogateAreRefused(t *testing.T) {
	e := newE2E(t, "bad_paths_and_surrogates.json")
	if err := os.WriteFile(filepath.Join(e.workspace, "keep.txt"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.runBounded(time.Minute, "--mode", "yolo", "-p", "write things")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	for id, want := range map[string]string{
		"call_dir":  `ends with "/", so it names a directory, not a file`,
		"call_lone": `field "content" contains the lone UTF-16 surrogate \ud800`,
	} {
		if got := e.toolResult(1, id); !strings.Contains(got, want) {
			t.Errorf("%s result = %q, want it to contain %q", id, got, want)
		}
	}
	if got := e.toolResult(2, "call_edit"); !strings.Contains(got, `field "new_string" contains the lone UTF-16 surrogate \udc00`) {
		t.Errorf("edit result = %q", got)
	}
	for _, name := range []string{"build", "out.txt"} {
		if _, err := os.Lstat(filepath.Join(e.workspace, name)); err == nil {
			t.Errorf("%s was written", name)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(e.workspace, "keep.txt")); string(b) != "keep\n" {
		t.Errorf("keep.txt = %q", b)
	}
}

// Binary bash output never reaches the model raw: escapes, control bytes
// and invalid UTF-8 are replaced and named; binary output is not shown.
func TestE2EBashBinaryOutputIsSanitised(t *testing.T) {
	e := newE2E(t, "bash_binary.json")
	r := e.runBounded(time.Minute, "--yes", "--output", "json", "-p", "run them")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	esc := e.toolResult(1, "call_esc")
	if !strings.HasPrefix(esc, "ok green nul␀ bad\uFFFD done\n") || !strings.Contains(esc, "removed 2 terminal escape sequences") || !strings.Contains(esc, "showed 1 control character as symbols") {
		t.Errorf("escape result = %q", esc)
	}
	bin := e.toolResult(1, "call_bin")
	if !strings.HasPrefix(bin, "[The output looks binary (4096 bytes") {
		t.Errorf("binary result = %q", bin)
	}
	for _, s := range []string{esc, bin, r.stdout} {
		if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' && r != '\r' }) {
			t.Errorf("raw control characters got through: %q", s)
		}
	}
}

// kill -9 in the middle of a large write_file: strace kills tackle with
// SIGKILL at the write's fsync, when the whole temporary file is on disk
// and not yet renamed. The next tackle removes that file, and only it.
func TestE2EKilledWriteLeavesNoTemporaryFile(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("strace is required in CI (.ci/run installs it)")
		}
		t.Skip("strace is not installed")
	}
	content := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	args, _ := json.Marshal(map[string]string{"path": "big.bin", "content": content})
	e := &e2e{
		t: t,
		srv: llmtest.NewServer(t, llmtest.NewScript(
			llmtest.Response{ToolCalls: []llmtest.ToolCall{llmtest.Call("call_big", "write_file", string(args))}, ChunkSize: 1 << 16},
			llmtest.Text("Hello again."),
		)),
		workspace: t.TempDir(),
		home:      t.TempDir(),
	}
	lookalike := filepath.Join(e.workspace, ".notes.txt.tackle-ABCDEFGHIJKL.tmp")
	if err := os.WriteFile(lookalike, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := e.command("--yes", "-p", "write big.bin")
	cmd.Args = append([]string{"strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=fsync", "-e", "inject=fsync:signal=KILL:when=1"}, cmd.Args...)
	cmd.Path = strace
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("tackle was not killed:\n%s", out)
	}
	left, _ := filepath.Glob(filepath.Join(e.workspace, ".big.bin.tackle-*.tmp"))
	if len(left) != 1 {
		t.Fatalf("the kill left %v (%v):\n%s", left, err, out)
	}
	if fi, err := os.Stat(left[0]); err != nil || fi.Size() != int64(len(content)) {
		t.Fatalf("temporary file: %v %v", fi, err)
	}

	r := e.runBounded(time.Minute, "-p", "hello")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	if _, err := os.Lstat(left[0]); !os.IsNotExist(err) {
		t.Errorf("the temporary file is still there: %v", err)
	}
	if !strings.Contains(r.stderr, "removed "+left[0]+" (1048576 bytes), a temporary file left by a tackle that was killed mid-write") {
		t.Errorf("stderr does not report the removal:\n%s", r.stderr)
	}
	if b, err := os.ReadFile(lookalike); err != nil || string(b) != "mine" {
		t.Errorf("the user's look-alike file: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "big.bin")); !os.IsNotExist(err) {
		t.Errorf("big.bin exists: %v", err)
	}
	journals, _ := os.ReadDir(filepath.Join(e.home, ".local", "state", "tackle", "pending-writes"))
	if len(journals) != 0 {
		t.Errorf("journals left: %v", journals)
	}
}

// Secrets of the workspace, as a project keeps them (none real).
const (
	e2eGitHubToken = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	e2eSlackToken  = "xoxb-123456789012-123456789012-abcdefghijABCDEFGHIJ"
	e2eDBPassword  = "correct-horse-battery"
	e2eAPIKey      = "k3y-value-from-dotenv"
	e2eDeployToken = "ghp_ZYXWVUTSRQPONMLKJIHGzyxwvutsrqponm9876"
)

func writeSecrets(t *testing.T, ws string) {
	t.Helper()
	files := map[string]string{
		".env": "# local settings\nGITHUB_TOKEN=" + e2eGitHubToken + "\nexport DB_PASSWORD=\"" + e2eDBPassword + "\"\n" +
			"SLACK_BOT_TOKEN=" + e2eSlackToken + "\nSTRIPE_API_KEY=" + e2eAPIKey + "\nPLAIN=hello\n",
		"deploy/notes.md": "Deploy with the bot's token " + e2eDeployToken + " (rotate monthly).\n",
	}
	for name, body := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// `cat .env`, `grep -rn TOKEN .` and read_file on a file with a GitHub
// token: no secret value reaches stdout, the JSON output or the model.
func TestE2ERedactsSecretsFromToolResults(t *testing.T) {
	e := newE2E(t, "redact_secrets.json")
	writeSecrets(t, e.workspace)
	r := e.runBounded(time.Minute, "--yes", "--output", "json", "-p", "look at the settings")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	cat, grep, read := e.toolResult(1, "call_cat"), e.toolResult(1, "call_grep"), e.toolResult(1, "call_read")
	for _, secret := range []string{e2eGitHubToken, e2eSlackToken, e2eDBPassword, e2eAPIKey, e2eDeployToken} {
		for where, s := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "cat": cat, "grep": grep, "read_file": read} {
			if strings.Contains(s, secret) {
				t.Errorf("%s shows the secret %s:\n%s", where, secret, s)
			}
		}
	}
	for _, want := range []string{
		"GITHUB_TOKEN=[REDACTED:github]", `export DB_PASSWORD="[REDACTED:dotenv]"`, "SLACK_BOT_TOKEN=[REDACTED:slack]",
		"STRIPE_API_KEY=[REDACTED:dotenv]", "PLAIN=hello",
	} {
		if !strings.Contains(cat, want) {
			t.Errorf("cat .env lacks %q:\n%s", want, cat)
		}
	}
	if !strings.Contains(grep, "./.env:2:GITHUB_TOKEN=[REDACTED:github]") || !strings.Contains(grep, "./.env:4:SLACK_BOT_TOKEN=[REDACTED:slack]") {
		t.Errorf("grep result:\n%s", grep)
	}
	if !strings.Contains(read, "Deploy with the bot's token [REDACTED:github] (rotate monthly).") {
		t.Errorf("read_file result:\n%s", read)
	}
	if !strings.Contains(r.stdout, "[REDACTED:github]") {
		t.Errorf("the JSON output does not carry the redacted results:\n%s", r.stdout)
	}
}

// A pattern can be turned off by name in the config; an unknown name is
// an error that names the file.
func TestE2ERedactionPatternsCanBeDisabled(t *testing.T) {
	e := newE2E(t, "redact_secrets.json")
	writeSecrets(t, e.workspace)
	e.config(`{"redact": {"disable": ["github"]}}`)
	r := e.runBounded(time.Minute, "--yes", "-p", "look at the settings")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	if read := e.toolResult(1, "call_read"); !strings.Contains(read, e2eDeployToken) {
		t.Errorf("the disabled pattern still redacted:\n%s", read)
	}
	if cat := e.toolResult(1, "call_cat"); !strings.Contains(cat, "SLACK_BOT_TOKEN=[REDACTED:slack]") || strings.Contains(cat, e2eDBPassword) {
		t.Errorf("the other patterns stopped:\n%s", cat)
	}

	e.config(`{"redact": {"disable": ["gh"]}}`)
	r = e.runBounded(time.Minute, "-p", "hi")
	if r.code != app.ExitUsage || !strings.Contains(r.stderr, `config.json: redact.disable: unknown pattern "gh" (the patterns are dotenv,`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
