package e2e

import (
	"bytes"
	"context"
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
	t.Cleanup(func() {
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
	if caps.LoadSession || caps.PromptCapabilities.Image || !caps.PromptCapabilities.EmbeddedContext || !caps.McpCapabilities.Http {
		t.Errorf("capabilities = %+v: want no session loading, no images, embedded context, MCP over HTTP", caps)
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
