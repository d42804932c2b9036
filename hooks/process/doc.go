// Package process runs process hooks: long-lived hook servers that tackle
// starts once per session and talks to over stdio with JSON-RPC 2.0, one
// JSON object per line. docs/hooks.md is the user's guide; this is the
// short version.
//
// # Handshake
//
// tackle sends the request hook.hello with its protocol version, the
// server's configured name, the workspace, the events the server may
// intercept, the event types hook.event carries and whether it may
// approve calls. The server answers with its protocol version (1), its
// own name, its modes (observe, intercept, approve) and, for intercept,
// the events it wants and, for observe, the event types (none: all). A
// server whose handshake fails — no answer within its timeout, another
// version, a mode or event tackle does not know — is reported by name and
// not used.
//
// # Intercepting
//
// For each event it intercepts, a server is one hook of the registry,
// named after it: a request "hook." + the event's name, whose params are
// the input of command hooks (package wire), answered with a result
// object: an action and the changes the event allows (events.go). Every
// request has an id, and answers may come in any order. Each request is
// bounded by the server's timeout; a failure (an error answer, a result
// that is not valid, a timeout, a crash, a line on stdout that is not a
// JSON-RPC message) is the hook's failure, and its error policy decides.
//
// # Observing
//
// Set.Observe sends the agent's events as hook.event notifications to the
// servers that observe their type. It never waits: each server has a
// queue of at most 1024 notifications or 8 MiB, past which they are
// dropped, counted and reported.
//
// # picoclaw's hooks
//
// StartAll also runs picoclaw's process hooks, from the "hooks" block of
// picoclaw's config (PicoclawHooks), in picoclaw's own protocol
// (picoclaw.go): its hello, its stages on tackle's events (before_tool and
// approve_tool on pre_tool_call, after_tool on post_tool_call, before_llm
// on pre_llm_request, after_llm on on_turn_end), its actions, and the
// events it observes as hook.runtime_event notifications in picoclaw's
// envelope (picoclaw_events.go). Its timeouts and error policy are
// picoclaw's: an interceptor that fails is passed over, an approve_tool
// that fails denies the call; "approved": true is no objection, never an
// approval.
//
// # Crashes and shutdown
//
// A server that exits is restarted, after 200ms doubling to 5s for each
// restart in a row that answered no request, at most 5 times in a row;
// requests in flight when it exited fail, and later ones wait for the
// restart within their timeout. Its stderr goes to LogDir/NAME.log. Close
// sends hook.shutdown, closes stdin, and after a grace period kills the
// server's process group; whatever the server left in its group is
// killed when it exits.
package process
