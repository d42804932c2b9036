// Package e2e holds tackle's end-to-end tests: the built binary, run
// piped through os/exec and interactively in a real terminal (tmux),
// against agent/llmtest's scripted OpenAI-compatible server, with real
// tools, real hook processes and real MCP servers. This file is their
// harness: the binaries built once for all tests (TestMain), a run of
// tackle in a workspace and home of its own, and the terminal session.
package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/tools/chat"
)

// tackleBin is the binary built once for all end-to-end tests, and
// mcpServerBin the test MCP server (tools/mcp/testdata/mcpserver), built
// with it.
var tackleBin, mcpServerBin string

// module is tackle's module path: the programs the tests build are named
// by import path, which works from any directory of the module.
const module = "github.com/tackle-dev/tackle"

// testdataDir is the module's testdata folder: the scripted conversations,
// the recorded server streams, the Claude Code hook scripts.
const testdataDir = "../../testdata"

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tackle-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tackleBin, mcpServerBin = filepath.Join(dir, "tackle"), filepath.Join(dir, "mcpserver")
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), module, module+"/tools/mcp/testdata/mcpserver")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building tackle:", err)
		os.Exit(1)
	}
	// The sandbox's own Go build cache ($XDG_CACHE_HOME/tackle/sandbox/
	// go-build) is the test process's build cache for every run: each
	// test has a home of its own, and the turn-end checks' go vet in the
	// sandbox would compile the standard library again in each.
	sandboxCache = filepath.Join(dir, "cache")
	if c := goCache(); c != "" {
		if err := os.MkdirAll(filepath.Join(sandboxCache, "tackle", "sandbox"), 0o755); err == nil {
			os.Symlink(c, filepath.Join(sandboxCache, "tackle", "sandbox", "go-build"))
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sandboxCache is the XDG_CACHE_HOME of every run (see TestMain).
var sandboxCache string

// e2e is one run of the binary against a scripted server.
type e2e struct {
	t         *testing.T
	srv       *llmtest.Server
	workspace string
	home      string // XDG_CONFIG_HOME and HOME
	stdin     string
	env       []string // added to tackle's environment
	// bin is the binary to run, tackleBin when empty (a copy another
	// user can run); prepare, when set, changes the command before it
	// starts (another user's credentials); starter, when set, starts it
	// instead of exec.Cmd.Start (where namespaces are refused).
	bin     string
	prepare func(*exec.Cmd)
	starter func(*exec.Cmd) error
}

func newE2E(t *testing.T, script string) *e2e {
	t.Helper()
	return &e2e{
		t:         t,
		srv:       llmtest.NewServer(t, llmtest.LoadScript(t, filepath.Join(testdataDir, "e2e", script))),
		workspace: t.TempDir(),
		home:      t.TempDir(),
	}
}

// config writes the user config file.
func (e *e2e) config(body string) { e.writeConfig(e.t, body) }

// userTheme writes a user theme file called name (the dark theme with
// another accent).
func (e *e2e) userTheme(name string) {
	e.t.Helper()
	dir := filepath.Join(e.home, "tackle", "themes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	body := `{"extends": "dark", "palette": {"accent": "#5fafd7"}}`
	if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(body), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// writeConfig writes the user config file, failing tb.
func (e *e2e) writeConfig(tb testing.TB, body string) {
	tb.Helper()
	dir := filepath.Join(e.home, "tackle")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(body), 0o600); err != nil {
		tb.Fatal(err)
	}
}

func (e *e2e) command(args ...string) *exec.Cmd {
	bin := tackleBin
	if e.bin != "" {
		bin = e.bin
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = e.workspace
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + e.home,
		"XDG_CONFIG_HOME=" + e.home,
		"OPENAI_BASE_URL=" + e.srv.URL(),
		"OPENAI_API_KEY=sk-e2e-secret-key",
		"TACKLE_MODEL=e2e-model",
	}
	// tackle gets a fresh HOME; the test process's build cache keeps the
	// turn-end checks' go vet from compiling the standard library again,
	// outside the sandbox and in it (TestMain).
	if c := goCache(); c != "" {
		cmd.Env = append(cmd.Env, "GOCACHE="+c, "XDG_CACHE_HOME="+sandboxCache)
	}
	cmd.Env = append(cmd.Env, e.env...)
	if e.stdin != "" {
		cmd.Stdin = strings.NewReader(e.stdin)
	}
	if e.prepare != nil {
		e.prepare(cmd)
	}
	return cmd
}

// goCache is the test process's Go build cache.
var goCache = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

type result struct {
	code           int
	stdout, stderr string
}

// run runs the binary with args and waits for it to exit.
func (e *e2e) run(args ...string) result {
	e.t.Helper()
	return e.runEnv(nil, nil, args...)
}

func (e *e2e) requests() []llmtest.Request { return e.srv.Requests() }

// toolResult finds the tool message for callID in the n-th request.
func (e *e2e) toolResult(n int, callID string) string {
	e.t.Helper()
	reqs := e.requests()
	if len(reqs) <= n {
		e.t.Fatalf("server got %d requests, want more than %d", len(reqs), n)
	}
	for _, m := range reqs[n].Messages {
		if m.Role == chat.RoleTool && m.ToolCallID == callID {
			return m.Content
		}
	}
	e.t.Fatalf("request %d has no result for %s: %+v", n, callID, reqs[n].Messages)
	return ""
}

// runEnv runs the binary with extra environment variables
// ("-NAME" unsets NAME) and stdin, if not nil.
func (e *e2e) runEnv(env []string, stdin *os.File, args ...string) result {
	e.t.Helper()
	cmd := e.command(args...)
	for _, kv := range env {
		if name, ok := strings.CutPrefix(kv, "-"); ok {
			cmd.Env = slices.DeleteFunc(cmd.Env, func(s string) bool { return strings.HasPrefix(s, name+"=") })
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := cmd.Start
	if e.starter != nil {
		start = func() error { return e.starter(cmd) }
	}
	err := start()
	if err == nil {
		err = cmd.Wait()
	}
	var exitErr *exec.ExitError
	code := 0
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		e.t.Fatalf("running tackle: %v", err)
	}
	e.t.Logf("%s → exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(slices.Concat(env, []string{"tackle"}, args), " "), code, stdout.String(), stderr.String())
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

func (e *e2e) configPath() string { return filepath.Join(e.home, "tackle", "config.json") }

// runBounded runs tackle like e.run, but kills it when it has not exited
// after limit: a hang fails the test instead of stalling the suite. limit
// is a safety net, far above what the run needs, not a timed assertion.
func (e *e2e) runBounded(limit time.Duration, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.t.Context(), limit)
	defer cancel()
	cmd := e.command(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	stop := context.AfterFunc(ctx, func() { cmd.Process.Kill() })
	defer stop()
	err := cmd.Wait()
	if ctx.Err() != nil {
		e.t.Fatalf("tackle %s hung: killed after %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), limit, stdout.String(), stderr.String())
	}
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		e.t.Fatalf("running tackle: %v", err)
	}
	e.t.Logf("tackle %s → exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// Running tackle in a terminal: tmux.

// tmuxSession is tackle running in a detached tmux session on a private
// server socket.
type tmuxSession struct {
	t      *testing.T
	socket string
	name   string
	status string // the file the shell writes tackle's exit status to
}

// exitedMark is what the shell in the terminal prints after tackle exited:
// the history holds all of tackle's output once it shows the mark.
const exitedMark = "[tackle exited]"

// needTmux returns the tmux binary, or skips the test when tmux is missing
// outside CI (CI installs it: .ci/run).
func needTmux(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is required in CI (.ci/run installs it)")
		}
		t.Skip("tmux is not installed")
	}
	return path
}

// startTUI starts the binary with args in a 100×30 terminal.
func (e *e2e) startTUI(args ...string) *tmuxSession { return e.startTUISize(100, 30, args...) }

// startTUISize starts the binary with args in a terminal of w×h cells.
func (e *e2e) startTUISize(w, h int, args ...string) *tmuxSession {
	e.t.Helper()
	return e.startTUIAfter(w, h, 0, args...)
}

// startTUIAfter starts the binary with args in a terminal of w×h cells
// after n lines of the shell's output (1 to n), as in a terminal used
// before: the program starts on the screen's last row.
func (e *e2e) startTUIAfter(w, h, n int, args ...string) *tmuxSession {
	t := e.t
	t.Helper()
	needTmux(t)
	cmd := e.command(args...)
	var line []string
	if n > 0 {
		line = append(line, "seq", "1", strconv.Itoa(n), ";")
	}
	line = append(line, "env", "-i")
	for _, kv := range cmd.Env {
		line = append(line, shellQuote(kv))
	}
	line = append(line, "TERM=xterm-256color", shellQuote(cmd.Path))
	for _, a := range args {
		line = append(line, shellQuote(a))
	}

	dir := t.TempDir()
	status := filepath.Join(dir, "status")
	line = append(line, ";", "echo", "$?", ">", shellQuote(status), ";", "echo", exitedMark)
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g history-limit 5000\nset -g escape-time 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &tmuxSession{t: t, status: status, socket: fmt.Sprintf("tackle-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), name: "tackle"}
	s.tmux("-f", conf, "new-session", "-d", "-s", s.name, "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "-c", cmd.Dir, strings.Join(line, " "))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screen at the end:\n%s", s.capture(true))
		}
		_ = exec.Command("tmux", "-L", s.socket, "kill-server").Run()
	})
	return s
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// capture returns the visible screen, or with history everything the
// terminal holds, scrollback included.
func (s *tmuxSession) capture(history bool) string {
	args := []string{"-L", s.socket, "capture-pane", "-p", "-t", s.name}
	if history {
		args = append(args, "-S", "-")
	}
	out, _ := exec.Command("tmux", args...).Output()
	return string(out)
}

// resize makes the terminal w×h cells and waits until the program's
// terminal has that size, so that the program has been told (SIGWINCH).
// tmux reflows its screen at once but gives the program's terminal the
// new size some 200 ms later: until then the program draws for the old
// size, into the new screen.
func (s *tmuxSession) resize(w, h int) {
	s.t.Helper()
	s.tmux("resize-window", "-t", s.name, "-x", strconv.Itoa(w), "-y", strconv.Itoa(h))
	s.waitSize(w, h)
}

// waitSize waits until the program's terminal is w×h cells.
func (s *tmuxSession) waitSize(w, h int) {
	s.t.Helper()
	tty := strings.TrimSpace(s.tmux("display-message", "-p", "-t", s.name, "#{pane_tty}"))
	want := fmt.Sprintf("%d %d", h, w)
	deadline := time.Now().Add(20 * time.Second)
	var got string
	for time.Now().Before(deadline) {
		out, err := exec.Command("stty", "-F", tty, "size").Output()
		if err != nil {
			s.t.Fatalf("stty -F %s size: %v", tty, err)
		}
		if got = strings.TrimSpace(string(out)); got == want {
			return
		}
	}
	s.t.Fatalf("the program's terminal is %s (rows columns), want %s", got, want)
}

// captureJoined returns everything the terminal holds, scrollback
// included, with each line the terminal wrapped, or split when it
// reflowed the rows for a narrower width, joined again.
func (s *tmuxSession) captureJoined() string {
	out, _ := exec.Command("tmux", "-L", s.socket, "capture-pane", "-p", "-J", "-t", s.name, "-S", "-").Output()
	return string(out)
}

// typeText types literally; keys sends tmux key names (Enter, C-d, Escape).
func (s *tmuxSession) typeText(text string) { s.tmux("send-keys", "-t", s.name, "-l", text) }

func (s *tmuxSession) keys(keys ...string) {
	s.tmux(append([]string{"send-keys", "-t", s.name}, keys...)...)
}

// waitFor polls the screen until it contains text.
func (s *tmuxSession) waitFor(text string) string {
	s.t.Helper()
	return s.waitUntil("“"+text+"”", func(screen string) bool { return strings.Contains(screen, text) })
}

func (s *tmuxSession) waitUntil(what string, cond func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		screen = s.capture(false)
		if cond(screen) {
			return screen
		}
	}
	s.t.Fatalf("timed out waiting for %s; the screen is:\n%s", what, screen)
	return ""
}

// waitUntilHistory polls the whole history until cond holds.
func (s *tmuxSession) waitUntilHistory(what string, cond func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var hist string
	for time.Now().Before(deadline) {
		hist = s.capture(true)
		if cond(hist) {
			return hist
		}
	}
	s.t.Fatalf("timed out waiting for %s; the history is:\n%s", what, hist)
	return ""
}

// waitUntilHistoryJoined polls the whole history, its wrapped lines
// joined (captureJoined), until cond holds.
func (s *tmuxSession) waitUntilHistoryJoined(what string, cond func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var hist string
	for time.Now().Before(deadline) {
		hist = s.captureJoined()
		if cond(hist) {
			return hist
		}
	}
	s.t.Fatalf("timed out waiting for %s; the history, its wrapped lines joined, is:\n%s", what, hist)
	return ""
}

// waitExit waits for tackle to exit and returns its exit status, which
// the shell around it writes to a file (tmux may report a pane dead before
// it has collected the exit status).
func (s *tmuxSession) waitExit() int {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(s.status)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			var code int
			if _, err := fmt.Sscan(string(b), &code); err != nil {
				s.t.Fatalf("exit status file: %q", b)
			}
			return code
		}
	}
	s.t.Fatalf("tackle did not exit; the screen is:\n%s", s.capture(false))
	return -1
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Files.

func mustWrite(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
