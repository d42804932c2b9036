package mcp_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tools/mcp"
	"github.com/tackle-dev/tackle/tools/mcp/mcptest"
)

// protocols are the two ways the test server speaks: the SDK's newest
// protocol (requests to the client inside input_required results, the
// log level with each request) and the older one most servers speak
// (requests of their own, logging/setLevel), as the TypeScript SDK's
// reference servers do.
var protocols = []struct {
	name string
	env  map[string]string
}{
	{"newest", nil},
	{"2025-11-25", map[string]string{"MCPSERVER_PROTOCOL": "2025-11-25"}},
}

// A stdio server gets what every child of tackle gets (the allow list,
// no secrets) and its configured env; before, it got tackle's whole
// environment, OPENAI_API_KEY included.
func TestServerEnvironment(t *testing.T) {
	t.Parallel()
	f := start(t, map[string]mcp.Spec{"test": stdio(map[string]string{"CONFIGURED": "yes", "GITHUB_TOKEN": "${GITHUB_TOKEN}"})},
		[]string{"OPENAI_API_KEY=sk-test-key-123456", "MYSQL_PWD=hunter22", "GITHUB_TOKEN=ghp_secret123456", "HOME=/home/x", "LANG=C.UTF-8", "MY_TOOL_DIR=/opt/tool"},
		func(o *mcp.Options) { o.EnvAllow = []string{"MY_TOOL_*"} })
	f.waitState("test", mcp.Ready)
	res := f.call(context.Background(), "mcp__test__env", `{}`)
	names := strings.Fields(res.Content)
	for _, want := range []string{"PATH", "HOME", "LANG", "MY_TOOL_DIR", "CONFIGURED", "GITHUB_TOKEN"} {
		if !slices.Contains(names, want) {
			t.Errorf("the server's environment lacks %s: %v", want, names)
		}
	}
	for _, secret := range []string{"OPENAI_API_KEY", "MYSQL_PWD"} {
		if slices.Contains(names, secret) {
			t.Errorf("the server's environment has %s: %v", secret, names)
		}
	}
}

// roots/list answers the workspace, in either protocol.
func TestRoots(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			f := start(t, map[string]mcp.Spec{"test": stdio(p.env)}, nil)
			f.waitState("test", mcp.Ready)
			res := f.call(context.Background(), "mcp__test__roots", `{}`)
			want := (&url.URL{Scheme: "file", Path: f.dir}).String() + " " + filepath.Base(f.dir)
			if res.Status != chat.StatusOK || res.Content != want {
				t.Errorf("roots = %v %q, want %q", res.Status, res.Content, want)
			}
		})
	}
}

// A tool that says its tools changed before it answers has the new tool
// offered when its result comes back: before, the list was read again on
// a goroutine that raced the next model request (and lost by about a
// millisecond).
func TestListChangedBeforeTheAnswer(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			f := start(t, map[string]mcp.Spec{"test": stdio(p.env)}, nil)
			f.waitState("test", mcp.Ready)
			if res := f.call(context.Background(), "mcp__test__grow", `{}`); res.Content != "grown" {
				t.Fatalf("grow = %+v", res)
			}
			if !slices.ContainsFunc(f.reg.Specs(), func(s chat.ToolSpec) bool { return s.Name == "mcp__test__added" }) {
				t.Fatalf("the tool grow added is not offered when its result comes back: %v", mcpNames(f.reg))
			}
		})
	}
}

// The filesystem server gives a file's text both as text and as
// structured content {"content": text}, and an image both as an image and
// as base64 inside its structured content: the model reads each once,
// and never the base64.
func TestStructuredContentOnce(t *testing.T) {
	t.Parallel()
	f := start(t, map[string]mcp.Spec{"test": stdio(nil)}, nil)
	f.waitState("test", mcp.Ready)
	ctx := context.Background()
	file := "package main\n\nfunc main() {}\n"
	if res := f.call(ctx, "mcp__test__read_text", `{"text":"package main\n\nfunc main() {}\n"}`); res.Content != file {
		t.Errorf("read_text = %q, want the text once: %q", res.Content, file)
	}
	res := f.call(ctx, "mcp__test__read_media", `{"bytes":300000}`)
	if res.Content != "[image: image/png, 293.0 KiB]" {
		t.Errorf("read_media = %.300q", res.Content)
	}
	if imgs := res.Images(); len(imgs) != 1 || imgs[0].MIMEType != "image/png" || len(imgs[0].Data) != 300000 {
		t.Errorf("read_media's images: %d", len(imgs))
	}
}

