package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tackle-dev/tackle/tools/chat"
)

// ErrDuplicateTool is returned by Registry.Add for a name already taken.
var ErrDuplicateTool = errors.New("duplicate tool name")

// Registry holds the tools of one session, looks them up by name and runs
// calls. It implements the agent's Toolbox. Each built-in tool is a value
// holding what it needs: the workspace, and for read_file, write_file
// and edit_file the session's fileState (what the model has read, which
// edit_file and write_file check before changing a file). A Registry is
// safe for concurrent use: calls may run in parallel, and remote tools
// (an MCP server's) join and leave while they do (Replace).
type Registry struct {
	ws    *Workspace
	files *fileState

	mu    sync.RWMutex
	tools map[string]*Tool
	names []string // sorted
	// specs is Specs' answer until the tools change; nil when stale.
	specs []chat.ToolSpec
}

// options are what Options set: the configuration of the built-in tools.
type options struct {
	bash         bashConfig
	readable     readFilter
	checkpoints  *Checkpoints
	observeFiles func(FileStamp)
	sandbox      *Sandbox
	fetch        FetchConfig
}

// Option configures a Registry.
type Option func(*options)

// WithEnv sets the environment bash commands start from (before the
// allow list applies, see ChildEnv); the default is the process
// environment at each call.
func WithEnv(env []string) Option {
	return func(o *options) { o.bash.env = slices.Clone(env) }
}

// WithEnvAllow adds names to the allow list of the environment bash
// commands get (DefaultEnvAllow): exact names, or patterns with a * at
// the end or the start. A variable named exactly gets through even when
// its name or value looks like a secret.
func WithEnvAllow(names []string) Option {
	return func(o *options) { o.bash.envAllow = slices.Clone(names) }
}

// WithKillGrace sets how long a bash command's process group has between
// SIGTERM and SIGKILL once it timed out or was cancelled; the default is
// DefaultKillGrace.
func WithKillGrace(d time.Duration) Option {
	return func(o *options) { o.bash.killGrace = d }
}

// WithReadFilter sets a filter on the files whose contents the tools show:
// readable gets a file's path relative to the workspace root,
// slash-separated, with symbolic links resolved, and returns false for a
// file that must not be read (an approval deny rule covers it). read_file
// and grep on such a file refuse the call, and a grep of a directory
// skips it, so that a deny rule on reading a file also holds for a search
// of the whole workspace.
func WithReadFilter(readable func(rel string) bool) Option {
	return func(o *options) { o.readable = readable }
}

// WithCheckpoints records every change write_file and edit_file make,
// and every bash command, in c (see Checkpoints), for undo and diffs.
func WithCheckpoints(c *Checkpoints) Option {
	return func(o *options) { o.checkpoints = c }
}

// WithSandbox runs the bash tool's commands in s (nil: none).
func WithSandbox(s *Sandbox) Option {
	return func(o *options) { o.sandbox = s }
}

// WithFileObserver makes the Registry tell observe each file stamp it
// records (a read, a write, an acknowledged change), for a session to
// keep; observe may be called from parallel calls at once.
func WithFileObserver(observe func(FileStamp)) Option {
	return func(o *options) { o.observeFiles = observe }
}

// readFilter says whether a file's contents may be shown (see
// WithReadFilter); nil allows every file.
type readFilter func(rel string) bool

// allows applies the filter to rel (an OS path relative to the workspace
// root).
func (f readFilter) allows(rel string) bool {
	return f == nil || f(display(rel))
}

// failDenied is the result for a file the read filter refuses.
func failDenied(rel string) Result {
	return Fail("%s may not be read: an approval rule denies reading it. Do not try to read it another way.", display(rel))
}

// NewRegistry returns a registry holding the built-in tools (read_file,
// write_file, edit_file, list_dir, glob, grep, bash, all confined to ws,
// todo, the visible plan, and fetch, which reads web pages under its own
// address rules: WithFetch). The task tool, which starts subagents, is
// added by whoever can run them (NewTask).
func NewRegistry(ws *Workspace, opts ...Option) *Registry {
	o := options{bash: bashConfig{
		killGrace:      DefaultKillGrace,
		defaultTimeout: DefaultBashTimeout,
		maxTimeout:     MaxBashTimeout,
	}}
	for _, opt := range opts {
		opt(&o)
	}
	r := &Registry{ws: ws, files: newFileState(ws), tools: make(map[string]*Tool)}
	r.files.checkpoints, r.files.observe = o.checkpoints, o.observeFiles
	for _, t := range []*Tool{
		readFileTool{ws: ws, files: r.files, readable: o.readable}.tool(),
		writeFileTool{ws: ws, files: r.files}.tool(),
		editFileTool{ws: ws, files: r.files}.tool(),
		listDirTool{ws: ws}.tool(),
		globTool{ws: ws}.tool(),
		grepTool{ws: ws, readable: o.readable}.tool(),
		bashTool{dir: ws.Dir(), cfg: o.bash, sandbox: o.sandbox}.tool(),
		todoTool{}.tool(),
		fetchTool{cfg: o.fetch}.tool(),
	} {
		if err := r.Add(t); err != nil {
			panic(err) // the built-in names are distinct
		}
	}
	return r
}

