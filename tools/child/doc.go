// Package child holds what tackle needs to keep a long-lived child
// process (a hook server, an MCP server) in hand: a process group of its
// own, so that killing it reaches everything it started; a log file of
// its stderr and tackle's notes about it; and the tail of that stderr for
// the message that says why it died. It imports nothing of tackle.
package child
