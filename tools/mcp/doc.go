// Package mcp connects tackle to Model Context Protocol servers through
// the official Go SDK (github.com/modelcontextprotocol/go-sdk): stdio
// servers tackle starts (with the environment every child of tackle
// gets, tools.ChildEnv, and their own env), and remote servers over
// streamable HTTP (or the older HTTP+SSE transport). Each server's tools
// join a tools.Registry as remote tools named mcp__SERVER__TOOL, so that
// their calls go the same way as tackle's own: pre_tool_call hooks, the
// approval policy, post_tool_call hooks, redaction, output caps and
// cancellation. A call carries a progress token (its server's progress
// reaches the caller through tools.WithProgress), and its result gives
// the model text once, and images as images (result.go).
//
// Beside the tools: the workspace is the client's root (roots/list);
// resources, resource templates and prompts are listed, read
// (Set.ReadResource) and got (Set.GetPrompt); the servers' instructions
// make a part of the system prompt (Set.Instructions); log messages go to
// the server's log; sampling and elicitation are refused, and the user is
// told.
//
// Servers start in parallel in the background (Start returns at once;
// WaitStarted waits for their first start); a server's tools join the
// registry when it is ready and leave or change when it says its list
// changed. A server that fails to start, crashes or times out is reported
// by name with the tail of its stderr; its tools then answer with an
// error saying so, and the next call of one of them starts it again, with
// a backoff between failed starts. Close shuts every server down (stdio
// servers: stdin closed, then their process group killed after a grace
// period).
package mcp
