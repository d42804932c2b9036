//lint:file-ignore SA1019 the protocol of 2026-07-28 deprecates roots and logging (SEP-2577), but the servers people run speak the older protocols, where roots are how a filesystem server learns the workspace and logging is how a server explains itself: tackle keeps both while the SDK does.

package mcp

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tackle-dev/tackle/tools/chat"
)

// This file holds what the older protocols have that the newest
// deprecates: roots and log messages.

// addRoots makes the workspace dir the client's one root: a filesystem
// server then needs no path argument.
func addRoots(client *mcp.Client, dir string) {
	client.AddRoots(&mcp.Root{URI: fileURI(dir), Name: filepath.Base(dir)})
}

// fileURI is the file:// URI of the directory dir.
func fileURI(dir string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
}

// logLevel is the least severe level of the log messages (notifications/
// message) tackle asks servers for.
const logLevel = "info"

// maxLogMessage bounds a server's log message in its log.
const maxLogMessage = 4 << 10

// newProtocol reports whether the session speaks the protocol of
// 2026-07-28 or later, whose requests each carry what the handshake
// carried before (the log level among it).
func newProtocol(sess *mcp.ClientSession) bool {
	r := sess.InitializeResult()
	return r != nil && r.ProtocolVersion >= "2026-07-28"
}

// keepLogs makes the client keep the server's log messages in its log.
func (s *server) keepLogs(opts *mcp.ClientOptions) { opts.LoggingMessageHandler = s.logged }

// askForLogs asks a server of an older protocol that logs for its log
// messages (logging/setLevel); the newer protocol asks with each request
// (askForLogsWith).
func (s *server) askForLogs(ctx context.Context, sess *mcp.ClientSession) {
	r := sess.InitializeResult()
	if r == nil || r.Capabilities == nil || r.Capabilities.Logging == nil || newProtocol(sess) {
		return
	}
	if err := sess.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: logLevel}); err != nil {
		s.log.Note("asking for log messages: %v", err)
	}
}

// askForLogsWith asks for the log messages of one request in its meta,
// in the newer protocol.
func askForLogsWith(sess *mcp.ClientSession, meta mcp.Meta) {
	if newProtocol(sess) {
		meta[mcp.MetaKeyLogLevel] = logLevel
	}
}

// logged keeps a log message of the server in its log.
func (s *server) logged(_ context.Context, req *mcp.LoggingMessageRequest) {
	p := req.Params
	if p == nil {
		return
	}
	data, ok := p.Data.(string)
	if !ok {
		b, _ := json.Marshal(p.Data)
		data = string(b)
	}
	logger := ""
	if p.Logger != "" {
		logger = " " + p.Logger
	}
	s.log.Note("log %s%s: %s", p.Level, logger, chat.OneLine(s.hidden(data), maxLogMessage))
}
