package tools

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Task is the name of the task tool, which starts a subagent: a child
// agent with a conversation of its own that works on the prompt the
// model writes and answers with its final message. The tool is defined
// here (its name and arguments, which approval, hooks and the UI read);
// what runs it is the subagent package's (NewTask's run).
const Task = "task"

// TaskArgs are the arguments of task.
type TaskArgs struct {
	Description string   `json:"description" jsonschema:"A short description of the task (3 to 5 words), shown to the user."`
	Prompt      string   `json:"prompt" jsonschema:"The task, complete in itself: the subagent sees nothing of this conversation. Say what to do, where to look and what to report back."`
	Agent       string   `json:"agent,omitempty" jsonschema:"Which agent does the task: one of those the tool's description lists. Default: general."`
	Model       string   `json:"model,omitempty" jsonschema:"The model the subagent uses. Default: the agent's own, else the one you use."`
	Tools       []string `json:"tools,omitempty" jsonschema:"Fewer tools than the agent has, by name. Default: all of the agent's."`
}

// Summary is the task's description, else its prompt's first line.
func (a TaskArgs) Summary() string {
	s := strings.TrimSpace(a.Description)
	if s == "" {
		s, _, _ = strings.Cut(strings.TrimSpace(a.Prompt), "\n")
	}
	if a.Agent != "" {
		s = a.Agent + ": " + s
	}
	return s
}

// NewTask returns the task tool: description says which agents there are,
// run runs a subagent to the end of its turn and gives its answer.
// Its kind is KindRead: the task itself changes nothing, and every call
// of its subagent goes through the hooks and the approval policy on its
// own. Its preview shows the prompt the subagent gets.
func NewTask(description string, run func(ctx context.Context, a TaskArgs) (Result, error)) *Tool {
	return New(Task, description, KindRead, run, previewTask)
}

func previewTask(a TaskArgs) Preview {
	args := []Arg{{Name: "prompt", Value: a.Prompt}}
	if a.Agent != "" {
		args = append([]Arg{{Name: "agent", Value: a.Agent}}, args...)
	}
	if a.Model != "" {
		args = append(args, Arg{Name: "model", Value: a.Model})
	}
	if len(a.Tools) > 0 {
		args = append(args, Arg{Name: "tools", Value: strings.Join(a.Tools, ", ")})
	}
	return Preview{Summary: a.Summary(), Args: args}
}

// Subset is a view of a Registry that offers only some of its tools: a
// subagent's. A call of another tool is refused as unknown, whatever
// hooks did to it. It is safe for concurrent use.
type Subset struct {
	r     *Registry
	names []string // sorted

	mu    sync.Mutex
	cache struct {
		from, specs []chat.ToolSpec // Specs' answer for the registry's specs from
	}
}

// Subset returns the view of r that offers the tools named (those r has,
// now or once they join: an MCP server's).
func (r *Registry) Subset(names []string) *Subset {
	s := &Subset{r: r, names: slices.Sorted(slices.Values(names))}
	s.names = slices.Compact(s.names)
	return s
}

// Names are the tools the view offers, sorted.
func (s *Subset) Names() []string { return slices.Clone(s.names) }

func (s *Subset) has(name string) bool {
	_, ok := slices.BinarySearch(s.names, name)
	return ok
}

// Specs lists the view's tools as the model sees them; like
// Registry.Specs, it hands out the same slice while they do not change.
func (s *Subset) Specs() []chat.ToolSpec {
	all := s.r.Specs()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(all) > 0 && len(s.cache.from) == len(all) && &s.cache.from[0] == &all[0] {
		return s.cache.specs
	}
	var out []chat.ToolSpec
	for _, spec := range all {
		if s.has(spec.Name) {
			out = append(out, spec)
		}
	}
	s.cache.from, s.cache.specs = all, out
	return out
}

// Run runs a call of one of the view's tools; any other is refused as
// unknown.
func (s *Subset) Run(ctx context.Context, call chat.ToolCall) (chat.ToolResult, error) {
	if !s.has(call.Name) {
		names := make([]string, 0, len(s.names))
		for _, spec := range s.Specs() {
			names = append(names, spec.Name)
		}
		return chat.ToolResult{CallID: call.ID, Status: chat.StatusError,
			Content: "Unknown tool \"" + call.Name + "\". The available tools are: " + strings.Join(names, ", ") + "."}, nil
	}
	return s.r.Run(ctx, call)
}

// Preview is the registry's preview of a call.
func (s *Subset) Preview(call chat.ToolCall) Preview { return s.r.Preview(call) }
