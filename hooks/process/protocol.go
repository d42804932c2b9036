package process

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/wire"
)

// Version is the version of the protocol tackle speaks.
const Version = 1

// Methods tackle sends; the intercepting events have theirs in the table
// of events.go ("hook." and the event's name).
const (
	methodHello    = "hook.hello"
	methodEvent    = "hook.event"
	methodShutdown = "hook.shutdown"
)

// The modes a server may ask for in its hello.
const (
	modeObserve   = "observe"
	modeIntercept = "intercept"
	modeApprove   = "approve"
)

// JSON-RPC error codes tackle answers a server's own requests with.
const codeMethodNotFound = -32601

// request is a message tackle sends: a request (with an id) or a
// notification (without).
type request struct {
	JSONRPC string  `json:"jsonrpc"`
	ID      *uint64 `json:"id,omitempty"`
	Method  string  `json:"method"`
	Params  any     `json:"params,omitempty"`
}

// encodeRequest is one message as a line of JSON; id 0 makes a
// notification.
func encodeRequest(id uint64, method string, params any) ([]byte, error) {
	r := request{JSONRPC: "2.0", Method: method, Params: params}
	if id != 0 {
		r.ID = &id
	}
	line, err := wire.Encode(r)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", method, err)
	}
	return line, nil
}

// eventLine is a hook.event notification whose params are event, one
// JSON object.
func eventLine(event []byte) []byte {
	const head = `{"jsonrpc":"2.0","method":"` + methodEvent + `","params":`
	line := make([]byte, 0, len(head)+len(event)+2)
	line = append(line, head...)
	line = append(line, bytes.TrimSpace(event)...)
	return append(line, "}\n"...)
}

// incoming is a message a server sends: normally a response.
type incoming struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *rpcError       `json:"error"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string {
	return fmt.Sprintf("it answered with error %d: %s", e.Code, e.Message)
}

// errGarbage marks a line from a server that is not a JSON-RPC message.
var errGarbage = errors.New("stdout is for JSON-RPC messages only (write logs to stderr)")

// parseLine reads one line of a server's stdout. A response gives its id;
// a request or notification from the server gives its method (and its id,
// if any, in raw form).
func parseLine(line []byte) (msg incoming, id uint64, err error) {
	if err := json.Unmarshal(line, &msg); err != nil || msg.JSONRPC != "2.0" {
		return msg, 0, fmt.Errorf("%w; got %s", errGarbage, wire.Head(line))
	}
	if msg.Method != "" {
		return msg, 0, nil
	}
	id, err = strconv.ParseUint(string(msg.ID), 10, 64)
	switch {
	case err != nil || id == 0:
		if msg.Error != nil {
			// The server could not read a message of tackle's.
			return msg, 0, fmt.Errorf("%w (id %s)", msg.Error, msg.ID)
		}
		return msg, 0, fmt.Errorf(`a response needs the "id" of tackle's request, got %s`, wire.Head(line))
	case (msg.Result != nil) == (msg.Error != nil):
		return msg, 0, fmt.Errorf(`the response to request %d needs exactly one of "result" and "error", got %s`, id, wire.Head(line))
	}
	return msg, id, nil
}

// ---- the handshake ----

// helloParams is what tackle tells a server in hook.hello.
type helloParams struct {
	Version   int    `json:"version"`
	Name      string `json:"name"`
	Tackle    string `json:"tackle,omitempty"`
	Workspace string `json:"workspace"`
	// Events are the events the server may intercept.
	Events []string `json:"events"`
	// Observe are the types of the events hook.event carries.
	Observe []string `json:"observe,omitempty"`
	// Approve says whether the server may answer "approve".
	Approve bool `json:"approve"`
}

// helloResult is a server's answer to hook.hello.
type helloResult struct {
	Version *int     `json:"version"`
	Name    string   `json:"name"`
	Modes   []string `json:"modes"`
	Events  []string `json:"events"`
	Observe []string `json:"observe"`
}

// grant is what a server does, from its hello and its config.
type grant struct {
	// name is the name the server gave itself.
	name      string
	intercept []hooks.Event
	// observe: every event type when observeAll, else these.
	observe    []string
	observeAll bool
	approve    bool
}

