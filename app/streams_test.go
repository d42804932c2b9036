package app

// run in-process with an injected environment: nothing may read the test
// process's own.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/tools/chat"
)

// Variables that only the injected environment has.
const (
	injectedMarker = "LC_TACKLE_INJECTED_MARKER"
	injectedSecret = "INJECTED_ONLY_DEPLOY_TOKEN"
	secretValue    = "s3cret-only-in-the-injected-env"
)

// Variables that only the test process has.
const (
	processMarker = "LC_TACKLE_PROCESS_MARKER"
	processSecret = "PROCESS_ONLY_DEPLOY_TOKEN"
	processValue  = "s3cret-only-in-the-test-process"
)

// injectedRun runs tackle in-process against srv with env as its whole
// environment (PATH added).
func injectedRun(t *testing.T, srv *llmtest.Server, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	for _, name := range []string{injectedMarker, injectedSecret} {
		if _, ok := os.LookupEnv(name); ok {
			t.Fatalf("the test process has %s set; the test needs it only in the injected environment", name)
		}
	}
	home := t.TempDir()
	env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + home,
		"OPENAI_BASE_URL=" + srv.URL(),
		"OPENAI_API_KEY=sk-injected-api-key",
	}, env...)
	var out, errOut bytes.Buffer
	code = Main(args, Streams{Out: &out, Err: &errOut, Env: environ(env)})
	t.Logf("tackle %s → exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out.String(), errOut.String())
	return code, out.String(), errOut.String()
}

// TestRunUsesTheInjectedEnvironment: the model name (a kong env lookup),
// the secret values redacted from tool results and bash's environment
// all come from the injected environment, which the test process lacks,
// and nothing comes from the test process's own.
func TestRunUsesTheInjectedEnvironment(t *testing.T) {
	t.Setenv("TACKLE_MAX_REQUESTS", "0") // an error, if it were read
	t.Setenv("TACKLE_MODEL", "process-model")
	t.Setenv(processMarker, "leaked")
	t.Setenv(processSecret, processValue)
	srv := llmtest.NewServer(t, llmtest.NewScript(
		llmtest.ToolCalls(
			llmtest.Call("call_read", "read_file", `{"path": "notes.txt"}`),
			llmtest.Call("call_bash", "bash", `{"command": "printf '%s|%s|%s' \"$`+injectedMarker+`\" \"${`+injectedSecret+`-unset}\" \"${`+processMarker+`-unset}\""}`),
		),
		llmtest.Text("done"),
	))
	ws := t.TempDir()
	notes := "deploy with " + secretValue + "\nor with " + processValue + "\n"
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte(notes), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, _ := injectedRun(t, srv, []string{
		"TACKLE_MODEL=injected-model",
		injectedMarker + "=marker-value",
		injectedSecret + "=" + secretValue,
	}, "-w", ws, "--yes", "-p", "look")
	if code != ExitOK {
		t.Fatalf("exit %d, want %d", code, ExitOK)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if reqs[0].Model != "injected-model" {
		t.Errorf("model %q, want TACKLE_MODEL of the injected environment", reqs[0].Model)
	}
	results := map[string]string{}
	for _, m := range reqs[1].Messages {
		if m.Role == chat.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	// The process's secret is not tackle's: only the injected one is
	// redacted.
	if read := results["call_read"]; strings.Contains(read, secretValue) || !strings.Contains(read, "deploy with [REDACTED]") || !strings.Contains(read, "or with "+processValue) {
		t.Errorf("read_file result %q: want the injected secret redacted, and only it", read)
	}
	if bash := results["call_bash"]; !strings.Contains(bash, "marker-value|unset|unset") {
		t.Errorf("bash result %q: want the injected variable, not the injected secret, nothing of the process", bash)
	}
}

// TestSettingsErrorsNameInjectedVariables: a bad value in the injected
// environment is read (by kong) and named as the source of the error.
func TestSettingsErrorsNameInjectedVariables(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"TACKLE_MAX_REQUESTS=0", "tackle: TACKLE_MAX_REQUESTS: got 0; want 1 or more"},
		{"TACKLE_MODE=fast", `tackle: TACKLE_MODE: got "fast"; want default, accept-edits, yolo or plan`},
		{"TACKLE_MAX_RETRIES=x", `tackle: --max-retries: expected a valid 64 bit int but got "x" (from envar TACKLE_MAX_RETRIES="x")`},
	} {
		t.Run(tc.env, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.NewScript(llmtest.Text("hi")))
			code, _, stderr := injectedRun(t, srv, []string{tc.env}, "-p", "hi")
			if code != ExitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, ExitUsage, tc.want)
			}
		})
	}
}

// TestEnviron: the last assignment of a name wins, as for a child
// process; an empty value is set; first picks by the order of the names.
func TestEnviron(t *testing.T) {
	env := environ{"A=1", "B=", "A=2", "C=x=y", "junk"}
	for _, tc := range []struct {
		key, want string
		set       bool
	}{{"A", "2", true}, {"B", "", true}, {"C", "x=y", true}, {"D", "", false}, {"junk", "", false}} {
		if v, ok := env.lookup(tc.key); v != tc.want || ok != tc.set {
			t.Errorf("lookup(%q) = %q, %v; want %q, %v", tc.key, v, ok, tc.want, tc.set)
		}
	}
	if name, v, ok := env.first([]string{"D", "B", "A"}); name != "B" || v != "" || !ok {
		t.Errorf("first(D, B, A) = %q, %q, %v; want B, \"\", true", name, v, ok)
	}
}
