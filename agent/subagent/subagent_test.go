package subagent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

func TestParseTackleAndClaudeFiles(t *testing.T) {
	d, err := Parse("/p/.tackle/agents/reviewer.md", []byte(`---
description: Reviews a change for bugs.
tools: [read_file, grep, bash]
model: small-model
---
You review code.

Be strict.
`), Tackle)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "reviewer" || d.Description != "Reviews a change for bugs." || !slices.Equal(d.Tools, []string{"read_file", "grep", "bash"}) ||
		d.Model != "small-model" || d.Prompt != "You review code.\n\nBe strict." || len(d.Notes) != 0 {
		t.Errorf("tackle file: %+v", d)
	}

	// Claude Code's format: its tool names, a comma list, an alias of
	// Anthropic's for a model, a multi-line description.
	d, err = Parse("/p/.claude/agents/x.md", []byte("---\nname: code-searcher\ndescription: |\n  Finds code.\n  Use it often.\ntools: Read, Grep, Glob, LS, Bash, WebFetch, WebSearch, Task(explore), TodoWrite, mcp__git__status\nmodel: haiku\ncolor: blue\n---\nSearch well.\n"), Claude)
	if err != nil {
		t.Fatal(err)
	}
	wantTools := []string{"read_file", "grep", "glob", "list_dir", "bash", "fetch", "todo", "mcp__git__status"}
	if d.Name != "code-searcher" || d.Description != "Finds code.\nUse it often." || !slices.Equal(d.Tools, wantTools) || d.Model != "" || d.Prompt != "Search well." {
		t.Errorf("claude file: %+v", d)
	}
	if notes := strings.Join(d.Notes, "\n"); !strings.Contains(notes, `tool "WebSearch" is not one of tackle's`) || !strings.Contains(notes, "task left out") || !strings.Contains(notes, `model "haiku"`) {
		t.Errorf("notes: %q", d.Notes)
	}

	for name, body := range map[string]string{
		"no front matter":     "just text",
		"unclosed":            "---\ndescription: x\n",
		"no description":      "---\nname: a\n---\nx",
		"bad name":            "---\nname: Big Name\ndescription: x\n---\n",
		"the built-in's name": "---\nname: general\ndescription: x\n---\n",
		"bad tools":           "---\ndescription: x\ntools: {a: b}\n---\n",
	} {
		if _, err := Parse("/a.md", []byte(body), Tackle); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestLoadDirAndMerge(t *testing.T) {
	user, proj := t.TempDir(), t.TempDir()
	write := func(dir, name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(user, "a.md", "---\ndescription: user's a\n---\n")
	write(user, "b.md", "---\ndescription: user's b\n---\n")
	write(user, "notes.txt", "not an agent")
	write(proj, "a.md", "---\ndescription: project's a\n---\n")
	write(proj, "bad.md", "no front matter")
	u, err := LoadDir(Dir{Path: user})
	if err != nil || len(u) != 2 {
		t.Fatalf("user: %+v %v", u, err)
	}
	p, err := LoadDir(Dir{Path: proj})
	if err == nil || !strings.Contains(err.Error(), "bad.md") || len(p) != 1 {
		t.Errorf("project: %+v %v", p, err)
	}
	if none, err := LoadDir(Dir{Path: filepath.Join(user, "missing")}); err != nil || len(none) != 0 {
		t.Errorf("missing dir: %+v %v", none, err)
	}
	all := Merge(u, p)
	if len(all) != 2 || all[0].Description != "project's a" || all[1].Name != "b" {
		t.Errorf("merged %+v", all)
	}
}

// fixture is a Worker whose tools are a real registry with the task
// tool, against a scripted server.
type fixture struct {
	srv    *llmtest.Server
	worker *agent.Worker
	root   string
}

func newFixture(t *testing.T, script llmtest.Script, cfg Config) *fixture {
	t.Helper()
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if err := os.WriteFile(filepath.Join(ws.Dir(), "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry(ws)
	cfg.Registry, cfg.System = reg, "PARENT SYSTEM PROMPT"
	if err := reg.Add(New(cfg).Tool()); err != nil {
		t.Fatal(err)
	}
	f := &fixture{srv: llmtest.NewServer(t, script), root: ws.Dir()}
	f.worker = agent.New(agent.Config{
		Client: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: f.srv.URL(), APIKey: "k", MaxRetries: -1}),
		Model:  "parent-model",
		Tools:  reg,
		Hooks:  hooks.NewRegistry(),
	})
	return f
}

// child is the first request of the conversation whose first user
// message is prompt.
func (f *fixture) child(t *testing.T, prompt string) llmtest.Request {
	t.Helper()
	for _, r := range f.srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == chat.RoleUser {
				if m.Content == prompt {
					return r
				}
				break
			}
		}
	}
	t.Fatalf("no request of the conversation %q", prompt)
	return llmtest.Request{}
}

func (f *fixture) result(t *testing.T, callID string) string {
	t.Helper()
	reqs := f.srv.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == chat.RoleTool && m.ToolCallID == callID {
			return m.Content
		}
	}
	t.Fatalf("no result for %s", callID)
	return ""
}

