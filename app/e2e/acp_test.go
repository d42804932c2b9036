package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/app"
	"github.com/tackle-dev/tackle/tools/chat"
)

// acpClient is an editor: the ACP SDK's client side, connected to
// `tackle acp` over its stdin and stdout. It records every session
// update and answers permission requests with permit.
type acpClient struct {
	t    *testing.T
	conn *sdk.ClientSideConnection
	// log gets the connection's diagnostics: a line of stdout that is not
	// the protocol shows there.
	log    *bytes.Buffer
	stderr *bytes.Buffer

	// close closes tackle's stdin, which ends the connection, and waits
	// for it to exit (once).
	close func()

	mu      sync.Mutex
	updates []sdk.SessionUpdate
	asked   []sdk.RequestPermissionRequest
	permit  func(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)
}

// startACP starts `tackle acp` in e's workspace and connects to it.
func (e *e2e) startACP(args ...string) *acpClient {
	t := e.t
	t.Helper()
	cmd := e.command(append([]string{"acp"}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &acpClient{t: t, log: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	cmd.Stderr = &lockedWriter{w: c.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.conn = sdk.NewClientSideConnection(c, stdin, stdout)
	c.conn.SetLogger(slog.New(slog.NewTextHandler(&lockedWriter{w: c.log}, &slog.HandlerOptions{Level: slog.LevelWarn})))
	c.close = sync.OnceFunc(func() {
		// Closing stdin ends the connection: tackle closes its sessions
		// and exits 0.
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("tackle acp ended with %v\nstderr:\n%s", err, c.stderr)
		}
		if s := c.logged(); strings.Contains(s, "failed to parse") {
			t.Errorf("tackle wrote something that is not the protocol on stdout:\n%s", s)
		}
	})
	t.Cleanup(c.close)
	return c
}

// lockedWriter is a writer several goroutines may write to.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (c *acpClient) logged() string {
	return c.log.String()
}

// session initializes the connection and opens a session in dir.
func (c *acpClient) session(dir string) (sdk.InitializeResponse, sdk.NewSessionResponse) {
	c.t.Helper()
	ctx := c.t.Context()
	init, err := c.conn.Initialize(ctx, sdk.InitializeRequest{
		ProtocolVersion:    sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}},
		ClientInfo:         &sdk.Implementation{Name: "e2e-editor", Version: "1"},
	})
	if err != nil {
		c.t.Fatalf("initialize: %v\nstderr:\n%s", err, c.stderr)
	}
	sess, err := c.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		c.t.Fatalf("session/new: %v\nstderr:\n%s", err, c.stderr)
	}
	return init, sess
}

// prompt sends blocks and returns the answer; the updates before it
// have all been received (the SDK delivers them before the answer).
func (c *acpClient) prompt(ctx context.Context, id sdk.SessionId, blocks ...sdk.ContentBlock) (sdk.PromptResponse, error) {
	return c.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: blocks})
}

func (c *acpClient) allUpdates() []sdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.updates)
}

func (c *acpClient) permissionRequests() []sdk.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.asked)
}

// SessionUpdate records an update.
func (c *acpClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n.Update)
	c.mu.Unlock()
	return nil
}

// RequestPermission records the request and answers it with permit.
func (c *acpClient) RequestPermission(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, req)
	permit := c.permit
	c.mu.Unlock()
	if permit == nil {
		c.t.Errorf("unexpected permission request for %s", req.ToolCall.ToolCallId)
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return permit(ctx, req)
}

var errNotOffered = errors.New("the e2e editor offers no file system or terminal")

// tackle works on disk itself: it must not ask the editor for files or
// terminals.
func (c *acpClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.t.Error("tackle asked the editor to read a file")
	return sdk.ReadTextFileResponse{}, errNotOffered
}

func (c *acpClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.t.Error("tackle asked the editor to write a file")
	return sdk.WriteTextFileResponse{}, errNotOffered
}

func (c *acpClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNotOffered
}

func (c *acpClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNotOffered
}

func (c *acpClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNotOffered
}

func (c *acpClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNotOffered
}

func (c *acpClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNotOffered
}

// choose answers a permission request with the option of kind.
func choose(req sdk.RequestPermissionRequest, kind sdk.PermissionOptionKind) (sdk.RequestPermissionResponse, error) {
	for _, o := range req.Options {
		if o.Kind == kind {
			return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(o.OptionId)}, nil
		}
	}
	return sdk.RequestPermissionResponse{}, errors.New("no option of kind " + string(kind))
}

