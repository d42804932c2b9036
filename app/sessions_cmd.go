package app

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/tools/chat"
)

// sessionsCmd is `tackle sessions`: the workspace's sessions, newest
// first.
type sessionsCmd struct{}

// Run lists the sessions of the workspace as a table, a JSON array
// (--output json) or one JSON object per line (stream-json).
func (sessionsCmd) Run(c *cli, stdio Streams) error {
	store := sessionStore(stdio.Env)
	if store == nil {
		return usagef("no state directory to find sessions in (set HOME or XDG_STATE_HOME)")
	}
	root, err := workspaceRoot(c.Workspace)
	if err != nil {
		return err
	}
	list, err := store.List(root)
	if err != nil {
		return err
	}
	switch c.Output {
	case "json":
		if list == nil {
			list = []session.Info{}
		}
		enc := json.NewEncoder(stdio.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	case "stream-json":
		enc := json.NewEncoder(stdio.Out)
		for _, in := range list {
			if err := enc.Encode(in); err != nil {
				return err
			}
		}
		return nil
	}
	if len(list) == 0 {
		_, err := fmt.Fprintf(stdio.Out, "No sessions in %s yet.\n", root)
		return err
	}
	tw := tabwriter.NewWriter(stdio.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLAST USED\tTURNS\tSTATUS\tMODEL\tFIRST PROMPT")
	for _, in := range list {
		status := in.Status
		if status == "" {
			status = "-"
		}
		prompt := chat.OneLine(in.FirstPrompt, 60)
		if in.Unreadable != "" {
			status, prompt = "unreadable", in.Unreadable+": "+in.Path
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", in.ID, in.Updated.Format("2006-01-02 15:04"), in.Turns, status, in.Model, prompt)
	}
	return tw.Flush()
}