// A tool that requires task-augmented calls is not offered, and /mcp
// says why.
func TestTaskRequiredToolLeftOut(t *testing.T) {
	t.Parallel()
	f := start(t, map[string]mcp.Spec{"test": stdio(nil)}, nil)
	st := f.waitState("test", mcp.Ready)
	if _, ok := f.reg.Lookup("mcp__test__long_task"); ok {
		t.Error("long_task is offered")
	}
	if len(st.LeftOut) != 1 || !strings.Contains(st.LeftOut[0], `long_task: it requires task-augmented calls (execution.taskSupport "required")`) {
		t.Errorf("left out: %q", st.LeftOut)
	}
}

// A call sends a progress token when the caller listens, and the
// server's notifications reach the caller before the call returns, over
// stdio and over streamable HTTP (where they come on the call's stream).
func TestProgress(t *testing.T) {
	t.Parallel()
	url := mcptest.StartHTTP(t, serverBin)
	f := start(t, map[string]mcp.Spec{"test": stdio(nil), "web": {URL: url}}, nil)
	f.waitState("test", mcp.Ready)
	f.waitState("web", mcp.Ready)
	for _, server := range []string{"test", "web"} {
		var mu sync.Mutex
		var got []tools.Progress
		ctx := tools.WithProgress(context.Background(), func(p tools.Progress) {
			mu.Lock()
			got = append(got, p)
			mu.Unlock()
		})
		if res := f.call(ctx, "mcp__"+server+"__progress", `{}`); res.Content != "progressed" {
			t.Fatalf("%s: progress = %+v", server, res)
		}
		mu.Lock()
		want := []tools.Progress{{Done: 1, Total: 2, Message: "halfway"}, {Done: 2, Total: 2, Message: "done"}}
		if !slices.Equal(got, want) {
			t.Errorf("%s: progress reported: %+v", server, got)
		}
		mu.Unlock()
	}
}

// The server's log messages (notifications/message) are kept in its
// log, in either protocol.
func TestLogMessages(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			f := start(t, map[string]mcp.Spec{"test": stdio(p.env)}, nil)
			f.waitState("test", mcp.Ready)
			f.call(context.Background(), "mcp__test__echo", `{"text":"logged"}`)
			f.set.Close() // the log is complete
			b, err := os.ReadFile(filepath.Join(f.logs, "test.log"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), "log info mcpserver: echo called with logged") {
				t.Errorf("the log lacks the server's message:\n%s", b)
			}
		})
	}
}

// The servers' instructions go under each one's name, bounded; a cut
// says so.
func TestInstructions(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Use the tools wisely. ", 200) // 4,399 bytes trimmed
	f := start(t, map[string]mcp.Spec{
		"short": stdio(map[string]string{"MCPSERVER_INSTRUCTIONS": "Call echo to say things."}),
		"long":  stdio(map[string]string{"MCPSERVER_INSTRUCTIONS": long}),
		"none":  stdio(nil),
	}, nil)
	if got := f.set.Instructions(); got != "" {
		t.Errorf("instructions before any server is ready: %q", got)
	}
	for _, name := range []string{"short", "long", "none"} {
		f.waitState(name, mcp.Ready)
	}
	got := f.set.Instructions()
	for _, want := range []string{
		"# Instructions of the MCP servers",
		"not the user's",
		"## short (tools mcp__short__*)\n\nCall echo to say things.\n",
		"## long (tools mcp__long__*)\n\nUse the tools wisely.",
		"[tackle cut the server's instructions here: 2351 more bytes left out]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("instructions lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "## none") || len(got) > 3*mcp.MaxInstructions {
		t.Errorf("instructions:\n%s", got)
	}
}