// text joins the chunks of the agent's message or reasoning.
func chunks(updates []sdk.SessionUpdate, thought bool) string {
	var b strings.Builder
	for _, u := range updates {
		switch {
		case !thought && u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		case thought && u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil:
			b.WriteString(u.AgentThoughtChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// callStart is the tool_call update that announced id.
func callStart(t *testing.T, updates []sdk.SessionUpdate, id string) *sdk.SessionUpdateToolCall {
	t.Helper()
	for _, u := range updates {
		if u.ToolCall != nil && string(u.ToolCall.ToolCallId) == id {
			return u.ToolCall
		}
	}
	t.Fatalf("no tool_call for %s in %d updates", id, len(updates))
	return nil
}

// lastStatus is the status the editor was last told of call id.
func lastStatus(updates []sdk.SessionUpdate, id string) sdk.ToolCallStatus {
	var st sdk.ToolCallStatus
	for _, u := range updates {
		switch {
		case u.ToolCall != nil && string(u.ToolCall.ToolCallId) == id:
			st = u.ToolCall.Status
		case u.ToolCallUpdate != nil && string(u.ToolCallUpdate.ToolCallId) == id && u.ToolCallUpdate.Status != nil:
			st = *u.ToolCallUpdate.Status
		}
	}
	return st
}

// TestE2EACPSession: an editor drives tackle through a turn — initialize
// states the capabilities, session/new gives the modes, the prompt's
// resource link attaches a workspace file (a protected one is refused),
// reasoning and text stream as thought and message chunks, the plan
// comes as a plan update, each write is a tool call of kind edit with
// its location and diff, asked through session/request_permission: the
// first allowed (it runs), the second rejected (it does not, and the
// model reads that it was denied).
func TestE2EACPSession(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "acp_turn.json")
	if err := os.WriteFile(filepath.Join(e.workspace, "notes.md"), []byte("NOTES-CONTENT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.workspace, ".env"), []byte("TOKEN=hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := e.startACP()
	c.permit = func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		if req.ToolCall.ToolCallId == "call_a" {
			return choose(req, sdk.PermissionOptionKindAllowOnce)
		}
		return choose(req, sdk.PermissionOptionKindRejectOnce)
	}
	init, sess := c.session(e.workspace)
	if init.AgentInfo == nil || init.AgentInfo.Name != "tackle" {
		t.Errorf("agentInfo = %+v, want tackle", init.AgentInfo)
	}
	caps := init.AgentCapabilities
	if !caps.LoadSession || caps.SessionCapabilities.List == nil || !caps.PromptCapabilities.Image || !caps.PromptCapabilities.EmbeddedContext || !caps.McpCapabilities.Http {
		t.Errorf("capabilities = %+v: want session loading and listing, images, embedded context, MCP over HTTP", caps)
	}
	if sess.Modes == nil || sess.Modes.CurrentModeId != "default" || len(sess.Modes.AvailableModes) != 4 {
		t.Fatalf("modes = %+v, want the four approval modes, default current", sess.Modes)
	}

	resp, err := c.prompt(t.Context(), sess.SessionId,
		sdk.TextBlock("write the files, see "),
		sdk.ResourceLinkBlock("notes.md", "file://"+filepath.Join(e.workspace, "notes.md")),
		sdk.TextBlock(" and "),
		sdk.ResourceLinkBlock(".env", "file://"+filepath.Join(e.workspace, ".env")),
	)
	if err != nil {
		t.Fatalf("prompt: %v\nstderr:\n%s", err, c.stderr)
	}
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q, want end_turn", resp.StopReason)
	}

	reqs := e.requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	first := reqs[0].Messages[len(reqs[0].Messages)-1].Content
	if !strings.Contains(first, "write the files, see @notes.md and @") || !strings.Contains(first, "<file path=\"notes.md\">\nNOTES-CONTENT\n</file>") {
		t.Errorf("the prompt the model got does not attach notes.md:\n%s", first)
	}
	if strings.Contains(first, "hunter2") {
		t.Errorf("the protected .env reached the model:\n%s", first)
	}

	updates := c.allUpdates()
	if got := chunks(updates, false); !strings.Contains(got, ".env not attached") ||
		!strings.Contains(got, "Planning.Let me write the files.Wrote a.txt; b.txt was rejected.") {
		t.Errorf("message chunks = %q", got)
	}
	if got := chunks(updates, true); got != "The user wants two files." {
		t.Errorf("thought chunks = %q, want the reasoning", got)
	}
	var plan *sdk.SessionUpdatePlan
	for _, u := range updates {
		if u.Plan != nil {
			plan = u.Plan
		}
	}
	if plan == nil || len(plan.Entries) != 2 || plan.Entries[0].Content != "write a.txt" || plan.Entries[0].Status != sdk.PlanEntryStatusInProgress {
		t.Errorf("plan = %+v, want the todo list", plan)
	}

	a := callStart(t, updates, "call_a")
	wantPath := filepath.Join(realDir(t, e.workspace), "a.txt")
	if a.Kind != sdk.ToolKindEdit || a.Status != sdk.ToolCallStatusPending || len(a.Locations) != 1 || a.Locations[0].Path != wantPath {
		t.Errorf("call_a announced as %+v, want a pending edit at %s", a, wantPath)
	}
	if len(a.Content) != 1 || a.Content[0].Diff == nil || a.Content[0].Diff.Path != wantPath || a.Content[0].Diff.NewText != "alpha\n" || a.Content[0].Diff.OldText != nil {
		t.Errorf("call_a's content = %+v, want a diff creating a.txt", a.Content)
	}

	asked := c.permissionRequests()
	if len(asked) != 2 || asked[0].ToolCall.ToolCallId != "call_a" || asked[1].ToolCall.ToolCallId != "call_b" {
		t.Fatalf("permission requests = %+v, want call_a then call_b", asked)
	}
	var kinds []sdk.PermissionOptionKind
	for _, o := range asked[0].Options {
		kinds = append(kinds, o.Kind)
	}
	if !slices.Equal(kinds, []sdk.PermissionOptionKind{sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindAllowAlways, sdk.PermissionOptionKindRejectOnce}) {
		t.Errorf("options = %v, want allow once, allow always, reject", kinds)
	}
	if got := lastStatus(updates, "call_a"); got != sdk.ToolCallStatusCompleted {
		t.Errorf("call_a ended %q, want completed", got)
	}
	if got := lastStatus(updates, "call_b"); got != sdk.ToolCallStatusFailed {
		t.Errorf("call_b ended %q, want failed", got)
	}
	if b, err := os.ReadFile(filepath.Join(e.workspace, "a.txt")); err != nil || string(b) != "alpha\n" {
		t.Errorf("a.txt = %q, %v; want the approved write", b, err)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt was written though the editor rejected it (%v)", err)
	}
	if res := e.toolResult(2, "call_b"); !strings.Contains(res, "denied") {
		t.Errorf("the model read %q for the rejected call, want that it was denied", res)
	}
}

// realDir is dir with symbolic links resolved (the workspace tackle
// names).
func realDir(t *testing.T, dir string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestE2EACPCancel: session/cancel stops a turn — while the editor is
// asked about a call (the call is aborted, never runs, and the model
// later gets exactly one result for it) and while the model's reply is
// on its way (held by the server until the cancel) — each prompt
// answering cancelled, and the session goes on after both.
func TestE2EACPCancel(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "acp_cancel.json")
	c := e.startACP()
	askedCh := make(chan struct{}, 1)
	c.permit = func(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		askedCh <- struct{}{}
		// The editor answers a pending request "cancelled" once the turn
		// is cancelled (tackle withdraws the request first).
		<-ctx.Done()
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	_, sess := c.session(e.workspace)

	type answer struct {
		resp sdk.PromptResponse
		err  error
	}
	promptAsync := func(text string) chan answer {
		ch := make(chan answer, 1)
		go func() {
			r, err := c.prompt(t.Context(), sess.SessionId, sdk.TextBlock(text))
			ch <- answer{r, err}
		}()
		return ch
	}
	cancel := func() {
		t.Helper()
		if err := c.conn.Cancel(t.Context(), sdk.CancelNotification{SessionId: sess.SessionId}); err != nil {
			t.Fatal(err)
		}
	}

	// 1: cancelled while the editor is asked about the command.
	done := promptAsync("run it")
	select {
	case <-askedCh:
	case a := <-done:
		t.Fatalf("the prompt ended before asking: %+v %v\nstderr:\n%s", a.resp, a.err, c.stderr)
	}
	cancel()
	if a := <-done; a.err != nil || a.resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt = %+v, %v; want stop reason cancelled\nstderr:\n%s", a.resp, a.err, c.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "c.txt")); !os.IsNotExist(err) {
		t.Errorf("the command ran though the turn was cancelled while it was asked about (%v)", err)
	}
	if got := lastStatus(c.allUpdates(), "call_bash"); got != sdk.ToolCallStatusFailed {
		t.Errorf("the cancelled call ended %q, want failed", got)
	}

	// 2: cancelled while the model's reply is held.
	done = promptAsync("second")
	if err := e.srv.WaitRequests(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	cancel()
	if a := <-done; a.err != nil || a.resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt = %+v, %v; want stop reason cancelled\nstderr:\n%s", a.resp, a.err, c.stderr)
	}

	// 3: the session goes on; the model has had one result per call.
	a := <-promptAsync("third")
	if a.err != nil || a.resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v; want end_turn\nstderr:\n%s", a.resp, a.err, c.stderr)
	}
	reqs := e.requests()
	last := reqs[len(reqs)-1]
	n := 0
	for _, m := range last.Messages {
		if m.Role == chat.RoleTool && m.ToolCallID == "call_bash" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the model got %d results for call_bash, want exactly 1: %+v", n, last.Messages)
	}
	if !strings.Contains(chunks(c.allUpdates(), false), "Still here.") {
		t.Errorf("the third turn's answer did not stream: %q", chunks(c.allUpdates(), false))
	}
}

// TestE2EACPModes: session/set_mode switches the approval mode — in plan
// mode a write is skipped without asking the editor (what the policy
// denies is never asked), in accept-edits it runs without asking — and
// an unknown mode is refused.
func TestE2EACPModes(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "acp_modes.json")
	c := e.startACP()
	_, sess := c.session(e.workspace)
	setMode := func(m string) error {
		_, err := c.conn.SetSessionMode(t.Context(), sdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: sdk.SessionModeId(m)})
		return err
	}
	if err := setMode("plan"); err != nil {
		t.Fatal(err)
	}
	if r, err := c.prompt(t.Context(), sess.SessionId, sdk.TextBlock("write x")); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "x.txt")); !os.IsNotExist(err) {
		t.Errorf("x.txt was written in plan mode (%v)", err)
	}
	if got := lastStatus(c.allUpdates(), "call_plan_write"); got != sdk.ToolCallStatusFailed {
		t.Errorf("the write in plan mode ended %q, want failed (skipped)", got)
	}
	if err := setMode("bogus"); err == nil {
		t.Error("an unknown mode was accepted")
	}
	if err := setMode("accept-edits"); err != nil {
		t.Fatal(err)
	}
	if r, err := c.prompt(t.Context(), sess.SessionId, sdk.TextBlock("write y")); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v", r, err)
	}
	if b, err := os.ReadFile(filepath.Join(e.workspace, "y.txt")); err != nil || string(b) != "y\n" {
		t.Errorf("y.txt = %q, %v; want it written in accept-edits mode", b, err)
	}
	if n := len(c.permissionRequests()); n != 0 {
		t.Errorf("the editor was asked %d times, want never", n)
	}
}

