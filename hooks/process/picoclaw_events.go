package process

// What a picoclaw hook observes: tackle's events as picoclaw's runtime
// events (pkg/events), hook.runtime_event notifications whose params are
// picoclaw's Event envelope {id, kind, time, source, scope, correlation,
// severity, payload, attrs} with picoclaw's payload types (their Go field
// names: {"Tool": ..., "Arguments": ...}).

import (
	"encoding/json"
	"strconv"
	"time"
)

// picoKinds are picoclaw's runtime event kinds (pkg/events/kind.go), and
// picoLegacyKinds the older names its observe lists still accept.
var picoKinds = []string{
	"agent.turn.start", "agent.turn.end", "agent.llm.request", "agent.llm.delta", "agent.llm.response",
	"agent.llm.retry", "agent.context.compress", "agent.session.summarize", "agent.tool.exec_start",
	"agent.tool.exec_end", "agent.tool.exec_skipped", "agent.steering.injected", "agent.follow_up.queued",
	"agent.interrupt.received", "agent.subturn.spawn", "agent.subturn.end", "agent.subturn.result_delivered",
	"agent.subturn.orphan", "agent.error",
	"channel.lifecycle.started", "channel.lifecycle.initialized", "channel.lifecycle.start_failed",
	"channel.lifecycle.stopped", "channel.webhook.registered", "channel.webhook.unregistered",
	"channel.message.outbound_queued", "channel.message.outbound_sent", "channel.message.outbound_failed",
	"channel.rate_limited",
	"bus.publish.failed", "bus.close.started", "bus.close.completed", "bus.close.drained",
	"gateway.start", "gateway.ready", "gateway.shutdown", "gateway.reload.started", "gateway.reload.completed",
	"gateway.reload.failed",
	"mcp.server.connected", "mcp.server.connecting", "mcp.server.failed", "mcp.tool.discovered",
	"mcp.tool.call.start", "mcp.tool.call.end",
}

var picoLegacyKinds = map[string]string{
	"turn_start": "agent.turn.start", "turn_end": "agent.turn.end", "llm_request": "agent.llm.request",
	"llm_delta": "agent.llm.delta", "llm_response": "agent.llm.response", "llm_retry": "agent.llm.retry",
	"context_compress": "agent.context.compress", "session_summarize": "agent.session.summarize",
	"tool_exec_start": "agent.tool.exec_start", "tool_exec_end": "agent.tool.exec_end",
	"tool_exec_skipped": "agent.tool.exec_skipped", "steering_injected": "agent.steering.injected",
	"follow_up_queued": "agent.follow_up.queued", "interrupt_received": "agent.interrupt.received",
	"subturn_spawn": "agent.subturn.spawn", "subturn_end": "agent.subturn.end",
	"subturn_result_delivered": "agent.subturn.result_delivered", "subturn_orphan": "agent.subturn.orphan",
	"error": "agent.error",
}

// picoKind is the runtime kind an observe entry names, normalized as
// picoclaw does; false for a name picoclaw does not know.
func picoKind(name string) (string, bool) {
	if k, ok := picoLegacyKinds[name]; ok {
		return k, true
	}
	for _, k := range picoKinds {
		if k == name {
			return k, true
		}
	}
	return "", false
}

// picoKindsOf are the runtime kinds each type of tackle event becomes;
// tackle's other events have none.
var picoKindsOf = map[string][]string{
	"tool_call_started":  {"agent.tool.exec_start"},
	"tool_call_finished": {"agent.tool.exec_end", "agent.tool.exec_skipped"},
	"assistant_message":  {"agent.llm.response"},
	"text_delta":         {"agent.llm.delta"},
	"reasoning_delta":    {"agent.llm.delta"},
	"model_retry":        {"agent.llm.retry"},
	"compaction":         {"agent.context.compress"},
	"turn_finished":      {"agent.turn.end"},
	"error":              {"agent.error"},
	"mcp_server":         {"mcp.server.connecting", "mcp.server.connected", "mcp.server.failed"},
}

