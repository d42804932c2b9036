package app

// tackle permissions: list and revoke the allow and deny rules of the user
// config file.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/hooks/approval"
)

type permissionsCmd struct {
	List   rulesListCmd   `cmd:"" default:"1" help:"List the allow and deny rules of the user config file (the default)."`
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
	`(a in the approval dialog) live only in the running session (a session continued later starts without them): ` +
	`/permissions in the interactive UI lists and revokes them.`

// Run lists the user config's rules.
func (rulesListCmd) Run(stdio Streams, user config.Config) error {
	path, err := config.UserPath(stdio.Env.get)
	if err != nil {
		return err
	}
	listRules(path, user, stdio.Out)
	return nil
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
	fmt.Fprintln(w, sessionRulesNote)
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