// TestE2EACPAlwaysAndHiddenCharacters: "always allow" answers through
// the policy's session rules — a second write of the same file runs
// without asking — while a command that deletes is never offered
// "always", and what the editor is shown of a command a prompt-injected
// model wrote (a bidi override, an escape sequence) shows those
// characters as escapes, never raw.
func TestE2EACPAlwaysAndHiddenCharacters(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "acp_always.json")
	c := e.startACP()
	c.permit = func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		if req.ToolCall.ToolCallId == "call_n1" {
			return choose(req, sdk.PermissionOptionKindAllowAlways)
		}
		return choose(req, sdk.PermissionOptionKindRejectOnce)
	}
	_, sess := c.session(e.workspace)
	if r, err := c.prompt(t.Context(), sess.SessionId, sdk.TextBlock("write n")); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v\nstderr:\n%s", r, err, c.stderr)
	}
	asked := c.permissionRequests()
	if len(asked) != 2 || asked[0].ToolCall.ToolCallId != "call_n1" || asked[1].ToolCall.ToolCallId != "call_rm" {
		t.Fatalf("permission requests = %+v, want call_n1 and call_rm (call_n2 allowed by the session rule)", asked)
	}
	if !strings.Contains(asked[0].Options[1].Name, "write_file(n.txt)") {
		t.Errorf("the always option is %q, want it to name the rule write_file(n.txt)", asked[0].Options[1].Name)
	}
	for _, o := range asked[1].Options {
		if o.Kind == sdk.PermissionOptionKindAllowAlways {
			t.Errorf("a command that deletes was offered %q", o.Name)
		}
	}
	if b, err := os.ReadFile(filepath.Join(e.workspace, "n.txt")); err != nil || string(b) != "2\n" {
		t.Errorf("n.txt = %q, %v; want the second write run and the rm rejected", b, err)
	}
	rm := asked[1].ToolCall
	var shown strings.Builder
	shown.WriteString(*rm.Title)
	for _, cc := range rm.Content {
		if cc.Content != nil && cc.Content.Content.Text != nil {
			shown.WriteString("\n" + cc.Content.Content.Text.Text)
		}
	}
	if s := shown.String(); strings.ContainsAny(s, "\u202e\x1b") || !strings.Contains(s, `\u202e`) || !strings.Contains(s, `\u001b[2K`) {
		t.Errorf("the editor was shown the command as %q: want its hidden characters as escapes", s)
	}
}

