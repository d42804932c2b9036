package e2e

// The fetch tool through the built binary: a domain rule lets it run, the
// address rules hold in yolo mode (loopback, the metadata address, a
// redirect to it), what it returns is redacted, and hooks see it, under
// Claude Code's name too.

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/app"
)

// fetchArgs are fetch's arguments for url.
func fetchArgs(url string) string {
	b, _ := json.Marshal(map[string]string{"url": url})
	return string(b)
}

// pageServer serves an HTML page on 127.0.0.1 (whose text holds the
// runs' API key) and a redirect to the metadata address, counting hits.
func pageServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/doc", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Docs</title></head><body><h2>Install</h2><p>Run <code>make</code>, key sk-e2e-secret-key.</p></body></html>`)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s, &hits
}

func TestE2EFetchDomainRuleAndAddressRules(t *testing.T) {
	page, hits := pageServer(t)
	port := page.Listener.Addr().(*net.TCPAddr).Port
	local := fmt.Sprintf("http://localhost:%d", port)
	e := &e2e{
		t: t,
		srv: llmtest.NewServer(t, llmtest.NewScript(
			llmtest.ToolCalls(
				llmtest.Call("call_rule", "fetch", fetchArgs(local+"/doc")),
				llmtest.Call("call_loop", "fetch", fetchArgs(page.URL+"/doc")),
				llmtest.Call("call_meta", "fetch", fetchArgs("http://169.254.169.254/latest/meta-data/iam")),
				llmtest.Call("call_moved", "fetch", fetchArgs(local+"/moved")),
				llmtest.Call("call_user", "fetch", fetchArgs(fmt.Sprintf("http://localhost@127.0.0.1:%d/doc", port))),
			),
			llmtest.Text("Done."),
		)),
		workspace: t.TempDir(),
		home:      t.TempDir(),
	}
	// yolo: every call runs unasked, and the address rules hold all the
	// same; only the rule naming localhost opens its loopback address.
	r := e.run("--mode", "yolo", "--allow", "fetch(domain:localhost)", "-p", "read the docs")
	if r.code != app.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	got := e.toolResult(1, "call_rule")
	if !strings.Contains(got, "## Install\n\nRun `make`, key") || strings.Contains(got, "sk-e2e-secret-key") {
		t.Errorf("the page, as markdown and redacted: %q", got)
	}
	for id, want := range map[string]string{
		"call_loop":  "127.0.0.1 is a loopback address",
		"call_meta":  "169.254.169.254 is a link-local address",
		"call_moved": "169.254.169.254 is a link-local address",
		"call_user":  "user name or password",
	} {
		if got := e.toolResult(1, id); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("the page server was reached %d times, want 2 (the page and the redirect, through the rule)", n)
	}
}

func TestE2EFetchAsksAndHooksSeeIt(t *testing.T) {
	page, hits := pageServer(t)
	port := page.Listener.Addr().(*net.TCPAddr).Port
	hooks := t.TempDir()
	log := filepath.Join(hooks, "seen")
	script := filepath.Join(hooks, "webfetch.sh")
	// A Claude Code hook on WebFetch: it logs the URL and blocks one.
	mustWrite(t, script, "#!/usr/bin/env bash\nin=$(cat)\nurl=$(printf '%s' \"$in\" | jq -r '.tool_input.url')\n"+
		"printf '%s %s\\n' \"$(printf '%s' \"$in\" | jq -r .tool_name)\" \"$url\" >> "+log+"\n"+
		"case $url in *blocked*) echo 'no fetching that' >&2; exit 2;; esac\nexit 0\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	e := &e2e{
		t: t,
		srv: llmtest.NewServer(t, llmtest.NewScript(
			llmtest.ToolCalls(
				llmtest.Call("call_ask", "fetch", fetchArgs(fmt.Sprintf("http://localhost:%d/doc", port))),
				llmtest.Call("call_blocked", "fetch", fetchArgs("https://example.com/blocked")),
			),
			llmtest.Text("Done."),
		)),
		workspace: t.TempDir(),
		home:      t.TempDir(),
	}
	e.config(`{"claude_hooks": {"hooks": {"PreToolUse": [{"matcher": "WebFetch", "hooks": [{"type": "command", "command": "` + script + `"}]}]}}}`)
	// No rule: a piped run without --yes denies the fetch, which asks.
	r := e.run("-p", "read the docs")
	if r.code != app.ExitDenied {
		t.Errorf("exit %d, want %d (denied)", r.code, app.ExitDenied)
	}
	if got := e.toolResult(1, "call_ask"); !strings.Contains(got, "fetch wants to reach localhost") {
		t.Errorf("the denied call: %q", got)
	}
	if got := e.toolResult(1, "call_blocked"); !strings.Contains(got, "no fetching that") {
		t.Errorf("the call the hook blocked: %q", got)
	}
	seen := mustRead(t, log)
	if !strings.Contains(seen, fmt.Sprintf("WebFetch http://localhost:%d/doc\n", port)) || !strings.Contains(seen, "WebFetch https://example.com/blocked\n") {
		t.Errorf("the hook saw: %q", seen)
	}
	if hits.Load() != 0 {
		t.Error("the page was fetched")
	}
}
