package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/project"
	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/hooks/checks"
	"github.com/tackle-dev/tackle/hooks/command"
	"github.com/tackle-dev/tackle/hooks/process"
	"github.com/tackle-dev/tackle/hooks/redact"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/child"
	"github.com/tackle-dev/tackle/tools/sandbox"
	"github.com/tackle-dev/tackle/tui"
)

// harness is everything a run is wired from, piped or interactive: the
// workspace and its tools, the approval policy and the hook registry.
type harness struct {
	// st are the settings the harness was wired from.
	st      Settings
	root    string
	ws      *tools.Workspace
	toolbox *tools.Registry
	// checkpoints records what each turn's file tools changed, for the
	// UI's /undo and /diff.
	checkpoints *tools.Checkpoints
	policy      *approval.Policy
	hooks       *hooks.Registry
	claude      *claudeHooks // nil without Claude Code hooks
	client      agent.Client
	endpoint    agent.OpenAIConfig // what client was made from
	// redactor removes secrets from tool results and session records.
	redactor *redact.Redactor
	journal  *tools.TempJournal // nil without a state directory
	servers  *process.Set       // the hook servers; nil when none is configured
	mcp      *mcpServers        // the MCP servers; nil when none is configured
	system   string             // the system prompt: tackle's, the project's instructions, the environment
	// contextParts are the system prompt's parts, for /context (the
	// tool definitions and the MCP servers' instructions, which change,
	// are liveParts).
	contextParts []tui.ContextPart
	compaction   compaction
	// files is the recorder of the conversation going on, which keeps the
	// stamps of the files the model reads and writes (session.KindFile):
	// a later process taking the session up knows what the model has seen.
	files atomic.Pointer[session.Recorder]
	// current is the conversation the latest Worker goes on with.
	current atomic.Pointer[conversation]
	// sandbox is the OS sandbox of the commands run for the model.
	sandbox *sandboxed
	// guard says whether configured commands may start (pinConfigured).
	guard func() error
}