// TestE2EACPEditorMCPServer: an MCP server the editor passes in
// session/new starts with the session, its tools are offered from the
// first request, and a call of one asks the editor (MCP tools ask unless
// a rule allows them) before it runs.
func TestE2EACPEditorMCPServer(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "acp_mcp.json")
	c := e.startACP()
	c.permit = func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return choose(req, sdk.PermissionOptionKindAllowOnce)
	}
	if _, err := c.conn.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	sess, err := c.conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: e.workspace, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "ed", Command: mcpServerBin, Args: []string{}, Env: []sdk.EnvVariable{}}},
	}})
	if err != nil {
		t.Fatalf("session/new: %v\nstderr:\n%s", err, c.stderr)
	}
	if r, err := c.prompt(t.Context(), sess.SessionId, sdk.TextBlock("echo")); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v\nstderr:\n%s", r, err, c.stderr)
	}
	if tools := e.requests()[0].Tools; !slices.Contains(tools, "mcp__ed__echo") {
		t.Errorf("the first request offers %v, want the editor's server's echo", tools)
	}
	if asked := c.permissionRequests(); len(asked) != 1 || asked[0].ToolCall.ToolCallId != "call_echo" {
		t.Errorf("permission requests = %+v, want the MCP call asked", asked)
	}
	if res := e.toolResult(1, "call_echo"); !strings.Contains(res, "echo: from-the-editor") {
		t.Errorf("the call's result is %q, want the server's echo", res)
	}
}

