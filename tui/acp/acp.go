// Package acp is the editors' front end: tackle as the agent of an
// editor (Zed, JetBrains IDEs, Neovim's CodeCompanion and avante, Emacs)
// over the Agent Client Protocol, JSON-RPC on stdio. The editor opens
// sessions, sends prompts and sees the turn as session updates (the
// answer and the reasoning streamed, tool calls with their kind,
// locations and diffs, the plan); a call the approval policy asks about
// is put to the editor (session/request_permission) and its answer goes
// back to the Worker as the UI's dialog's would. What the application
// wires for a session (workspace, policy, hooks, sandbox, Worker) comes
// from an Opener.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tackle-dev/tackle/agent"
	saved "github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tools/mcp"
)

// Worker is the part of agent.Worker a session drives.
type Worker interface {
	Run(ctx context.Context, input string, images ...chat.Image) (agent.Outcome, error)
	Resume(ctx context.Context, decisions []agent.Decision) (agent.Outcome, error)
	AskChildrenWith(agent.ChildAsker)
}

// Toolbox is what the front end asks the tools about a call (the
// tools.Registry).
type Toolbox interface {
	Inspect(call chat.ToolCall) (tools.CallInfo, error)
	Summary(call chat.ToolCall) string
	Preview(call chat.ToolCall) tools.Preview
}

// Policy is the part of the approval policy a session shows and changes.
type Policy interface {
	Mode() approval.Mode
	SetMode(approval.Mode)
	// AlwaysRules are the session rules approving a call "always" adds.
	AlwaysRules(call chat.ToolCall) []approval.Rule
}

// Session is a conversation the application opened for the editor.
type Session struct {
	// ID is the session's id in the editor's requests.
	ID string
	// Root is the workspace, an absolute path: the locations and diffs
	// of tool calls name files under it.
	Root   string
	Worker Worker
	Tools  Toolbox
	Policy Policy
	// Attach reads a file the prompt mentions (a resource link or an
	// embedded resource naming a file): inside the workspace, as the
	// UI's @path, refusing what the UI refuses.
	Attach func(path string) (tools.Mention, error)
	// SaveImage keeps an image of a prompt (its bytes, as the editor
	// sends them) where the session can refer to it, and returns it as
	// an attached image (tools.SaveImage); nil: images are refused.
	SaveImage func(data []byte) (chat.Image, error)
	// Ready, if set, waits for what the first request needs (the MCP
	// servers starting, each at most its startup timeout), so that it
	// offers their tools; it returns at once once they started.
	Ready func(ctx context.Context)
	// Close ends the session: its file is complete, its servers stop.
	Close func() error

	// History is the conversation of a session loaded again (Open.Load),
	// as its file records it: replayed to the editor before session/load
	// answers.
	History []saved.Record
	// Paused is the paused run a loaded session stopped in (calls that
	// wait for an answer, or a pause at turn end), restored in Worker: the
	// next prompt asks the editor about it first.
	Paused *agent.Outcome
}

// Open is what the editor asks a session to be opened with.
type Open struct {
	// Dir is the session's working directory, absolute (the editor's
	// project): the workspace.
	Dir string
	// MCPServers are the MCP servers the editor passes, by name.
	MCPServers map[string]mcp.Spec
	// Emit receives the session's events (the Worker's, and the warnings
	// of its harness), from any goroutine.
	Emit func(agent.Event)
	// Load is the id of the saved session to go on with (session/load),
	// "" for a new one. Its workspace must be Dir.
	Load string
}

// Opener opens a session for the editor. A session to load that does not
// exist is an error wrapping ErrNoSession; one that cannot be loaded as
// asked (another workspace's) wraps ErrRefused.
type Opener func(ctx context.Context, o Open) (*Session, error)

// The errors of an Opener that the editor is answered with as such.
var (
	ErrNoSession = errors.New("no such session")
	ErrRefused   = errors.New("the session cannot be loaded so")
)

// Lister lists the saved sessions of a workspace (every workspace's when
// dir is ""), the one used last first.
type Lister func(dir string) ([]saved.Info, error)

