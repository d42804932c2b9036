package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Todo is the name of the todo tool: the visible plan (Claude Code's
// TodoWrite, Codex's update_plan).
const Todo = "todo"

//go:embed descriptions/todo.md
var todoDescription string

// The bounds of a plan: how many steps, how long each.
const (
	MaxTodos     = 50
	MaxTodoChars = 300
)

// TodoStatus is where a step of the plan stands.
type TodoStatus string

// The states of a step.
const (
	TodoPending    TodoStatus = "pending"
	TodoInProgress TodoStatus = "in_progress"
	TodoCompleted  TodoStatus = "completed"
)

// TodoItem is one step of the plan.
type TodoItem struct {
	Content string     `json:"content" jsonschema:"What the step is, in a short imperative sentence."`
	Status  TodoStatus `json:"status" jsonschema:"pending, in_progress or completed. At most one step is in_progress."`
}

// TodoArgs are the arguments of todo: the whole plan.
type TodoArgs struct {
	Todos []TodoItem `json:"todos" jsonschema:"The whole plan, in order. It replaces the plan before; an empty list clears it."`
}

// Summary counts the steps by state: "4 steps: 1 done, 1 in progress".
func (a TodoArgs) Summary() string {
	if len(a.Todos) == 0 {
		return "clear the plan"
	}
	var done, doing int
	for _, t := range a.Todos {
		switch t.Status {
		case TodoCompleted:
			done++
		case TodoInProgress:
			doing++
		}
	}
	s := plural(len(a.Todos), "step")
	var parts []string
	if done > 0 {
		parts = append(parts, fmt.Sprintf("%d done", done))
	}
	if doing > 0 {
		parts = append(parts, fmt.Sprintf("%d in progress", doing))
	}
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s
}

// Check says what is wrong with the plan, or "" when nothing is.
func (a TodoArgs) Check() string {
	if len(a.Todos) > MaxTodos {
		return fmt.Sprintf("the plan has %d steps; keep it to at most %d", len(a.Todos), MaxTodos)
	}
	doing := 0
	for i, t := range a.Todos {
		switch t.Status {
		case TodoPending, TodoCompleted:
		case TodoInProgress:
			doing++
		default:
			return fmt.Sprintf("step %d has status %q; a step is pending, in_progress or completed", i+1, t.Status)
		}
		switch c := strings.TrimSpace(t.Content); {
		case c == "":
			return fmt.Sprintf("step %d says nothing", i+1)
		case utf8.RuneCountInString(c) > MaxTodoChars:
			return fmt.Sprintf("step %d is longer than %d characters; say it shorter", i+1, MaxTodoChars)
		}
	}
	if doing > 1 {
		return fmt.Sprintf("%d steps are in_progress; work on one at a time", doing)
	}
	return ""
}

type planKey struct{}

// WithPlanObserver returns ctx carrying observe, which a todo call run
// under it calls with the plan it sets, once the plan is valid. observe
// must return quickly.
func WithPlanObserver(ctx context.Context, observe func([]TodoItem)) context.Context {
	return context.WithValue(ctx, planKey{}, observe)
}

// todoTool is todo: it keeps no state of its own; each call carries the
// whole plan, which its observer (the Worker, which reports it to the
// front ends) is told.
type todoTool struct{}

func (todoTool) tool() *Tool {
	return New(Todo, todoDescription, KindRead, todoTool{}.run, previewTodo)
}

func (todoTool) run(ctx context.Context, a TodoArgs) (Result, error) {
	if why := a.Check(); why != "" {
		return Fail("The plan was not changed: %s. Send the whole plan again.", why), nil
	}
	items := make([]TodoItem, len(a.Todos))
	for i, t := range a.Todos {
		items[i] = TodoItem{Content: strings.TrimSpace(t.Content), Status: t.Status}
	}
	if observe, ok := ctx.Value(planKey{}).(func([]TodoItem)); ok && observe != nil {
		observe(items)
	}
	if len(items) == 0 {
		return OK("The plan is cleared."), nil
	}
	return OK("The plan is updated; the user sees it:\n" + FormatTodos(items) + "\nKeep it current: mark each step in_progress when you start it and completed when it is done."), nil
}

// FormatTodos writes a plan one step a line: "[x] done", "[>] doing",
// "[ ] to do".
func FormatTodos(items []TodoItem) string {
	var b strings.Builder
	for _, t := range items {
		mark := "[ ]"
		switch t.Status {
		case TodoCompleted:
			mark = "[x]"
		case TodoInProgress:
			mark = "[>]"
		}
		b.WriteString(mark + " " + t.Content + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// previewTodo shows the plan a call sets.
func previewTodo(a TodoArgs) Preview {
	p := Preview{Summary: a.Summary(), Args: []Arg{{Name: "plan", Value: FormatTodos(a.Todos)}}}
	if why := a.Check(); why != "" {
		p.Problem = "the call will fail: " + why
	}
	return p
}