// TestE2EACPLoad: a session the editor opened and prompted is loaded
// again by another `tackle acp` by the id session/new gave, which is the
// id `tackle sessions` shows: the replayed updates are the conversation
// (the prompt as typed, the reasoning, the answers, the calls completed
// with their kind and locations, the plan), the next request carries the
// whole earlier conversation, and what --resume restores is restored —
// the "always" rule (the second write of a.txt is not asked) and the
// files the model read (notes.md may be edited without reading it
// again). While the first process holds the session, loading it is
// refused; so are a load with another cwd and an unknown id, each
// clearly; session/list lists the session, titled by its first prompt.
func TestE2EACPLoad(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "acp_load.json")
	mustWrite(t, filepath.Join(e.workspace, "notes.md"), "NOTES\n")
	c1 := e.startACP()
	c1.permit = func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return choose(req, sdk.PermissionOptionKindAllowAlways)
	}
	_, sess := c1.session(e.workspace)
	if r, err := c1.prompt(t.Context(), sess.SessionId, sdk.TextBlock("read notes and write a")); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v\nstderr:\n%s", r, err, c1.stderr)
	}
	if r := e.run("sessions"); !strings.Contains(r.stdout, string(sess.SessionId)) {
		t.Errorf("tackle sessions does not show the editor's session %s:\n%s", sess.SessionId, r.stdout)
	}

	c2 := e.startACP()
	if _, err := c2.conn.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	load := func(cwd string, id sdk.SessionId) (sdk.LoadSessionResponse, error) {
		return c2.conn.LoadSession(t.Context(), sdk.LoadSessionRequest{Cwd: cwd, SessionId: id, McpServers: []sdk.McpServer{}})
	}
	if _, err := load(e.workspace, sess.SessionId); err == nil || !strings.Contains(err.Error(), "open in another tackle process") {
		t.Errorf("loading a session another process holds: %v, want it refused as --resume refuses it", err)
	}
	c1.close()
	other := t.TempDir()
	if _, err := load(other, sess.SessionId); err == nil || !strings.Contains(err.Error(), "is of the workspace "+realDir(t, e.workspace)) {
		t.Errorf("loading with another cwd: %v, want it refused naming the session's workspace", err)
	}
	var re *sdk.RequestError
	if _, err := load(e.workspace, "20990101-000000-abcd"); !errors.As(err, &re) || re.Code != -32002 || !strings.Contains(err.Error(), "no session") {
		t.Errorf("loading an unknown id: %v, want resource not found (-32002)", err)
	}
	if _, err := load(e.workspace, sdk.SessionId("../../"+filepath.Base(e.workspace))); !errors.As(err, &re) || re.Code != -32002 {
		t.Errorf("loading an id that is a path: %v, want resource not found", err)
	}
	if len(c2.allUpdates()) != 0 {
		t.Errorf("the refused loads sent updates: %+v", c2.allUpdates())
	}

	list, err := c2.conn.ListSessions(t.Context(), sdk.ListSessionsRequest{Cwd: &e.workspace})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != sess.SessionId || list.Sessions[0].Title == nil ||
		*list.Sessions[0].Title != "read notes and write a" || list.Sessions[0].UpdatedAt == nil || list.Sessions[0].Cwd != realDir(t, e.workspace) {
		t.Errorf("session/list = %+v, want the session titled by its prompt", list.Sessions)
	}
	if list, err := c2.conn.ListSessions(t.Context(), sdk.ListSessionsRequest{Cwd: &other}); err != nil || len(list.Sessions) != 0 {
		t.Errorf("session/list of another directory = %+v, %v; want none", list, err)
	}

	loaded, err := load(e.workspace, sess.SessionId)
	if err != nil {
		t.Fatalf("session/load: %v\nstderr:\n%s", err, c2.stderr)
	}
	if loaded.Modes == nil || loaded.Modes.CurrentModeId != "default" {
		t.Errorf("modes = %+v", loaded.Modes)
	}
	replayed := c2.allUpdates()
	var user strings.Builder
	for _, u := range replayed {
		if u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil {
			user.WriteString(u.UserMessageChunk.Content.Text.Text)
		}
	}
	if user.String() != "read notes and write a" {
		t.Errorf("replayed user messages = %q, want the prompt as typed", user.String())
	}
	if got := chunks(replayed, true); got != "Look first." {
		t.Errorf("replayed thoughts = %q", got)
	}
	if got := chunks(replayed, false); got != "Reading.Read it and wrote a.txt." {
		t.Errorf("replayed answer = %q", got)
	}
	read := callStart(t, replayed, "call_read")
	if read.Kind != sdk.ToolKindRead || read.Status != sdk.ToolCallStatusCompleted || len(read.Locations) != 1 || read.Locations[0].Path != filepath.Join(realDir(t, e.workspace), "notes.md") {
		t.Errorf("replayed read = %+v, want a completed read of notes.md", read)
	}
	if w := callStart(t, replayed, "call_w1"); w.Kind != sdk.ToolKindEdit || w.Status != sdk.ToolCallStatusCompleted || !strings.Contains(w.Title, "a.txt") {
		t.Errorf("replayed write = %+v, want a completed edit of a.txt", w)
	}
	var plan *sdk.SessionUpdatePlan
	for _, u := range replayed {
		if u.Plan != nil {
			plan = u.Plan
		}
	}
	if plan == nil || len(plan.Entries) != 2 || plan.Entries[1].Content != "edit notes.md" {
		t.Errorf("replayed plan = %+v", plan)
	}

	c2.permit = func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return choose(req, sdk.PermissionOptionKindAllowOnce)
	}
	if r, err := c2.prompt(t.Context(), sess.SessionId, sdk.TextBlock("again")); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after load = %+v, %v\nstderr:\n%s", r, err, c2.stderr)
	}
	reqs := e.requests()
	if len(reqs) != 4 {
		t.Fatalf("the model got %d requests, want 4", len(reqs))
	}
	before := append(slices.Clone(reqs[1].Messages), chat.Message{Role: chat.RoleAssistant, Content: "Read it and wrote a.txt."})
	third := reqs[2].Messages
	if len(third) != len(before)+1 || third[len(third)-1].Role != chat.RoleUser || !strings.HasSuffix(third[len(third)-1].Content, "again") {
		t.Fatalf("the request after the load has %d messages, want the %d before and the prompt:\n%+v", len(third), len(before), third)
	}
	for i, m := range before {
		if got := third[i]; got.Role != m.Role || got.Content != m.Content || got.ToolCallID != m.ToolCallID || len(got.ToolCalls) != len(m.ToolCalls) {
			t.Errorf("message %d after the load = %+v, want %+v", i, got, m)
		}
	}
	if !bytes.Contains(reqs[2].Raw, []byte("read notes and write a")) || !bytes.Contains(reqs[2].Raw, []byte("call_w1")) {
		t.Errorf("the request body after the load lacks the earlier conversation:\n%s", reqs[2].Raw)
	}
	if asked := c2.permissionRequests(); len(asked) != 1 || asked[0].ToolCall.ToolCallId != "call_edit" {
		t.Errorf("asked after the load: %+v, want only call_edit (the write of a.txt allowed always before)", asked)
	}
	if b, err := os.ReadFile(filepath.Join(e.workspace, "a.txt")); err != nil || string(b) != "second\n" {
		t.Errorf("a.txt = %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(e.workspace, "notes.md")); err != nil || string(b) != "EDITED\n" {
		t.Errorf("notes.md = %q, %v; want it edited (its reading restored). The model read: %s", b, err, e.toolResult(3, "call_edit"))
	}
}

