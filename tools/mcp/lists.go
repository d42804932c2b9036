package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tackle-dev/tackle/tools"
)

// lists names what a server lists: its tools, its resources (and
// resource templates), its prompts.
type lists uint8

const (
	listTools lists = 1 << iota
	listResources
	listPrompts
	listAll = listTools | listResources | listPrompts
)

// changed records that the server on connection c said the lists what
// changed, and starts reading them again unless a refresh runs, which
// then reads them once more. The sniffer calls it as the notification
// arrives, before the SDK reads what follows, so a call whose answer
// follows the notification finds the refresh under way (settle).
func (s *server) changed(c *conn, what lists) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c || s.closed {
		return // not (or no longer) the live connection: connect lists all
	}
	s.dirty |= what
	if s.refreshing == nil {
		s.refreshing = make(chan struct{})
		go s.refresh(c, s.refreshing)
	}
}

// refresh reads the lists marked dirty on connection c until none is,
// then reports the server's status and closes done.
func (s *server) refresh(c *conn, done chan struct{}) {
	listed := false
	for {
		s.mu.Lock()
		what := s.dirty
		s.dirty = 0
		if what == 0 || s.conn != c || s.closed {
			s.refreshing = nil
			st := s.statusLocked()
			s.mu.Unlock()
			close(done)
			if listed {
				s.set.report(st)
			}
			return
		}
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(s.ctx, s.startup)
		err := s.list(ctx, c, what)
		cancel()
		if err != nil {
			s.log.Note("reading the lists again: %v", err)
			continue
		}
		listed = true
	}
}

// settle waits for a refresh of the lists under way, if any, or for ctx:
// a call's result goes to the model once the tools it added are offered.
func (s *server) settle(ctx context.Context) {
	s.mu.Lock()
	done := s.refreshing
	s.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// list reads the lists what of the server on connection c: its tools
// (an error), and, where the server offers them, its resources and
// prompts (a failure is noted in the log and leaves the last lists).
func (s *server) list(ctx context.Context, c *conn, what lists) error {
	caps := &mcp.ServerCapabilities{}
	if r := c.sess.InitializeResult(); r != nil && r.Capabilities != nil {
		caps = r.Capabilities
	}
	if what&listTools != 0 {
		if err := s.listTools(ctx, c); err != nil {
			return err
		}
	}
	if what&listResources != 0 && caps.Resources != nil {
		if err := s.listResources(ctx, c.sess); err != nil {
			s.log.Note("listing the resources: %v", err)
		}
	}
	if what&listPrompts != 0 && caps.Prompts != nil {
		if err := s.listPrompts(ctx, c.sess); err != nil {
			s.log.Note("listing the prompts: %v", err)
		}
	}
	return nil
}

// listTools lists the server's tools and makes them the server's tools in
// the registry. A tool that requires task-augmented calls is left out:
// tackle makes none, and the server refuses a plain call.
func (s *server) listTools(ctx context.Context, c *conn) error {
	var listed []*mcp.Tool
	for t, err := range c.sess.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		listed = append(listed, t)
	}
	own := make([]string, len(listed))
	for i, t := range listed {
		own[i] = t.Name
	}
	names := toolNames(s.part, own)
	var ts []*tools.Tool
	var status []ToolStatus
	var leftOut []string
	for _, t := range listed {
		s.mu.Lock()
		task := c.taskRequired[t.Name]
		s.mu.Unlock()
		if task {
			s.log.Note("tool %q left out: it requires task-augmented calls", t.Name)
			leftOut = append(leftOut, t.Name+`: it requires task-augmented calls (execution.taskSupport "required"), which tackle does not make`)
			continue
		}
		kind := tools.KindExec
		if t.Annotations != nil && t.Annotations.ReadOnlyHint {
			kind = tools.KindRead
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil || t.InputSchema == nil {
			schema = nil
		}
		title := t.Title
		if title == "" && t.Annotations != nil {
			title = t.Annotations.Title
		}
		desc := t.Description
		if desc == "" {
			desc = cmp.Or(title, t.Name) + " (a tool of the MCP server " + s.name + ")"
		}
		tool, err := tools.NewRemote(tools.Remote{
			Name: names[t.Name], Server: s.part, Tool: t.Name, Kind: kind,
			Description: desc, Schema: schema,
			Call: s.caller(t.Name),
		})
		if err != nil {
			s.log.Note("tool %q left out: %v", t.Name, err)
			leftOut = append(leftOut, fmt.Sprintf("%s: %v", t.Name, err))
			continue
		}
		ts = append(ts, tool)
		status = append(status, ToolStatus{Name: names[t.Name], Tool: t.Name, Title: title, ReadOnly: kind == tools.KindRead})
	}
	if err := s.set.opts.Registry.Replace(s.part, ts); err != nil {
		return err
	}
	s.mu.Lock()
	s.tools, s.leftOut = status, leftOut
	s.mu.Unlock()
	return nil
}

// listResources lists the server's resources and resource templates.
func (s *server) listResources(ctx context.Context, sess *mcp.ClientSession) error {
	var rs, ts []ResourceStatus
	for r, err := range sess.Resources(ctx, nil) {
		if err != nil {
			return err
		}
		rs = append(rs, ResourceStatus{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
	}
	for t, err := range sess.ResourceTemplates(ctx, nil) {
		if err != nil {
			// A server with resources but no templates may refuse the
			// method: the resources stand.
			s.log.Note("listing the resource templates: %v", err)
			break
		}
		ts = append(ts, ResourceStatus{URI: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType, Template: true})
	}
	s.mu.Lock()
	s.resources, s.templates = rs, ts
	s.mu.Unlock()
	return nil
}

// listPrompts lists the server's prompts, each with the slash command
// that sends it (mcp__SERVER__PROMPT, named as tools are).
func (s *server) listPrompts(ctx context.Context, sess *mcp.ClientSession) error {
	var listed []*mcp.Prompt
	for p, err := range sess.Prompts(ctx, nil) {
		if err != nil {
			return err
		}
		listed = append(listed, p)
	}
	own := make([]string, len(listed))
	for i, p := range listed {
		own[i] = p.Name
	}
	names := toolNames(s.part, own)
	ps := make([]PromptStatus, 0, len(listed))
	for _, p := range listed {
		ps = append(ps, PromptStatus{Name: p.Name, Command: names[p.Name], Title: p.Title, Description: p.Description, Arguments: promptArgs(p.Arguments)})
	}
	s.mu.Lock()
	s.prompts = ps
	s.mu.Unlock()
	return nil
}

func promptArgs(args []*mcp.PromptArgument) []PromptArgument {
	var out []PromptArgument
	for _, a := range args {
		if a != nil {
			out = append(out, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
	}
	return out
}