// picoSentKinds are the runtime kinds tackle sends.
var picoSentKinds = []string{
	"agent.turn.end", "agent.llm.delta", "agent.llm.response", "agent.llm.retry", "agent.context.compress",
	"agent.tool.exec_start", "agent.tool.exec_end", "agent.tool.exec_skipped", "agent.error",
	"mcp.server.connecting", "mcp.server.connected", "mcp.server.failed",
}

// picoEvent is picoclaw's runtime Event.
type picoEvent struct {
	ID          string            `json:"id"`
	Kind        string            `json:"kind"`
	Time        time.Time         `json:"time"`
	Source      picoEventSource   `json:"source"`
	Scope       picoEventScope    `json:"scope"`
	Correlation picoEventTrace    `json:"correlation"`
	Severity    string            `json:"severity,omitempty"`
	Payload     any               `json:"payload,omitempty"`
	Attrs       map[string]string `json:"attrs,omitempty"`
}

type picoEventSource struct {
	Component string `json:"component"`
	Name      string `json:"name,omitempty"`
}

type picoEventScope struct {
	AgentID    string `json:"agent_id,omitempty"`
	SessionKey string `json:"session_key,omitempty"`
	TurnID     string `json:"turn_id,omitempty"`
}

type picoEventTrace struct {
	TraceID string `json:"trace_id,omitempty"`
}