// TestE2EACPUnpromptedSessionLeavesNoFile: a session the editor opened
// and never prompted is not saved: `tackle sessions` and -c do not see
// it.
func TestE2EACPUnpromptedSessionLeavesNoFile(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "acp_modes.json")
	c := e.startACP()
	_, sess := c.session(e.workspace)
	if sess.SessionId == "" {
		t.Fatal("no session id")
	}
	// A mode switch is no prompt either.
	if _, err := c.conn.SetSessionMode(t.Context(), sdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	c.close()
	if r := e.run("sessions"); !strings.Contains(r.stdout, "No sessions in ") {
		t.Errorf("tackle sessions after an unprompted editor session:\n%s", r.stdout)
	}
	if r := e.run("-c", "-p", "x"); r.code != app.ExitUsage || !strings.Contains(r.stderr, "no session to continue") {
		t.Errorf("-c after an unprompted editor session: exit %d, stderr %q", r.code, r.stderr)
	}
	if n := len(e.requests()); n != 0 {
		t.Errorf("the model got %d requests", n)
	}
}

// TestE2EACPLoadPaused: a session saved paused (a piped run's calls
// waiting for an answer) loads with those calls shown pending; the next
// prompt puts them to the editor first — the allowed one runs, the
// rejected one does not — the paused run ends, and then the prompt is
// sent.
func TestE2EACPLoadPaused(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "acp_load_paused.json")
	saved := e.savePause()
	c := e.startACP()
	c.permit = func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		if req.ToolCall.ToolCallId == "call_a" {
			return choose(req, sdk.PermissionOptionKindAllowOnce)
		}
		return choose(req, sdk.PermissionOptionKindRejectOnce)
	}
	if _, err := c.conn.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	id := sdk.SessionId(saved.SessionID)
	if _, err := c.conn.LoadSession(t.Context(), sdk.LoadSessionRequest{Cwd: e.workspace, SessionId: id, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v\nstderr:\n%s", err, c.stderr)
	}
	replayed := c.allUpdates()
	for _, call := range []string{"call_a", "call_b"} {
		if st := callStart(t, replayed, call); st.Status != sdk.ToolCallStatusPending || st.Kind != sdk.ToolKindExecute {
			t.Errorf("replayed %s = %+v, want a pending command", call, st)
		}
	}
	if n := len(c.permissionRequests()); n != 0 {
		t.Errorf("the load asked %d times: the pause is asked at the next prompt", n)
	}
	if r, err := c.prompt(t.Context(), id, sdk.TextBlock("go on")); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v\nstderr:\n%s", r, err, c.stderr)
	}
	if asked := c.permissionRequests(); len(asked) != 2 || asked[0].ToolCall.ToolCallId != "call_a" || asked[1].ToolCall.ToolCallId != "call_b" {
		t.Fatalf("asked %+v, want call_a then call_b", asked)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "a.txt")); err != nil {
		t.Errorf("the allowed call did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("the rejected call ran (%v)", err)
	}
	reqs := e.requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3 (the pause, its end, the prompt)", len(reqs))
	}
	if res := e.toolResult(1, "call_b"); !strings.Contains(res, "denied") {
		t.Errorf("the model read %q for the rejected call", res)
	}
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if last.Role != chat.RoleUser || !strings.HasSuffix(last.Content, "go on") {
		t.Errorf("the last request ends with %+v, want the prompt", last)
	}
	if got := chunks(c.allUpdates(), false); !strings.HasSuffix(got, "Done.Went on.") {
		t.Errorf("answer chunks = %q", got)
	}
}