// newHarness opens the workspace and registers the built-in and configured
// hooks. Progress of the turn-end checks goes to emit, the same sink as
// the Worker's events. The caller closes the harness.
func newHarness(ctx context.Context, st Settings, stdio Streams, emit func(agent.Event)) (*harness, error) {
	ws, err := tools.OpenWorkspace(st.Workspace)
	if err != nil {
		return nil, usageError{err}
	}
	h := &harness{st: st, root: ws.Dir(), ws: ws, hooks: hooks.NewRegistry(), checkpoints: tools.NewCheckpoints(ws)}
	userProt, userRuns := protection(st.User, h.root, stdio.Env.get, st.NoProtect)
	prot, projectRuns := st.Project.protect(userProt, st.User, h.root, stdio.Env)
	userRuns.add(projectRuns)
	h.pinConfigured(userRuns, emit)
	h.sandbox, err = newSandbox(st, h.root, stdio.Env, prot, func() *approval.Policy { return h.policy })
	if err != nil {
		ws.Close()
		return nil, err
	}
	if w := h.sandbox.warning(); w != "" {
		emit(agent.Warning{Message: w})
	}
	for _, n := range st.Notes {
		emit(agent.Warning{Message: n})
	}
	h.sandbox.sb.OnChanged(h.sandbox.changed(emit))
	// The system prompt runs git status in the sandbox (two git commands,
	// 4–6 ms): it is gathered while the tools, the journal and the client
	// are set up. (Its command is read-only by its own Run, so it does not
	// ask h.policy, which is set later.)
	type prompt struct {
		system string
		parts  []tui.ContextPart
	}
	gathered := make(chan prompt, 1)
	go func() {
		system, parts := systemPrompt(h.root, stdio.Env, h.sandbox.sb)
		gathered <- prompt{system, parts}
	}()
	// A deny rule on reading a file also hides it from a grep of a directory.
	h.toolbox = tools.NewRegistry(ws,
		tools.WithReadFilter(func(rel string) bool { return h.policy.ReadAllowed(rel) }),
		tools.WithEnv(stdio.Env), tools.WithEnvAllow(st.User.EnvAllow), tools.WithCheckpoints(h.checkpoints),
		tools.WithFileObserver(h.recordFile), tools.WithSandbox(h.sandbox.sb),
		// fetch runs outside the sandbox under its own address rules
		// (approval/domain.go): a configured rule naming a host opens
		// its private address, and a redirect to another host is
		// followed only where the policy would not ask.
		tools.WithFetch(tools.FetchConfig{
			Named:     func(host string) bool { return h.policy.NamesHost(host) },
			Follow:    func(u string) bool { return h.policy.FollowsRedirect(u) },
			UserAgent: "tackle/" + version,
		}))
	if state, err := config.StateDir(stdio.Env.get); err == nil {
		h.journal = tools.NewTempJournal(filepath.Join(state, "pending-writes"))
		ws.UseTempJournal(h.journal)
		cleanStaleTemps(h.journal.Dir(), emit)
	}
	h.endpoint = agent.OpenAIConfig{
		APIKey: st.APIKey, BaseURL: st.BaseURL,
		Organization: stdio.Env.get("OPENAI_ORG_ID"), Project: stdio.Env.get("OPENAI_PROJECT_ID"),
		Headers:           agent.ParseCustomHeaders(stdio.Env.get("OPENAI_CUSTOM_HEADERS")),
		FirstTokenTimeout: st.FirstToken, StreamIdleTimeout: st.StreamIdle, ReplyTimeout: st.ReplyTimeout,
	}
	h.client = agent.NewOpenAI(h.endpoint)
	h.compaction = newCompaction(st, stdio.Env)

	pr := <-gathered
	h.system, h.contextParts = pr.system, pr.parts
	if err := h.addTask(stdio.Env, emit); err != nil {
		h.Close()
		return nil, err
	}

	h.policy = approval.New(st.Mode, h.toolbox,
		approval.WithPermissions(st.Perms),
		approval.WithWorkspace(h.root),
		approval.WithProtection(prot),
		// Read-only commands run unasked only where the sandbox holds
		// what a parser mistake would do: protected paths read-only.
		approval.WithSandbox(h.sandbox.sb.Level() == sandbox.LevelFull),
		approval.WithSandboxNetwork(st.SandboxNet),
	)
	h.hooks.PreToolCall(h.policy.Hook())
	if err := h.registerHooks(ctx, stdio.Env, emit); err != nil {
		h.Close()
		return nil, usageError{config.InFile(st.User.Path, err)}
	}
	// The first command's Landlock ruleset is built while the first
	// request is out, not when the call comes.
	go h.sandbox.sb.Prepare(tools.Run{})
	return h, nil
}

// registerHooks registers the redaction of secrets (env's, and the API
// key), the config's command hooks, the Claude Code hooks, its hook
// servers and the turn-end checks. Their base environment is env.
func (h *harness) registerHooks(ctx context.Context, env environ, emit func(agent.Event)) error {
	st := h.st
	if st.RecordHooks != "" {
		if err := recordHooks(h.hooks, st.RecordHooks, func(m string) { emit(agent.Warning{Message: m}) }); err != nil {
			return err
		}
	}
	r, err := redact.New(append(tools.SecretValues(env), st.APIKey), st.User.Redact)
	if err != nil {
		return err
	}
	h.redactor = r
	h.hooks.PostToolCall(r.Hook())
	// The configured commands write no Python bytecode next to the
	// modules they import: that would change what is pinned
	// (pinConfigured) at their first run.
	env = append(slices.Clone(env), "PYTHONDONTWRITEBYTECODE=1")
	if err := command.RegisterAll(h.hooks, st.User.Hooks, command.Options{Workdir: h.root, Env: env, Guard: h.guard}); err != nil {
		return err
	}
	if err := command.RegisterAll(h.hooks, st.Project.cfg.Hooks, command.Options{Workdir: h.root, Env: env, Guard: h.guard}); err != nil {
		return config.InFile(st.Project.cfg.Path, err)
	}
	if err := h.registerClaudeHooks(env, emit); err != nil {
		return err
	}
	if err := h.startServers(ctx, st.User.HookServers, st.picoclaw(), env, emit); err != nil {
		return err
	}
	emit = h.observe(emit) // the checks' and MCP servers' news reach observers too
	if err := h.startMCP(env, emit); err != nil {
		return err
	}
	if st.Checks == nil {
		return nil
	}
	ccfg := *st.Checks
	ccfg.Workspace, ccfg.Tools, ccfg.Env = h.root, h.toolbox, env
	ccfg.Sandbox, ccfg.EnvAllow = h.sandbox.sb, st.User.EnvAllow
	ccfg.Report = func(e checks.Event) { emit(checkEvent(e)) }
	_, err = checks.Register(h.hooks, ccfg)
	return err
}