// Resources, resource templates and prompts are listed; a resource is
// read and a prompt got with its arguments.
func TestResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			f := start(t, map[string]mcp.Spec{"test": stdio(p.env)}, nil)
			st := f.waitState("test", mcp.Ready)
			var uris []string
			for _, r := range append(st.Resources, st.Templates...) {
				uris = append(uris, r.URI)
			}
			if !slices.Equal(uris, []string{"note://greeting", "note://logo", "note://{name}"}) || st.Resources[0].Title != "A greeting" || !st.Templates[0].Template {
				t.Errorf("resources %+v, templates %+v", st.Resources, st.Templates)
			}
			if len(st.Prompts) != 1 || st.Prompts[0].Command != "mcp__test__review" || len(st.Prompts[0].Arguments) != 2 || !st.Prompts[0].Arguments[0].Required {
				t.Errorf("prompts %+v", st.Prompts)
			}
			ctx := context.Background()
			for uri, want := range map[string]string{
				"note://greeting": "Hello from the resource.",
				"note://logo":     "[binary content note://logo: image/png, 100 bytes]",
				"note://todo":     "A note called todo.",
			} {
				r, err := f.set.ReadResource(ctx, "test", uri)
				if err != nil || r.Text != want || r.URI != uri {
					t.Errorf("ReadResource(%s) = %+v, %v; want %q", uri, r, err, want)
				}
			}
			if _, err := f.set.ReadResource(ctx, "nope", "note://greeting"); err == nil {
				t.Error("a resource of an unknown server")
			}
			text, err := f.set.GetPrompt(ctx, "test", "review", map[string]string{"file": "main.go", "focus": "errors"})
			if err != nil || text != "Review main.go carefully, looking at errors." {
				t.Errorf("GetPrompt = %q, %v", text, err)
			}
			if _, err := f.set.GetPrompt(ctx, "test", "nope", nil); err == nil || !strings.Contains(err.Error(), "did not give the prompt nope") {
				t.Errorf("an unknown prompt: %v", err)
			}
		})
	}
}

// A server asking tackle to sample its model or for the user's input is
// refused; the user is told once, and the model reads why the call did
// not finish.
func TestSamplingAndElicitationRefused(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var warned []string
			f := start(t, map[string]mcp.Spec{"test": stdio(p.env)}, nil, func(o *mcp.Options) {
				o.Warn = func(m string) { mu.Lock(); warned = append(warned, m); mu.Unlock() }
			})
			f.waitState("test", mcp.Ready)
			ctx := context.Background()
			for range 2 {
				res := f.call(ctx, "mcp__test__ask", `{"kind":"sampling"}`)
				if res.Status != chat.StatusError || !strings.Contains(res.Content, "sampling/createMessage") {
					t.Errorf("a call that asks for sampling = %+v", res)
				}
			}
			// The newest protocol's server asks; an older one's SDK sees
			// that tackle offers no elicitation and fails the call itself.
			res := f.call(ctx, "mcp__test__ask", `{"kind":"elicitation"}`)
			if res.Status != chat.StatusError || !strings.Contains(res.Content, "elicitation") {
				t.Errorf("a call that asks for elicitation = %+v", res)
			}
			mu.Lock()
			defer mu.Unlock()
			want := []string{"MCP server test asked to use tackle's model (sampling/createMessage): tackle refused; it does not let servers sample its model"}
			if p.env == nil {
				want = append(want, "MCP server test asked for the user's input (elicitation/create): tackle refused; it does not support elicitation")
			}
			if !slices.Equal(warned, want) {
				t.Errorf("warnings:\n%q\nwant\n%q", warned, want)
			}
		})
	}
}

// WaitStarted returns once every server's first start has ended, ready
// or failed; a server that hangs is waited for up to its startup
// timeout.
func TestWaitStarted(t *testing.T) {
	t.Parallel()
	hang := stdio(map[string]string{"MCPSERVER_DELAY": "10m"})
	hang.StartupTimeout = "1s"
	f := start(t, map[string]mcp.Spec{
		"test":   stdio(nil),
		"broken": stdio(map[string]string{"MCPSERVER_FAIL": "no"}),
		"hang":   hang,
		"off":    {Command: serverBin, Enabled: new(false)},
	}, nil)
	if err := f.set.WaitStarted(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, st := range f.set.Status() {
		want := map[string]mcp.State{"test": mcp.Ready, "broken": mcp.Failed, "hang": mcp.Failed, "off": mcp.Disabled}[st.Name]
		if st.State != want {
			t.Errorf("%s is %v, want %v", st.Name, st.State, want)
		}
	}
	if got := mcpNames(f.reg); len(got) != len(allTools) {
		t.Errorf("tools after WaitStarted: %v", got)
	}
}

// WaitStarted gives up when its context ends.
func TestWaitStartedCancelled(t *testing.T) {
	t.Parallel()
	release := mcptest.Fifo(t, "release")
	f := start(t, map[string]mcp.Spec{"test": {Command: "sh", Args: []string{"-c", `read x < "$1"; exec "$2"`, "sh", release, serverBin}}}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := f.set.WaitStarted(ctx); err == nil {
		t.Error("WaitStarted returned nil while the server was starting")
	}
	w, err := openWrite(release)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("go\n")
	w.Close()
}