// TestE2EACPLoadNotes: a loaded session shows the user's prompts without
// the notes tackle put before them, and the notes that waited for the
// next prompt when it stopped go out with the editor's next prompt, as
// with --resume; session/list without a cwd lists every workspace's
// sessions.
func TestE2EACPLoadNotes(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "acp_load_notes.json")
	store := session.Open(filepath.Join(e.home, ".local", "state", "tackle", "sessions"))
	w, err := store.Create(session.Header{Workspace: realDir(t, e.workspace), Model: "e2e-model"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []session.Record{
		{Kind: session.KindMessage, Message: &chat.Message{Role: chat.RoleSystem, Content: "You are tackle."}},
		{Kind: session.KindMessage, Prompt: true, Message: &chat.Message{Role: chat.RoleUser, Content: "[Note from tackle: a.go was restored]\n\nfix it"}},
		{Kind: session.KindMessage, Message: &chat.Message{Role: chat.RoleAssistant, Content: "Fixed."}},
		{Kind: session.KindOutcome, Outcome: &session.Outcome{Status: "finished"}},
		{Kind: session.KindNote, Note: "b.go was restored"},
	} {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	id := sdk.SessionId(w.ID())
	w.Close()

	c := e.startACP()
	if _, err := c.conn.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	list, err := c.conn.ListSessions(t.Context(), sdk.ListSessionsRequest{})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != id || list.Sessions[0].Title == nil || *list.Sessions[0].Title != "fix it" {
		t.Errorf("session/list without cwd = %+v, %v; want the session titled without the note", list, err)
	}
	if _, err := c.conn.LoadSession(t.Context(), sdk.LoadSessionRequest{Cwd: e.workspace, SessionId: id, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v\nstderr:\n%s", err, c.stderr)
	}
	var user []string
	for _, u := range c.allUpdates() {
		if u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil {
			user = append(user, u.UserMessageChunk.Content.Text.Text)
		}
	}
	if !slices.Equal(user, []string{"fix it"}) {
		t.Errorf("replayed user messages = %q, want the prompt without tackle's note", user)
	}
	if r, err := c.prompt(t.Context(), id, sdk.TextBlock("next")); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v\nstderr:\n%s", r, err, c.stderr)
	}
	msgs := e.requests()[0].Messages
	last := msgs[len(msgs)-1].Content
	if !strings.HasPrefix(last, "[Note from tackle: b.go was restored]") || !strings.HasSuffix(last, "next") || len(msgs) != 4 {
		t.Errorf("the prompt after the load went out as %q in %d messages, want the waiting note before it after the 3 saved", last, len(msgs))
	}
}

// TestE2EACPImage: an image the editor sends with a prompt reaches the
// model as an image_url part; the session keeps it by reference (a file
// in tackle's state named by its digest), not its bytes, and a load sends
// it again; what is no image (whatever type the editor names) is left out
// and the user told.
func TestE2EACPImage(t *testing.T) {
	t.Parallel()
	e := &e2e{t: t, srv: llmtest.NewServer(t, llmtest.NewScript(llmtest.Text("A red square."), llmtest.Text("Still red."))), workspace: t.TempDir(), home: t.TempDir()}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRred square")
	b64 := base64.StdEncoding.EncodeToString(png)
	c := e.startACP()
	_, sess := c.session(e.workspace)
	resp, err := c.prompt(t.Context(), sess.SessionId,
		sdk.TextBlock("what is this?"),
		sdk.ImageBlock(b64, "image/png"),
		sdk.ImageBlock(base64.StdEncoding.EncodeToString([]byte("#!/bin/sh\nrm -rf ~\n")), "image/png"),
	)
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v\nstderr:\n%s", resp, err, c.stderr)
	}
	raw := string(e.requests()[0].Raw)
	if strings.Count(raw, `"type":"image_url"`) != 1 || !strings.Contains(raw, `{"text":"what is this?","type":"text"},{"image_url":{"url":"data:image/png;base64,`+b64+`"},"type":"image_url"}`) {
		t.Errorf("the request: %s", raw[max(0, strings.Index(raw, `"role":"user"`)-2000):])
	}
	if got := chunks(c.allUpdates(), false); !strings.Contains(got, "an image was not attached: not a PNG, JPEG, GIF or WebP image") {
		t.Errorf("the editor was not told of the script sent as an image: %q", got)
	}
	kept, _ := filepath.Glob(filepath.Join(e.home, ".local", "state", "tackle", "images", "*.png"))
	if len(kept) != 1 {
		t.Fatalf("images kept: %v", kept)
	}
	if b, err := os.ReadFile(kept[0]); err != nil || !bytes.Equal(b, png) {
		t.Errorf("the kept image: %q, %v", b, err)
	}
	files := e.sessionFiles()
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	if rec := mustRead(t, files[0]); strings.Contains(rec, b64[:16]) || !strings.Contains(rec, `"path":"`+kept[0]+`"`) {
		t.Errorf("the session keeps the image's bytes or no reference:\n%s", rec)
	}
	c.close()

	// Loaded by another process: the image goes with the old prompt.
	c = e.startACP()
	if _, err := c.conn.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.conn.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: e.workspace, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v\nstderr:\n%s", err, c.stderr)
	}
	if _, err := c.prompt(t.Context(), sess.SessionId, sdk.TextBlock("and now?")); err != nil {
		t.Fatalf("prompt after load: %v", err)
	}
	if raw := string(e.requests()[1].Raw); !strings.Contains(raw, b64) {
		t.Errorf("the loaded session's request lacks the image: %.800s", raw)
	}
}