// startServers starts the hook servers and picoclaw's process hooks,
// registers their hooks and reports what goes wrong with them while they
// run to emit. Their stderr goes to the state directory's hooks/NAME.log.
func (h *harness) startServers(ctx context.Context, specs []process.Spec, pico []process.PicoclawSource, env environ, emit func(agent.Event)) error {
	if len(specs) == 0 && len(pico) == 0 {
		return nil
	}
	opts := process.Options{
		Guard:   h.guard,
		Workdir: h.root, Env: env, Version: version, ObserveTypes: agent.EventTypes(),
		Warn:      func(msg string) { emit(agent.Warning{Message: msg}) },
		SessionID: h.sessionID,
	}
	if state, err := config.StateDir(env.get); err == nil {
		opts.LogDir = filepath.Join(state, "hooks")
	}
	set, err := process.StartAll(ctx, specs, pico, opts)
	if err != nil {
		return err
	}
	h.servers = set
	return set.Register(h.hooks)
}

// sessionID is the id of the session of the conversation going on.
func (h *harness) sessionID() string {
	if cv := h.current.Load(); cv != nil {
		return cv.id()
	}
	return ""
}

// observe returns onEvent, which also sends each event to the hook
// servers that observe its type.
func (h *harness) observe(onEvent func(agent.Event)) func(agent.Event) {
	if len(h.servers.Servers()) == 0 {
		return onEvent
	}
	return func(e agent.Event) {
		onEvent(e)
		h.servers.Observe(e.EventType(), func() ([]byte, error) { return agent.MarshalEvent(e) })
	}
}

// liveParts are the parts of the next request that change while the UI
// runs, for /context: the MCP servers' instructions (when any server gave
// some) and the tool definitions.
func (h *harness) liveParts() []tui.ContextPart {
	var parts []tui.ContextPart
	if text := h.mcp.instructions(); text != "" {
		parts = append(parts, tui.ContextPart{Name: "MCP servers' instructions", Text: text})
	}
	specs := h.toolbox.Specs()
	b, _ := json.Marshal(specs)
	return append(parts, tui.ContextPart{Name: fmt.Sprintf("tool definitions (%d tools)", len(specs)), Text: string(b)})
}

// kill kills the hook servers' and the MCP servers' processes at once,
// for a process about to exit.
func (h *harness) kill() {
	h.servers.Kill()
	h.mcp.kill()
}

func (h *harness) Close() error {
	h.claude.close()
	h.mcp.close(nil)
	h.servers.Close()
	if h.journal != nil {
		h.journal.Close()
	}
	h.sandbox.close()
	return h.ws.Close()
}

// cleanStaleTemps removes the temporary files that tackles killed
// mid-write left behind, and says so.
func cleanStaleTemps(dir string, emit func(agent.Event)) {
	stale, err := tools.CleanStaleTemps(dir)
	if err != nil {
		emit(agent.Warning{Message: err.Error()})
	}
	for _, st := range stale {
		msg := fmt.Sprintf("removed %s (%d bytes), a temporary file left by a tackle that was killed mid-write", st.Path, st.Size)
		if st.Err != nil {
			msg = fmt.Sprintf("could not remove %s, a temporary file left by a tackle that was killed mid-write: %v", st.Path, st.Err)
		}
		emit(agent.Warning{Message: msg})
	}
}

