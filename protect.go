package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/chat"
	"github.com/tackle-dev/tackle/agent/config"
	"github.com/tackle-dev/tackle/agent/headless"
	"github.com/tackle-dev/tackle/hooks/approval"
)

// protection is what the approval policy protects beyond the names it
// knows (.git, .env, .bashrc …): tackle's config and state directories,
// the home directory's files, and the scripts the config runs as hooks
// and checks. skip is --dangerously-skip-protection.
func protection(cfg config.Config, root string, getenv func(string) string, skip bool) approval.Protection {
	home := getenv("HOME")
	pr := approval.Protection{Home: home, Off: skip}
	if p, err := config.UserPath(getenv); err == nil {
		pr.ConfigDir = filepath.Dir(p)
	}
	switch state := getenv("XDG_STATE_HOME"); {
	case state != "":
		pr.StateDir = filepath.Join(state, "tackle")
	case home != "":
		pr.StateDir = filepath.Join(home, ".local", "state", "tackle")
	}
	if cfg.Path != "" {
		pr.Files = append(pr.Files, cfg.Path)
	}
	pr.Files = append(pr.Files, hookScripts(cfg, root)...)
	return pr
}

// hookScripts returns the files the config's command hooks and check
// commands run, as absolute paths: every word of their commands that is a
// path (it has a /, or names a file in the workspace, where they run). A
// script that does not exist yet is included: the model must not be able
// to create it either.
func hookScripts(cfg config.Config, root string) []string {
	var words []string
	for _, specs := range cfg.Hooks {
		for _, s := range specs {
			words = append(words, s.Command.Argv...)
			words = append(words, strings.Fields(s.Command.Script)...)
		}
	}
	for _, c := range cfg.Checks.Commands {
		words = append(words, c.Run...)
	}
	var out []string
	for _, w := range words {
		w = strings.Trim(w, `'"`)
		if w == "" || strings.HasPrefix(w, "-") {
			continue
		}
		p := w
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		if !strings.Contains(w, "/") {
			if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
				continue // a program found in PATH, or not a file at all
			}
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

// protectedRunner keeps --yes from approving a call that writes a
// protected path: --yes answers the questions of a run nobody watches,
// and a protected path is asked about because a change there can run code
// later. Such a call is denied with a reason saying how to allow it (a
// rule naming the path, or --dangerously-skip-protection).
type protectedRunner struct {
	headless.Runner
	policy  *approval.Policy
	stderr  io.Writer
	pending map[string]chat.ToolCall
	denied  int // calls denied here
}

func (r *protectedRunner) Run(ctx context.Context, input string) (agent.Outcome, error) {
	out, err := r.Runner.Run(ctx, input)
	r.note(out)
	return out, err
}

func (r *protectedRunner) Resume(ctx context.Context, decisions []agent.Decision) (agent.Outcome, error) {
	for i, d := range decisions {
		call, ok := r.pending[d.CallID]
		if !ok || d.Verdict != agent.Approve {
			continue
		}
		why := r.policy.Protected(call)
		if why == "" {
			continue
		}
		r.denied++
		decisions[i] = agent.Decision{CallID: d.CallID, Verdict: agent.Deny, Reason: "tackle is running non-interactively and --yes does not approve writes to protected paths: " + why +
			". Do not retry it or try another way to write there; finish without it or tell the user what you needed to change."}
		fmt.Fprintf(r.stderr, "tackle: denied %s\n        (%s; --yes does not approve it: allow exactly this path, or pass --dangerously-skip-protection)\n",
			headless.Summary(call), why)
	}
	out, err := r.Runner.Resume(ctx, decisions)
	r.note(out)
	return out, err
}

// note remembers the pending calls of a paused run.
func (r *protectedRunner) note(out agent.Outcome) {
	r.pending = make(map[string]chat.ToolCall, len(out.Pending))
	for _, p := range out.Pending {
		r.pending[p.Call.ID] = p.Call
	}
}