func (g *grant) intercepts(ev hooks.Event) bool { return slices.Contains(g.intercept, ev) }

func (g *grant) observes(typ string) bool {
	return g.observeAll || slices.Contains(g.observe, typ)
}

// readHello checks a server's hello answer against its config and
// returns what it is granted, and warnings about what it asked for but
// does not get.
func readHello(raw json.RawMessage, cfg *config, known []string) (g grant, warnings []string, err error) {
	var h helloResult
	if err := strictObject(raw, &h); err != nil {
		return g, nil, fmt.Errorf("hello: %w", err)
	}
	switch {
	case h.Version == nil:
		// picoclaw's hooks answer their hello without a version.
		return g, nil, fmt.Errorf(`hello: "version" is missing (tackle speaks version %d; a hook written for picoclaw answers so: configure it under "picoclaw_hooks", as picoclaw's "hooks" block)`, Version)
	case *h.Version != Version:
		return g, nil, fmt.Errorf("hello: the server speaks protocol version %d; tackle speaks version %d", *h.Version, Version)
	case h.Name == "":
		return g, nil, errors.New(`hello: "name" is missing`)
	case len(h.Modes) == 0:
		return g, nil, errors.New(`hello: "modes" is empty (want some of "observe", "intercept", "approve")`)
	}
	g.name = h.Name
	modes := map[string]bool{}
	for _, m := range h.Modes {
		if m != modeObserve && m != modeIntercept && m != modeApprove {
			return g, nil, fmt.Errorf(`hello: unknown mode %q (want "observe", "intercept" or "approve")`, m)
		}
		modes[m] = true
	}
	if err := g.readIntercept(h, modes, cfg, &warnings); err != nil {
		return g, nil, err
	}
	if err := g.readObserve(h, modes[modeObserve], known, &warnings); err != nil {
		return g, nil, err
	}
	return g, warnings, nil
}

// readIntercept reads the events and the approve mode of a hello.
func (g *grant) readIntercept(h helloResult, modes map[string]bool, cfg *config, warnings *[]string) error {
	switch {
	case modes[modeIntercept] && len(h.Events) == 0:
		return fmt.Errorf(`hello: mode "intercept" needs "events" (some of %s)`, eventList())
	case !modes[modeIntercept] && len(h.Events) > 0:
		return errors.New(`hello: "events" needs mode "intercept"`)
	}
	for _, name := range h.Events {
		ev, ok := lookupEvent(name)
		switch {
		case !ok:
			return fmt.Errorf("hello: unknown event %q (want %s)", name, eventList())
		case cfg.events != nil && !slices.Contains(cfg.events, ev):
			*warnings = append(*warnings, fmt.Sprintf("it asks for %s, which its config's \"events\" does not list: not sent", name))
		case !slices.Contains(g.intercept, ev):
			g.intercept = append(g.intercept, ev)
		}
	}
	if modes[modeApprove] {
		switch {
		case !slices.Contains(g.intercept, hooks.PreToolCall):
			return errors.New(`hello: mode "approve" needs the event pre_tool_call`)
		case !cfg.approve:
			*warnings = append(*warnings, `it asks for mode "approve", which its config does not grant (set "approve": true): its approvals will fail`)
		default:
			g.approve = true
		}
	}
	return nil
}

// readObserve reads the event types a hello observes.
func (g *grant) readObserve(h helloResult, observe bool, known []string, warnings *[]string) error {
	switch {
	case !observe && len(h.Observe) > 0:
		return errors.New(`hello: "observe" needs mode "observe"`)
	case !observe:
		return nil
	case len(h.Observe) == 0:
		g.observeAll = true
		return nil
	}
	for _, typ := range h.Observe {
		if known != nil && !slices.Contains(known, typ) {
			*warnings = append(*warnings, fmt.Sprintf("it observes %q, which is not a type of event tackle sends", typ))
		}
	}
	g.observe = slices.Clone(h.Observe)
	return nil
}

// strictObject decodes raw, which must be a JSON object, into v.
func strictObject(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return fmt.Errorf("want a JSON object, got %s", wire.Head(raw))
	}
	return json.Unmarshal(raw, v)
}