// SetFiles replaces what the tools know the model has seen of the
// workspace's files with stamps: those a session kept (WithFileObserver),
// when a process takes the session up again; none for a new
// conversation. A stamp whose path is no longer in the workspace is left
// out.
func (r *Registry) SetFiles(stamps []FileStamp) { r.files.set(stamps) }

// Workspace returns the workspace the tools are confined to.
func (r *Registry) Workspace() *Workspace { return r.ws }

// Add registers another tool.
func (r *Registry) Add(t *Tool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.add(t)
}

func (r *Registry) add(t *Tool) error {
	if _, ok := r.tools[t.Name()]; ok {
		return fmt.Errorf("add tool %s: %w", t.Name(), ErrDuplicateTool)
	}
	r.tools[t.Name()] = t
	i, _ := slices.BinarySearch(r.names, t.Name())
	r.names = slices.Insert(r.names, i, t.Name())
	r.specs = nil
	return nil
}

// Replace makes ts the tools of server, in one step: the server's tools
// not in ts leave, those in ts join or are updated. Every tool of ts must
// belong to server (NewRemote's Remote.Server) and none may take the name
// of another server's tool or of one of tackle's own; then nothing
// changes. A call already running finishes with the tool it started with.
func (r *Registry) Replace(server string, ts []*Tool) error {
	if server == "" {
		return errors.New("replace tools: no server named")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := make(map[string]bool, len(ts))
	for _, t := range ts {
		if t.server != server {
			return fmt.Errorf("replace tools of %s: %s belongs to %q", server, t.Name(), t.server)
		}
		if old, ok := r.tools[t.Name()]; ok && old.server != server || seen[t.Name()] {
			return fmt.Errorf("replace tools of %s: %s: %w", server, t.Name(), ErrDuplicateTool)
		}
		seen[t.Name()] = true
	}
	r.names = slices.DeleteFunc(r.names, func(name string) bool {
		if r.tools[name].server == server {
			delete(r.tools, name)
			return true
		}
		return false
	})
	for _, t := range ts {
		r.add(t) // cannot fail: checked above
	}
	r.specs = nil
	return nil
}

// lookup returns the tool called name.
func (r *Registry) lookup(name string) (*Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Lookup returns the tool called name.
func (r *Registry) Lookup(name string) (*Tool, bool) { return r.lookup(name) }

// Names returns the names of the tools, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.names)
}

// Specs lists the tools as the model sees them, sorted by name. While
// the tools do not change it returns the same slice, which the caller
// must not modify; a caller can tell a change by getting another one.
func (r *Registry) Specs() []chat.ToolSpec {
	r.mu.RLock()
	specs := r.specs
	r.mu.RUnlock()
	if specs != nil {
		return specs
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.specs == nil {
		r.specs = make([]chat.ToolSpec, len(r.names))
		for i, name := range r.names {
			r.specs[i] = r.tools[name].Spec()
		}
	}
	return r.specs
}

// Run executes one call. An unknown tool or bad arguments, like any
// failure the model should read, come back as a result with
// chat.StatusError; a Go error means the harness itself failed.
func (r *Registry) Run(ctx context.Context, call chat.ToolCall) (chat.ToolResult, error) {
	t, ok := r.lookup(call.Name)
	if !ok {
		return chat.ToolResult{CallID: call.ID, Status: chat.StatusError, Content: r.unknown(call.Name)}, nil
	}
	if cp := r.files.checkpoints; cp != nil && t.Kind() == KindExec {
		cp.ran(r.Summary(call))
	}
	res, err := t.Execute(ctx, call.Arguments)
	if err != nil {
		return chat.ToolResult{}, fmt.Errorf("run tool: %w", err)
	}
	status := chat.StatusOK
	if res.IsError {
		status = chat.StatusError
	}
	out := chat.ToolResult{CallID: call.ID, Status: status, Content: res.Content}
	if len(res.Images) > 0 {
		out.Attached = &chat.Attachments{Images: res.Images}
	}
	return out, nil
}

// CallInfo is what a call would do, as its tool tells: what an approval
// policy, the turn-end checks and the UI need to know about it.
type CallInfo struct {
	// Tool is the tool's name.
	Tool string
	// Kind is what the tool can do, as it declares; zero for an unknown
	// tool, which must be treated like KindExec.
	Kind Kind
	// Access is how a file tool reaches the paths its calls name, as it
	// declares (PathArgs); zero for a tool that names no paths.
	Access Access
	// Args is the decoded argument struct, e.g. an EditFileArgs value.
	Args any
	// Sent are the paths a file tool's call names, as the model sent them
	// (PathArgs.Paths).
	Sent []string
	// Paths are the same paths relative to the workspace root with
	// forward slashes ("." is the root) and with symbolic links resolved,
	// so that an alias cannot dodge a rule about its target. A path the
	// workspace refuses is given as sent and listed in Refused too: the
	// tool will refuse the call.
	Paths []string
	// Refused lists the paths that are outside the workspace or invalid.
	Refused []string
	// Command is the shell command of a bash call.
	Command string
	// Server is the server of a remote tool (an MCP server's), "" for
	// tackle's own.
	Server string
	// Host is the host a network tool's call reaches, as rules see it
	// (HostArgs: fetch's FetchURL); "" when the tool reaches none or
	// will refuse the call.
	Host string
}

// Acknowledge records the current content of path as known to the model,
// if the model knew an earlier version: the harness itself changed the
// file (gofmt at turn end) and told the model, so that change must not
// make the model's next edit look stale. A file the model never read or
// wrote stays unknown.
func (r *Registry) Acknowledge(path string) error { return r.files.acknowledge(path) }

// Inspect tells what a call would do without running it: its tool's
// kind and access, its typed arguments and the workspace paths it names.
// The error is an *ArgsError for arguments the tool would refuse, or an
// error for an unknown tool; the CallInfo then still names the tool and,
// for a known tool, its kind, access and server, and the paths and
// command as far as the arguments decode leniently (as for Summary; Args
// stays nil), so that a policy judges even a call that will fail by what
// it names.
func (r *Registry) Inspect(call chat.ToolCall) (CallInfo, error) {
	t, ok := r.lookup(call.Name)
	if !ok {
		return CallInfo{Tool: call.Name}, fmt.Errorf("inspect call: unknown tool %q", call.Name)
	}
	info := CallInfo{Tool: t.Name(), Kind: t.Kind(), Access: t.Access(), Server: t.server}
	args, err := t.Decode(call.Arguments)
	if err == nil {
		info.Args = args
	} else if args, _ = t.lenient([]byte(call.Arguments)); args == nil {
		return info, err
	}
	if pa, ok := args.(PathArgs); ok {
		info.Sent = pa.Paths()
		info.Paths, info.Refused = r.resolve(info.Sent)
	}
	if b, ok := args.(BashArgs); ok {
		info.Command = b.Command
	}
	if h, ok := args.(HostArgs); ok {
		info.Host = h.Host()
	}
	return info, err
}

// resolve resolves the paths a call names, for CallInfo.
func (r *Registry) resolve(paths []string) (resolved, refused []string) {
	for _, p := range paths {
		rel, err := r.ws.Resolve(p)
		if err != nil {
			var pe *PathError
			if errors.As(err, &pe) {
				refused = append(refused, p)
				resolved = append(resolved, p)
				continue
			}
			// Resolution failed for another reason (a loop, a
			// permission): fall back to the lexical path.
			if rel, err = r.ws.Rel(p); err != nil {
				refused = append(refused, p)
				resolved = append(resolved, p)
				continue
			}
		}
		resolved = append(resolved, display(rel))
	}
	return resolved, refused
}

// Summary says in one line what a call is about, from its tool's typed
// arguments and without touching the file system (Tool.Summary); the UI
// shows it next to the tool's name. A call of an unknown tool is given by
// its arguments as sent.
func (r *Registry) Summary(call chat.ToolCall) string {
	t, ok := r.lookup(call.Name)
	if !ok {
		return call.Arguments
	}
	return t.Summary(call.Arguments)
}

// Preview works out what a call would do without running it, for the
// person who approves it (Tool.Preview). A call of an unknown tool gives
// a Problem.
func (r *Registry) Preview(call chat.ToolCall) Preview {
	t, ok := r.lookup(call.Name)
	if !ok {
		return Preview{Summary: call.Arguments, Problem: fmt.Sprintf("there is no tool %q: the call will fail", call.Name), Refused: r.unknown(call.Name)}
	}
	return t.Preview(call.Arguments)
}

// unknown is the result of a call of a tool the registry does not have.
func (r *Registry) unknown(name string) string {
	return fmt.Sprintf("Unknown tool %q. The available tools are: %s.", name, strings.Join(r.Names(), ", "))
}