// Backend is what the application gives the front end.
type Backend struct {
	Open Opener
	List Lister
}

// Info names the agent to the editor.
type Info struct{ Name, Version string }

// Serve speaks ACP on in and out until the editor closes the connection
// or ctx ends; log gets what tackle reports besides the protocol (out
// carries nothing else). Every session is closed before it returns.
func Serve(ctx context.Context, in io.Reader, out io.Writer, log io.Writer, info Info, b Backend) error {
	a := &agentSide{open: b.Open, list: b.List, info: info, log: log, sessions: map[string]*session{}, ctx: ctx}
	conn := sdk.NewAgentSideConnection(a, out, in)
	conn.SetLogger(slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelWarn})))
	a.conn = conn
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	return a.closeAll()
}

// agentSide is tackle's side of the connection: sdk.Agent.
type agentSide struct {
	conn *sdk.AgentSideConnection
	open Opener
	list Lister
	info Info
	log  io.Writer
	// ctx is the connection's: sessions live as long as it.
	ctx context.Context

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool
}

var (
	_ sdk.Agent       = (*agentSide)(nil)
	_ sdk.AgentLoader = (*agentSide)(nil)
)

// logf writes a line for the editor's log of the agent (stderr).
func (a *agentSide) logf(format string, args ...any) {
	fmt.Fprintf(a.log, "tackle: "+format+"\n", args...)
}

// closeAll closes every session, once no request can open another.
func (a *agentSide) closeAll() error {
	a.mu.Lock()
	a.closed = true
	all := a.sessions
	a.sessions = nil
	a.mu.Unlock()
	var errs []error
	for _, s := range all {
		errs = append(errs, s.close())
	}
	return errors.Join(errs...)
}

// The modes an editor may pick: tackle's approval modes, yolo included
// (it is the user's editor, as it is the user's command line).
var modes = []struct {
	mode approval.Mode
	name string
	desc string
}{
	{approval.Default, "Default", "Reads run; edits and shell commands ask."},
	{approval.AcceptEdits, "Accept edits", "Reads and edits run; shell commands ask."},
	{approval.Plan, "Plan", "Read-only: edits and shell commands are skipped."},
	{approval.Yolo, "Yolo", "Everything runs without asking, in the sandbox; protected paths still ask."},
}

func modeState(current approval.Mode) *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(current)}
	for _, m := range modes {
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(m.mode), Name: m.name, Description: sdk.Ptr(m.desc)})
	}
	return st
}

// Initialize states what tackle does: text and embedded context in
// prompts (no images, no audio), MCP servers over stdio, HTTP and SSE,
// sessions loaded again (session/load) and listed (session/list), no
// authentication (the model's key comes from tackle's environment).
func (a *agentSide) Initialize(context.Context, sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	return sdk.InitializeResponse{
		// The one version tackle speaks: the client's when it asks for
		// it, else the latest tackle supports, as the protocol says.
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			PromptCapabilities:  sdk.PromptCapabilities{EmbeddedContext: true, Image: true},
			McpCapabilities:     sdk.McpCapabilities{Http: true, Sse: true},
			LoadSession:         true,
			SessionCapabilities: sdk.SessionCapabilities{List: &sdk.SessionListCapabilities{}},
		},
		AgentInfo:   &sdk.Implementation{Name: a.info.Name, Version: a.info.Version},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate: tackle asks for none.
func (a *agentSide) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// NewSession opens a session in the editor's working directory. Its id
// is the tackle session's (`tackle --resume ID`); its file is created with
// its first prompt.
func (a *agentSide) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	s, err := a.openSession(Open{Dir: p.Cwd}, p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(s.ID), Modes: modeState(s.Policy.Mode())}, nil
}

