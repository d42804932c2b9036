package app

// tackle permissions: list and revoke the allow and deny rules of the user
// config file; list the rules of the Claude Code settings tackle reads.

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/hooks/approval"
)

type permissionsCmd struct {
	List   rulesListCmd   `cmd:"" default:"1" help:"List the allow and deny rules of the user config file, and the rules of the Claude Code settings tackle reads (the default)."`
	Revoke rulesRevokeCmd `cmd:"" help:"Remove an allow or deny rule from the user config file (every copy of it, in both lists)."`
}

// rulesListCmd is `tackle permissions list`.
type rulesListCmd struct{}

// rulesRevokeCmd is `tackle permissions revoke RULE`.
type rulesRevokeCmd struct {
	Rule string `arg:"" help:"The rule to remove, as listed, e.g. 'bash(go test *)'."`
}

// sessionRulesNote says where the rules that are not in the file live.
const sessionRulesNote = `--allow and --deny add rules to one run. Rules added with "approve always" ` +
	`(a in the approval dialog) last for their session, also when it is continued (-c, --resume): ` +
	`/permissions in the interactive UI lists and revokes them, and saves one in this file or the project's.`

// Run lists the user config's rules, and those of the Claude Code
// settings of the user (claude_hooks.user) and of the workspace.
func (rulesListCmd) Run(c *cli, stdio Streams, user config.Config) error {
	path, err := config.UserPath(stdio.Env.get)
	if err != nil {
		return err
	}
	proj, untrusted, err := listProject(c.Workspace, stdio.Env)
	if err != nil {
		return err
	}
	root, err := absWorkspace(c.Workspace)
	if err != nil {
		return err
	}
	cp, err := claudePermissions(user, proj, stdio.Env, root)
	if err != nil {
		return usageError{config.InFile(user.Path, err)}
	}
	listRules(path, user, stdio.Out)
	listClaudeRules(cp, untrusted, stdio.Out)
	fmt.Fprintln(stdio.Out, sessionRulesNote)
	return nil
}

// listClaudeRules prints the rules of the Claude Code settings tackle
// reads, as tackle applies them, each with the file, the field and the
// rule as written there; what it does not apply; and the project's
// settings files it does not read until they are trusted.
func listClaudeRules(cp claudePerms, untrusted []projectFile, w io.Writer) {
	var skipped []string
	for _, f := range untrusted {
		if filepath.Base(filepath.Dir(f.path)) == ".claude" {
			skipped = append(skipped, f.path)
		}
	}
	if len(cp.perms)+len(cp.notes)+len(skipped)+len(cp.projectModes)+len(cp.userModes) == 0 {
		return
	}
	fmt.Fprintln(w, "Rules from Claude Code settings (deny wins over ask, ask over allow):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range cp.perms {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", p.Effect(), p.Rule, shownRule(p.Origin))
	}
	for _, m := range slices.Concat(cp.projectModes, cp.userModes) {
		fmt.Fprintf(tw, "  mode\t%s\t%s: permissions.defaultMode (a flag, the environment or a tackle config wins)\n", m.mode, m.path)
	}
	tw.Flush()
	for _, n := range cp.notes {
		fmt.Fprintf(w, "  %s\n", shownRule(n))
	}
	for _, p := range skipped {
		fmt.Fprintf(w, "  %s is not trusted: its rules do not apply (trust it as it is: start tackle in the workspace, or pass --trust-project)\n", p)
	}
}

// Run removes the rule from the user config file.
func (r *rulesRevokeCmd) Run(stdio Streams, user config.Config) error {
	path, err := config.UserPath(stdio.Env.get)
	if err != nil {
		return err
	}
	return revokeRule(path, user, r.Rule, stdio.Out)
}

// listRules prints the config file's rules: deny rules, then allow rules.
func listRules(path string, cfg config.Config, w io.Writer) {
	switch {
	case cfg.Path == "":
		fmt.Fprintf(w, "No config file at %s: no allow or deny rules.\n", path)
	case len(cfg.Allow)+len(cfg.Deny) == 0:
		fmt.Fprintf(w, "No allow or deny rules in %s.\n", path)
	default:
		fmt.Fprintf(w, "Rules in %s (deny wins over allow):\n", path)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, l := range []struct {
			effect string
			rules  []string
		}{{"deny", cfg.Deny}, {"allow", cfg.Allow}} {
			for _, s := range l.rules {
				r, err := approval.ParseRule(s)
				if err != nil {
					fmt.Fprintf(tw, "  %s\t%s\t(invalid: %v)\n", l.effect, shownRule(s), err)
					continue
				}
				fmt.Fprintf(tw, "  %s\t%s\n", l.effect, r)
			}
		}
		tw.Flush()
		fmt.Fprintf(w, "Remove one with: tackle permissions revoke 'RULE'\n")
	}
}

// revokeRule removes every copy of rule from the allow and deny lists of
// the config file at path. A rule matches one in the file when both parse
// to the same rule ("bash(go  test *)" is "bash(go test *)"); a rule of
// the file that does not parse matches its exact text, so that it can be
// removed too.
func revokeRule(path string, cfg config.Config, rule string, w io.Writer) error {
	want, perr := approval.ParseRule(rule)
	if cfg.Path == "" {
		return fmt.Errorf("no config file at %s: there is no rule to revoke", path)
	}
	removed, err := config.RemoveStrings(cfg.Path, []string{"allow", "deny"}, func(_, v string) bool {
		if got, err := approval.ParseRule(v); err == nil {
			return perr == nil && got == want
		}
		return strings.TrimSpace(v) == strings.TrimSpace(rule)
	})
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		if perr != nil {
			return usageError{perr}
		}
		var have []string
		for _, s := range append(cfg.Deny, cfg.Allow...) {
			have = append(have, shownRule(s))
		}
		if len(have) == 0 {
			return fmt.Errorf("%s has no allow or deny rules", cfg.Path)
		}
		return fmt.Errorf("%s has no rule %s (its rules: %s)", cfg.Path, want, strings.Join(have, ", "))
	}
	for _, r := range removed {
		fmt.Fprintf(w, "Removed the %s rule %s (%s[%d]) from %s.\n", r.Field, shownRule(r.Value), r.Field, r.Index, cfg.Path)
	}
	return nil
}

// shownRule is a rule from the file as the terminal can show it: quoted
// when it holds anything but printable text (a line break, control
// characters, bidi overrides), so that it is one line and shows what it
// holds.
func shownRule(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) {
		return fmt.Sprintf("%q", s)
	}
	return s
}