// systemPrompt is tackle's system prompt for the workspace with the
// project's instruction files (AGENTS.md, CLAUDE.md) and the environment
// (OS, shell, date, git status, Go version) added, and its parts for
// /context.
func systemPrompt(root string, env environ, sb *tools.Sandbox) (string, []tui.ContextPart) {
	base := agent.SystemPrompt(root)
	parts := []tui.ContextPart{{Name: "tackle's instructions", Text: base}}
	o := project.Options{Workspace: root, Env: env, Now: time.Now, Sandbox: sb}
	if p, err := config.UserPath(env.get); err == nil {
		o.UserDir = filepath.Dir(p)
	}
	pc, err := project.Gather(context.Background(), o)
	if err != nil {
		return base, parts
	}
	for _, f := range pc.Instructions {
		parts = append(parts, tui.ContextPart{Name: "instructions " + f.Path, Text: f.Content})
	}
	parts = append(parts, tui.ContextPart{Name: "environment (OS, date, git status …)", Text: pc.Environment})
	return base + "\n\n" + pc.Prompt(), parts
}

// worker returns a Worker wired by the harness that goes on with cv's
// conversation, records into cv's session and sends its events to
// onEvent.
func (h *harness) worker(cv *conversation, onEvent func(agent.Event)) *agent.Worker {
	h.current.Store(cv)
	onEvent = h.observe(onEvent) // hook servers observe every event
	cfg := agent.Config{
		Client:           h.client,
		Model:            cv.model,
		ReasoningEffort:  h.st.Effort,
		System:           h.system,
		History:          cv.history,
		Notes:            cv.notes,
		Tools:            h.toolbox,
		Hooks:            h.hooks,
		MaxRequests:      h.st.MaxRequests,
		MaxParallel:      h.st.MaxParallel,
		RetryBudget:      retryBudget(h.st.MaxRetries),
		OnEvent:          onEvent,
		OnApproveAlways:  h.remember(cv),
		ContextWindow:    h.compaction.window,
		CompactThreshold: h.compaction.threshold,
		KeepTurns:        h.compaction.keepTurns,
		SystemNotes:      h.mcp.instructions,
		Redact:           h.redactor.Redact,
	}
	if rec := cv.rec; rec != nil {
		cfg.OnMessage = rec.Message
		cfg.OnEvent = func(e agent.Event) {
			rec.Event(e)
			onEvent(e)
		}
	}
	h.claude.wrap(&cfg, cv)
	return agent.New(cfg)
}

// retryBudget is the Worker's RetryBudget for --max-retries n: 0 means
// no rounds, where the Worker's zero means its default.
func retryBudget(n int) int {
	if n == 0 {
		return hooks.NoRetries
	}
	return n
}

// checkEvent turns a progress report of the turn-end checks into the
// agent's event of the same shape.
func checkEvent(e checks.Event) agent.Event {
	switch e := e.(type) {
	case checks.Started:
		return agent.CheckStarted(e)
	case checks.Finished:
		return agent.CheckFinished(e)
	case checks.Warning:
		return agent.Warning(e)
	}
	return agent.Warning{Message: fmt.Sprintf("checks: unknown event %T", e)}
}

// recordFile keeps a file stamp in the session going on.
func (h *harness) recordFile(st tools.FileStamp) {
	if rec := h.files.Load(); rec != nil {
		rec.Append(session.Record{Kind: session.KindFile, File: &st})
	}
}

// pinConfigured pins what the configured commands run or import (the
// protection's files and directories) as it is now: once one changes —
// the model may have changed it, past protection and the sandbox — no
// configured command (hook, hook server, MCP server) starts again, and
// the user is told once (child.Pins).
func (h *harness) pinConfigured(c configured, emit func(agent.Event)) {
	// What the commands run or import, not every path they name (a log
	// a hook appends to), nor the configuration files (which say which
	// commands run; a project's are pinned by trust).
	pins := child.Pin(c.runs, c.imports)
	var once sync.Once
	h.guard = func() error {
		err := pins.Check()
		if err != nil {
			once.Do(func() {
				emit(agent.Warning{Message: "hooks, hook servers and MCP servers no longer start: " + err.Error()})
			})
		}
		return err
	}
}