// openSession opens the session o asks for, with the editor's MCP
// servers, and keeps it for the editor's requests.
func (a *agentSide) openSession(o Open, mcpServers []sdk.McpServer) (*session, error) {
	servers, err := mcpSpecs(mcpServers)
	if err != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s := &session{a: a, calls: map[string]*callView{}}
	o.MCPServers, o.Emit = servers, s.event
	opened, err := a.open(a.ctx, o)
	if err != nil {
		return nil, openError(o, err)
	}
	s.Session = opened
	opened.Worker.AskChildrenWith(s.askChild)
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		s.close()
		return nil, errors.New("the connection is closing")
	}
	a.sessions[s.ID] = s
	a.mu.Unlock()
	return s, nil
}

// resourceNotFound is ACP's error code for a resource (a session) that
// does not exist.
const resourceNotFound = -32002

// openError is the editor's answer to a session that could not be
// opened: resource-not-found for a session that does not exist, invalid
// params for one that cannot be loaded as asked, else an internal error;
// each with tackle's message.
func openError(o Open, err error) error {
	data := map[string]any{"error": err.Error()}
	switch {
	case errors.Is(err, ErrNoSession):
		data["sessionId"] = o.Load
		return &sdk.RequestError{Code: resourceNotFound, Message: "Resource not found", Data: data}
	case errors.Is(err, ErrRefused):
		return sdk.NewInvalidParams(data)
	}
	return sdk.NewInternalError(data)
}

// session returns the open session id names.
func (a *agentSide) session(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[string(id)]
	if !ok {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no session %q", id)})
	}
	return s, nil
}

// Prompt runs one turn of the session.
func (a *agentSide) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	// Interrupting tackle stops the turn too (the connection's own
	// context ends only when the editor goes away).
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	defer context.AfterFunc(a.ctx, stop)()
	return s.prompt(ctx, p.Prompt)
}

// Cancel: the connection cancels the prompt's context (the SDK does it
// before this is called), which stops the turn.
func (a *agentSide) Cancel(context.Context, sdk.CancelNotification) error { return nil }

// SetSessionMode switches the session's approval mode for the calls that
// follow.
func (a *agentSide) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	m, err := approval.ParseMode(string(p.ModeId))
	if err != nil {
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s.Policy.SetMode(m)
	return sdk.SetSessionModeResponse{}, nil
}

// CloseSession is not offered (no sessionCapabilities.close).
func (a *agentSide) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionClose)
}

// ResumeSession is not offered.
func (a *agentSide) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// SetSessionConfigOption: tackle offers no configuration options
// besides the modes.
func (a *agentSide) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// mcpSpecs are the editor's MCP servers as tackle's specs.
func mcpSpecs(servers []sdk.McpServer) (map[string]mcp.Spec, error) {
	if len(servers) == 0 {
		return nil, nil
	}
	out := map[string]mcp.Spec{}
	for _, s := range servers {
		var name string
		var spec mcp.Spec
		switch {
		case s.Stdio != nil:
			name = s.Stdio.Name
			spec = mcp.Spec{Type: mcp.Stdio, Command: s.Stdio.Command, Args: s.Stdio.Args}
			if len(s.Stdio.Env) > 0 {
				spec.Env = map[string]string{}
				for _, e := range s.Stdio.Env {
					spec.Env[e.Name] = e.Value
				}
			}
		case s.Http != nil:
			name = s.Http.Name
			spec = mcp.Spec{Type: mcp.HTTP, URL: s.Http.Url, Headers: headers(s.Http.Headers)}
		case s.Sse != nil:
			name = s.Sse.Name
			spec = mcp.Spec{Type: mcp.SSE, URL: s.Sse.Url, Headers: headers(s.Sse.Headers)}
		default:
			return nil, errors.New("an MCP server of a transport tackle does not speak (stdio, http and sse are)")
		}
		if name == "" {
			return nil, errors.New("an MCP server without a name")
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("two MCP servers named %q", name)
		}
		out[name] = spec
	}
	if err := mcp.ValidateAll(out); err != nil {
		return nil, fmt.Errorf("mcpServers: %w", err)
	}
	return out, nil
}

func headers(hs []sdk.HttpHeader) map[string]string {
	if len(hs) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}