// TestTaskRunsTheAgentItNames: a task call runs the agent it names, with
// the agent's prompt and tools and the model of the call, then the
// agent's, then the config's; the general agent gets the default tools.
func TestTaskRunsTheAgentItNames(t *testing.T) {
	reviewer := Def{Name: "reviewer", Description: "Reviews code.", Tools: []string{"read_file", "bash"}, Model: "review-model", Prompt: "You review code."}
	f := newFixture(t, llmtest.Script{
		Rules: []llmtest.Rule{
			{FirstUserContains: "REVIEW", Response: llmtest.Text("looks fine")},
			{FirstUserContains: "LOOK", Response: llmtest.Text("found main.go")},
			{FirstUserContains: "NARROW", Response: llmtest.Text("narrowed")},
		},
		Responses: []llmtest.Response{
			llmtest.ToolCalls(
				llmtest.Call("t1", tools.Task, `{"description":"review","prompt":"REVIEW main.go","agent":"reviewer"}`),
				llmtest.Call("t2", tools.Task, `{"description":"look","prompt":"LOOK around"}`),
				llmtest.Call("t3", tools.Task, `{"description":"narrow","prompt":"NARROW","agent":"reviewer","tools":["read_file"],"model":"call-model"}`),
				llmtest.Call("t4", tools.Task, `{"description":"x","prompt":"X","agent":"nobody"}`),
				llmtest.Call("t5", tools.Task, `{"description":"x","prompt":"X","tools":["bash"]}`),
			),
			llmtest.Text("done"),
		},
	}, Config{Agents: []Def{reviewer}, Model: "config-model"})
	if out, err := f.worker.Run(t.Context(), "go"); err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}

	r := f.child(t, "REVIEW main.go")
	if r.Model != "review-model" || !slices.Equal(r.Tools, []string{"bash", "read_file"}) {
		t.Errorf("reviewer: model %s, tools %v", r.Model, r.Tools)
	}
	sys := r.Messages[0].Content
	if !strings.HasPrefix(sys, "You are a subagent") || !strings.Contains(sys, "# Your role\n\nYou review code.") || !strings.HasSuffix(sys, "PARENT SYSTEM PROMPT") {
		t.Errorf("reviewer's system prompt:\n%s", sys)
	}
	r = f.child(t, "LOOK around")
	if r.Model != "config-model" || !slices.Equal(r.Tools, []string{"glob", "grep", "list_dir", "read_file"}) {
		t.Errorf("general: model %s, tools %v", r.Model, r.Tools)
	}
	r = f.child(t, "NARROW")
	if r.Model != "call-model" || !slices.Equal(r.Tools, []string{"read_file"}) {
		t.Errorf("narrowed: model %s, tools %v", r.Model, r.Tools)
	}
	if got := f.result(t, "t1"); got != "looks fine" {
		t.Errorf("t1: %q", got)
	}
	if got := f.result(t, "t4"); !strings.Contains(got, `There is no agent "nobody". The agents are: general, reviewer.`) {
		t.Errorf("t4: %q", got)
	}
	if got := f.result(t, "t5"); !strings.Contains(got, `Agent general has no tool "bash"`) {
		t.Errorf("t5: %q", got)
	}

	spec := slices.IndexFunc(f.srv.Requests()[0].ToolSpecs, func(s chat.ToolSpec) bool { return s.Name == tools.Task })
	desc := f.srv.Requests()[0].ToolSpecs[spec].Description
	if !strings.Contains(desc, "- general: any task of searching, reading and reporting back. Tools: read_file, list_dir, glob, grep.") ||
		!strings.Contains(desc, "- reviewer: Reviews code. Tools: read_file, bash.") {
		t.Errorf("the task tool's description:\n%s", desc)
	}
}

