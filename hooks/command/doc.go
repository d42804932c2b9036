// Package command runs one-shot command hooks: an external program started
// once per hook call, which reads the event as one JSON object on stdin and
// answers with its exit status and, optionally, one JSON object on stdout.
// The format follows the command hooks of Claude Code (exit status 2
// blocks, with stderr as the reason). docs/hooks.md is the user's guide.
//
// # Configuration
//
// A config file's "hooks" object maps event names to lists of Specs:
//
//	{"hooks": {
//	  "on_turn_end":   [{"name": "tests", "command": ["./scripts/check.sh"], "timeout": "5m"}],
//	  "pre_tool_call": [{"name": "no-rm", "command": "./scripts/no-rm.sh", "tools": ["bash"], "priority": 10}]
//	}}
//
// RegisterAll registers such a map on a hooks.Registry; Register registers
// one Spec.
//
// # Running
//
// "command" is an argv array, executed directly (a bare name is looked up
// in tackle's PATH; a relative path is relative to the workspace), or a
// string, run with /bin/sh -c. Register refuses a hook whose program is
// missing or not executable (for a string, its first command, where that
// can be known before it runs; docs/hooks.md says which), and a name that another
// hook of the event already has. The process runs in the workspace, in a new
// process group, with:
//
//	stdin   one JSON object (the input below), then end of file
//	env     tackle's environment without OPENAI_API_KEY, plus the Spec's
//	        "env" (which may set OPENAI_API_KEY again), plus
//	        TACKLE_EVENT (e.g. pre_tool_call), TACKLE_WORKSPACE and
//	        TACKLE_HOOK_NAME
//
// stdout may hold at most 1 MiB; of stderr the last 64 KiB are kept. When
// the timeout (default 60s, at most 10m) passes or the run is cancelled,
// the whole process group is killed. When the hook's process exits,
// whatever is left of its group (background children) is killed too: a
// hook that means to leave something running must detach it into its own
// session (setsid).
//
// # Input
//
// Every input has "event" (the snake_case event name) and "workspace".
// Tool calls are {"id", "name", "arguments"}, where arguments is the JSON
// value the model sent (normally an object), or the raw text as a JSON
// string if it is not valid JSON. Messages are {"role", "content",
// "tool_calls"?, "tool_call_id"?}.
//
//	on_prompt_submit  "prompt": the user's message
//	pre_llm_request   "model", "request" (1 for the first request of a run),
//	                  "messages": the context about to be sent
//	pre_tool_call     "tool_call"
//	post_tool_call    "tool_call", "result": {"status", "content"}
//	                  (status is ok, error, skipped or denied)
//	on_turn_end       "final": the assistant's final text, "round": the
//	                  continue_with_messages rounds already spent,
//	                  "messages": the conversation
//	on_abort          "reason", "error" (if the run ended on an error)
//	pre_compact       "trigger" (auto, overflow or manual), "focus",
//	                  "summary" ("" when only old tool outputs are
//	                  pruned), "replaced", "pruned", "tokens",
//	                  "tokens_after", "window" (0 when unknown),
//	                  "messages": the conversation after the compaction
//
// # Output
//
// Exit status 0 with nothing on stdout (white space aside) means go on:
// continue, or finish for on_turn_end. Exit status 0 with a JSON object on
// stdout decides:
//
//	{"action": "...", "reason": "...", ...}
//
//	on_prompt_submit  continue | cancel;  "prompt": replacement text
//	pre_llm_request   continue | cancel
//	pre_tool_call     continue | skip | abort | pause;
//	                  "arguments": replacement arguments (a JSON object)
//	post_tool_call    continue | abort;  "output": replacement content
//	on_turn_end       finish | continue_with_messages | paused;
//	                  "messages": the messages to add, required and non-empty
//	                  for continue_with_messages: strings (user messages)
//	                  or {"role": "user"|"system", "content"} objects
//	on_abort          stdout is not read
//	pre_compact       continue | cancel;  "summary": replacement text of
//	                  the summary (ignored when there is none)
//
// "action" is required. Replacements are applied only when the hook
// succeeds. Unknown fields are ignored. An action that is not one of the
// event's, a replacement of the wrong type, or stdout that is not exactly
// one JSON object makes the hook fail (so logs belong on stderr).
//
// Exit status 2 blocks, with stderr as the reason (stdout is not read):
//
//	on_prompt_submit  cancel
//	pre_llm_request   cancel
//	pre_tool_call     skip: the model is told the reason
//	post_tool_call    continue, with "Hook feedback (NAME): STDERR"
//	                  appended to the tool result the model reads (if
//	                  stderr is not empty)
//	on_turn_end       continue_with_messages with STDERR as one user
//	                  message (a Claude Code Stop hook's retry)
//	on_abort          a failure: nothing can be blocked
//	pre_compact       cancel: the conversation is left as it is
//
// Any other exit status, a signal, a timeout, too much output or a command
// that cannot start makes the hook fail; the error names the exit status
// and ends with the last 2 KiB of stderr. A failure means what the hook's
// error policy says ("on_error"): by default pre_tool_call fails closed
// (the call is skipped) and the other events fail open with a warning.
package command
