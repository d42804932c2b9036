package hooks

import "context"

// MainAgent is the ID of the agent the user talks to: every conversation's
// top agent. A subagent (a child Worker started by the task tool) has an
// ID of its own and names its parent.
const MainAgent = "main"

// Agent names the agent whose turn a hook runs in: the main agent, or a
// subagent and the agent that started it. Every hook sees it (AgentOf on
// the context of its call); hooks outside the process get it as "agent"
// in every input.
type Agent struct {
	// ID is MainAgent, or a subagent's ID: the ID of the task call that
	// started it, unique in its parent's conversation.
	ID string `json:"id"`
	// Parent is the ID of the agent that started a subagent; "" for the
	// main agent.
	Parent string `json:"parent,omitempty"`
	// Type is a subagent's kind: the custom agent it runs as, or
	// "general" (see subagent.Def).
	Type string `json:"type,omitempty"`
}

// Child reports whether a is a subagent.
func (a Agent) Child() bool { return a.Parent != "" }

type agentKey struct{}

// WithAgent returns ctx carrying a: the chains the Worker runs under it
// tell their hooks whose turn it is.
func WithAgent(ctx context.Context, a Agent) context.Context {
	return context.WithValue(ctx, agentKey{}, a)
}

// AgentOf returns the agent ctx carries, or the main agent when it
// carries none.
func AgentOf(ctx context.Context) Agent {
	if a, ok := ctx.Value(agentKey{}).(Agent); ok {
		return a
	}
	return Agent{ID: MainAgent}
}