// TestTaskReportsHowTheSubagentEnded: a subagent that runs out of
// requests answers with what it has and why it stopped.
func TestTaskReportsHowTheSubagentEnded(t *testing.T) {
	f := newFixture(t, llmtest.Script{
		Rules: []llmtest.Rule{{FirstUserContains: "LOOP", Responses: []llmtest.Response{
			{Content: "reading", ToolCalls: []llmtest.ToolCall{llmtest.Call("c1", tools.ReadFile, `{"path":"main.go"}`)}},
			{Content: "still reading", ToolCalls: []llmtest.ToolCall{llmtest.Call("c2", tools.ReadFile, `{"path":"main.go"}`)}},
		}}},
		Responses: []llmtest.Response{llmtest.ToolCalls(llmtest.Call("t1", tools.Task, `{"description":"loop","prompt":"LOOP"}`)), llmtest.Text("done")},
	}, Config{MaxRequests: 2})
	if out, err := f.worker.Run(context.Background(), "go"); err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	if got := f.result(t, "t1"); !strings.HasPrefix(got, "still reading\n\n[The subagent stopped before it was done: request limit reached: 2 model requests in one run.]") {
		t.Errorf("t1: %q", got)
	}
}

// TestChildCannotCallToolsItWasNotGiven (red team): a subagent whose
// model calls a tool its agent does not have — by its name, in another
// case, by Claude Code's name, or task itself — gets "Unknown tool", and
// nothing runs.
func TestChildCannotCallToolsItWasNotGiven(t *testing.T) {
	f := newFixture(t, llmtest.Script{
		Rules: []llmtest.Rule{
			{FirstUserContains: "SNEAK", Responses: []llmtest.Response{
				llmtest.ToolCalls(
					llmtest.Call("c1", tools.Bash, `{"command":"touch pwned1"}`),
					llmtest.Call("c2", "BASH", `{"command":"touch pwned2"}`),
					llmtest.Call("c3", "Bash", `{"command":"touch pwned3"}`),
					llmtest.Call("c4", tools.WriteFile, `{"path":"pwned4","content":"x"}`),
					llmtest.Call("c5", "Write", `{"file_path":"pwned5","content":"x"}`),
					llmtest.Call("c6", tools.Task, `{"description":"x","prompt":"SNEAK again","tools":["bash"]}`),
					llmtest.Call("c7", " bash", `{"command":"touch pwned7"}`),
				),
				llmtest.Text("tried"),
			}},
		},
		Responses: []llmtest.Response{
			llmtest.ToolCalls(llmtest.Call("t1", tools.Task, `{"description":"x","prompt":"SNEAK"}`)),
			llmtest.Text("done"),
		},
	}, Config{})
	if out, err := f.worker.Run(t.Context(), "go"); err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	for _, n := range []string{"pwned1", "pwned2", "pwned3", "pwned4", "pwned5", "pwned7"} {
		if _, err := os.Stat(filepath.Join(f.root, n)); err == nil {
			t.Errorf("the subagent created %s with a tool it does not have", n)
		}
	}
	var last llmtest.Request
	for _, r := range f.srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == chat.RoleUser {
				if m.Content == "SNEAK" {
					last = r
				}
				break
			}
		}
	}
	n := 0
	for _, m := range last.Messages {
		if m.Role == chat.RoleTool {
			n++
			if !strings.Contains(m.Content, "Unknown tool") {
				t.Errorf("%s: %q, want Unknown tool", m.ToolCallID, m.Content)
			}
		}
	}
	if n != 7 {
		t.Errorf("%d tool results in the subagent's last request, want 7", n)
	}
}
