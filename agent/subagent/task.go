package subagent

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools"
)

//go:embed task.md
var taskDescription string

// DefaultTools are a subagent's tools unless the config or its agent
// names others: those that only read.
var DefaultTools = []string{tools.ReadFile, tools.ListDir, tools.Glob, tools.Grep}

// DefaultMaxRequests caps a subagent's model requests unless the config
// says otherwise.
const DefaultMaxRequests = 25

// Config is what the task tool starts subagents with.
type Config struct {
	// Registry holds every tool; a subagent gets a Subset of it.
	Registry *tools.Registry
	// System is the parent's system prompt (tackle's instructions, the
	// project's, the environment), which a subagent's starts from.
	System string
	// Tools are the general agent's tools, and those of a custom agent
	// that names none; nil means DefaultTools.
	Tools []string
	// Model is a subagent's model unless its call or its agent names
	// one; "" is the parent's.
	Model string
	// MaxRequests caps each subagent's model requests; zero means
	// DefaultMaxRequests.
	MaxRequests int
	// Agents are the custom agents.
	Agents []Def
}

// Task starts subagents for the task tool's calls.
type Task struct {
	cfg    Config
	agents map[string]Def
}

// New returns the task tool's runner for cfg.
func New(cfg Config) *Task {
	if cfg.Tools == nil {
		cfg.Tools = DefaultTools
	}
	if cfg.MaxRequests <= 0 {
		cfg.MaxRequests = DefaultMaxRequests
	}
	t := &Task{cfg: cfg, agents: map[string]Def{}}
	for _, d := range cfg.Agents {
		t.agents[d.Name] = d
	}
	return t
}

// Tool is the task tool, whose description lists the agents.
func (t *Task) Tool() *tools.Tool {
	return tools.NewTask(t.description(), t.run)
}

// description is the tool's description: what it does, and each agent
// with its tools.
func (t *Task) description() string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(taskDescription))
	b.WriteString("\n\nAgents (the \"agent\" argument):\n")
	fmt.Fprintf(&b, "- %s: any task of searching, reading and reporting back. Tools: %s.\n", General, strings.Join(t.toolsOf(Def{}), ", "))
	for _, d := range t.cfg.Agents {
		fmt.Fprintf(&b, "- %s: %s Tools: %s.\n", d.Name, oneLine(d.Description), strings.Join(t.toolsOf(d), ", "))
	}
	return strings.TrimRight(b.String(), "\n")
}

// toolsOf are the tools agent d has.
func (t *Task) toolsOf(d Def) []string {
	names := t.cfg.Tools
	if d.Tools != nil {
		names = d.Tools
	}
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == tools.Task })
}

// run runs one task call: its subagent to the end of its turn.
func (t *Task) run(ctx context.Context, a tools.TaskArgs) (tools.Result, error) {
	prompt := strings.TrimSpace(a.Prompt)
	if prompt == "" {
		return tools.Fail("The prompt is empty: write the whole task for the subagent."), nil
	}
	name := strings.TrimSpace(a.Agent)
	if name == "" {
		name = General
	}
	d, ok := t.agents[name]
	if !ok && name != General {
		return tools.Fail("There is no agent %q. The agents are: %s.", name, strings.Join(t.names(), ", ")), nil
	}
	have := t.toolsOf(d)
	use := have
	if len(a.Tools) > 0 {
		use = nil
		for _, n := range a.Tools {
			if !slices.Contains(have, n) {
				return tools.Fail("Agent %s has no tool %q: it can have %s.", name, n, strings.Join(have, ", ")), nil
			}
			use = append(use, n)
		}
	}
	model := a.Model
	if model == "" {
		model = d.Model
	}
	if model == "" {
		model = t.cfg.Model
	}
	out, err := agent.RunSubagent(ctx, agent.Subagent{
		Type:        name,
		Model:       model,
		System:      t.system(d),
		Tools:       t.cfg.Registry.Subset(use),
		MaxRequests: t.cfg.MaxRequests,
		Prompt:      prompt,
	})
	return answer(out, err, ctx)
}

// answer is what the parent reads of a subagent's run: its final message,
// and why it stopped when it did not finish.
func answer(out agent.Outcome, err error, ctx context.Context) (tools.Result, error) {
	text := strings.TrimSpace(out.Text)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, err // the parent's run stops too
		}
		if errors.Is(err, agent.ErrNested) {
			return tools.Fail("%v.", err), nil
		}
		msg := fmt.Sprintf("The subagent failed: %v.", err)
		if text != "" {
			msg += "\nIts last message:\n" + text
		}
		return tools.Fail("%s", msg), nil
	}
	if text == "" {
		text = "(The subagent finished without an answer.)"
	}
	switch out.Status {
	case agent.StatusCapped:
		text += "\n\n[The subagent stopped before it was done: " + out.Reason + ".]"
	case agent.StatusPaused:
		text += "\n\n[A hook paused the subagent at the end of its turn (" + out.Reason + "); it did not go on.]"
	}
	if out.Incomplete != "" {
		text += "\n\n[Its last reply is incomplete: " + out.Incomplete + ".]"
	}
	return tools.OK(text), nil
}

// system is the system prompt of a subagent of agent d.
func (t *Task) system(d Def) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(subagentPreamble))
	if d.Prompt != "" {
		b.WriteString("\n\n# Your role\n\n" + d.Prompt)
	}
	if t.cfg.System != "" {
		b.WriteString("\n\n" + t.cfg.System)
	}
	return b.String()
}

// names lists the agents, the general one first.
func (t *Task) names() []string {
	out := []string{General}
	for _, d := range t.cfg.Agents {
		out = append(out, d.Name)
	}
	return out
}

const subagentPreamble = `You are a subagent: another agent gave you the task in the user's message, and you work on it alone with the tools you have. You cannot ask anyone a question. When you are done, answer with one final message: the agent that started you reads only that message, nothing else you did. Make it complete and to the point — what you found or did, with file paths and line numbers where they help.`

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