// tackleEvent is what the mapping reads of a tackle event, as
// --output stream-json prints it.
type tackleEvent struct {
	Call *struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"call"`
	Result *struct {
		Status  string `json:"status"`
		Content string `json:"content"`
	} `json:"result"`
	Duration int64 `json:"duration_ns"`
	Message  *struct {
		Content   string            `json:"content"`
		Reasoning string            `json:"reasoning"`
		ToolCalls []json.RawMessage `json:"tool_calls"`
	} `json:"message"`
	Text     string `json:"text"`
	Attempt  int    `json:"attempt"`
	Retries  int    `json:"retries"`
	Wait     int64  `json:"wait_ns"`
	Error    string `json:"error"`
	Replaced int    `json:"replaced"`
	Trigger  string `json:"trigger"`
	Outcome  *struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
		Text   string `json:"text"`
	} `json:"outcome"`
	Server string `json:"server"`
	State  string `json:"state"`
	Tools  int    `json:"tools"`
}

// picoEventOf makes the runtime event of a tackle event of type typ
// (its stream-json form); false when it has none.
func (s *Set) picoEventOf(typ string, event []byte) (picoEvent, bool) {
	// "message" is an object in assistant_message and a string in
	// error events.
	var e tackleEvent
	var msg struct {
		Message string `json:"message"`
	}
	if typ == "error" {
		if err := json.Unmarshal(event, &msg); err != nil {
			return picoEvent{}, false
		}
	} else if err := json.Unmarshal(event, &e); err != nil {
		return picoEvent{}, false
	}
	ev := picoEvent{
		Source:   picoEventSource{Component: "agent", Name: picoAgentID},
		Scope:    picoEventScope{AgentID: picoAgentID, SessionKey: s.sessionKey(), TurnID: s.turnID()},
		Severity: "info",
	}
	trace := ""
	switch typ {
	case "tool_call_started":
		if e.Call == nil {
			return ev, false
		}
		ev.Kind, trace = "agent.tool.exec_start", "turn.tool.start"
		ev.Payload = struct {
			Tool      string
			Arguments json.RawMessage
		}{e.Call.Name, picoArguments(e.Call.Arguments)}
	case "tool_call_finished":
		if e.Call == nil || e.Result == nil {
			return ev, false
		}
		if e.Result.Status == "ok" || e.Result.Status == "error" {
			ev.Kind, trace = "agent.tool.exec_end", "turn.tool.end"
			ev.Payload = struct {
				Tool       string
				Duration   int64
				ForLLMLen  int
				ForUserLen int
				IsError    bool
				Async      bool
			}{Tool: e.Call.Name, Duration: e.Duration, ForLLMLen: len(e.Result.Content), IsError: e.Result.Status == "error"}
			if e.Result.Status == "error" {
				ev.Severity = "warn"
			}
		} else {
			ev.Kind, trace, ev.Severity = "agent.tool.exec_skipped", "turn.tool.skipped", "warn"
			ev.Payload = struct{ Tool, Reason string }{e.Call.Name, e.Result.Content}
		}
	case "assistant_message":
		if e.Message == nil {
			return ev, false
		}
		ev.Kind, trace = "agent.llm.response", "turn.llm.response"
		ev.Payload = struct {
			ContentLen   int
			ToolCalls    int
			HasReasoning bool
		}{len(e.Message.Content), len(e.Message.ToolCalls), e.Message.Reasoning != ""}
	case "text_delta", "reasoning_delta":
		ev.Kind, trace = "agent.llm.delta", "turn.llm.delta"
		p := struct{ ContentDeltaLen, ReasoningDeltaLen int }{}
		if typ == "text_delta" {
			p.ContentDeltaLen = len(e.Text)
		} else {
			p.ReasoningDeltaLen = len(e.Text)
		}
		ev.Payload = p
	case "model_retry":
		ev.Kind, trace, ev.Severity = "agent.llm.retry", "turn.llm.retry", "warn"
		ev.Payload = struct {
			Attempt    int
			MaxRetries int
			Reason     string
			Error      string
			Backoff    int64
		}{Attempt: e.Attempt, MaxRetries: e.Retries, Reason: "error", Error: e.Error, Backoff: e.Wait}
	case "compaction":
		ev.Kind, trace, ev.Severity = "agent.context.compress", "turn.context.compress", "warn"
		reason := "proactive_budget"
		if e.Trigger == "overflow" {
			reason = "llm_retry"
		}
		ev.Payload = struct {
			Reason            string
			DroppedMessages   int
			RemainingMessages int
		}{Reason: reason, DroppedMessages: e.Replaced}
	case "turn_finished":
		if e.Outcome == nil {
			return ev, false
		}
		ev.Kind, trace = "agent.turn.end", "turn.end"
		status := "completed"
		switch e.Outcome.Status {
		case "aborted":
			status, ev.Severity = "aborted", "warn"
		case "paused", "capped":
			status = e.Outcome.Status
		}
		ev.Payload = struct {
			Status          string
			FinalContentLen int
			FinalContent    string
		}{status, len(e.Outcome.Text), e.Outcome.Text}
	case "error":
		ev.Kind, trace, ev.Severity = "agent.error", "turn.error", "error"
		ev.Payload = struct{ Stage, Message string }{"turn", msg.Message}
	case "mcp_server":
		switch e.State {
		case "starting":
			ev.Kind = "mcp.server.connecting"
		case "ready":
			ev.Kind = "mcp.server.connected"
		case "failed":
			ev.Kind, ev.Severity = "mcp.server.failed", "error"
		default:
			return ev, false
		}
		ev.Source = picoEventSource{Component: "mcp", Name: e.Server}
		ev.Scope = picoEventScope{}
		ev.Payload = struct {
			Server    string `json:"server"`
			ToolCount int    `json:"tool_count,omitempty"`
			Error     string `json:"error,omitempty"`
		}{e.Server, e.Tools, e.Error}
	default:
		return ev, false
	}
	if trace != "" {
		ev.Correlation.TraceID = trace
		ev.Attrs = map[string]string{"agent_source": "runTurn"}
	}
	ev.ID = "evt-" + strconv.FormatUint(s.eventSeq.Add(1), 10)
	ev.Time = time.Now().UTC()
	return ev, true
}
