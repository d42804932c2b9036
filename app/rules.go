package app

// Rules that outlast one answer. "Approve always" gives session rules,
// which the session file keeps, so that a session continued later (-c,
// --resume, /resume) has them back; /permissions revoking one is kept
// too. The approval dialog and /permissions can also save a rule to the
// user's config file or to the project's trusted one (ruleFiles).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/app/config"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools/chat"
)

// remember is a Worker's OnApproveAlways: the policy's session rules for
// call, each recorded in cv's session.
func (h *harness) remember(cv *conversation) func(chat.ToolCall) {
	return func(call chat.ToolCall) {
		for _, r := range h.policy.Remember(call) {
			cv.addRule(session.RuleChange{Rule: r.String()})
		}
	}
}

// addRule records a session rule added or revoked, when cv records.
func (cv *conversation) addRule(c session.RuleChange) {
	if cv.rec != nil {
		cv.rec.Append(session.Record{Kind: session.KindRule, Rule: &c})
	}
}

// restoreRules makes the session rules of the continued session l the
// policy's (those of the conversation before go: the UI's /resume
// switches session); a rule that no longer parses is left out, with a
// warning.
func (h *harness) restoreRules(l *session.Loaded, warn func(error)) {
	var rules []approval.Rule
	for _, s := range l.SessionRules() {
		r, err := approval.ParseRule(s)
		if err != nil {
			warn(fmt.Errorf("session %s: the session rule %q is left out: %w", l.Header.ID, s, err))
			continue
		}
		rules = append(rules, r)
	}
	h.policy.SetSessionRules(rules...)
}

// uiPolicy is the policy as the UI changes it: a session rule revoked in
// /permissions is recorded in the current session, so that continuing it
// does not bring the rule back.
type uiPolicy struct {
	*approval.Policy
	h *harness
}

// Revoke revokes perm and records a session rule's revocation.
func (p uiPolicy) Revoke(perm approval.Permission) bool {
	if !p.Policy.Revoke(perm) {
		return false
	}
	if cv := p.h.current.Load(); cv != nil && perm.Source == approval.FromSession {
		cv.addRule(session.RuleChange{Rule: perm.Rule.String(), Revoked: true})
	}
	return true
}

// ruleFiles saves allow rules to a config file (tui.RuleFiles): the
// user's, or the project's .tackle/config.json. The project's takes a
// rule only while the user trusts it as it is (a file the model changed,
// even with approval, is not trusted until the user looks at it again),
// or when it does not exist yet; its trust pin then moves to the new
// contents, since the user made the change.
type ruleFiles struct {
	policy  *approval.Policy
	user    string        // the user config file; "" without a home
	project string        // the project's config file
	trust   *config.Trust // nil without a state directory
}

func newRuleFiles(h *harness, env environ) *ruleFiles {
	r := &ruleFiles{policy: h.policy, project: filepath.Join(h.root, ".tackle", "config.json")}
	if p, err := config.UserPath(env.get); err == nil {
		r.user = p
	}
	if t, err := config.OpenTrust(env.get); err == nil {
		r.trust = t
	}
	return r
}

// errUntrusted is why no rule goes into a project config the user does
// not trust as it is.
var errUntrusted = errors.New("it is not trusted as it is now (never trusted, or changed since you trusted it): restart tackle to review it")

// Where names the file and says why no rule can be saved there, if so.
func (r *ruleFiles) Where(project bool) (path, why string) {
	if !project {
		if r.user == "" {
			return "", "no config directory ($HOME is not set)"
		}
		return r.user, ""
	}
	if err := r.trusted(r.read(r.project)); err != nil {
		return r.project, err.Error()
	}
	return r.project, ""
}

// read is the file's content, nil when it does not exist, and what went
// wrong reading it.
func (r *ruleFiles) read(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// trusted says why the project config with content b (nil: none yet)
// cannot take a rule, or nil.
func (r *ruleFiles) trusted(b []byte, err error) error {
	switch {
	case err != nil:
		return err
	case r.trust == nil:
		return errors.New("no state directory to keep its trust in")
	case b == nil:
		return nil // created now, by the user
	}
	ok, err := r.trust.Trusted(r.project, b)
	if err != nil {
		return err
	}
	if !ok {
		return errUntrusted
	}
	return nil
}

// Save adds rules to the file's allow list and to the policy, as rules
// of that file. Each must be a valid rule.
func (r *ruleFiles) Save(project bool, rules []string) error {
	path, why := r.Where(project)
	if why != "" {
		return errors.New(why)
	}
	var parsed []approval.Rule
	for _, s := range rules {
		rule, err := approval.ParseRule(s)
		if err != nil {
			return err
		}
		parsed = append(parsed, rule)
	}
	var check func([]byte) error
	if project {
		check = func(old []byte) error { return r.trusted(old, nil) }
	}
	wrote, err := config.AddStrings(path, "allow", rules, check)
	if err != nil {
		return err
	}
	if project {
		if err := r.trust.Pin(path, wrote); err != nil {
			return err
		}
	}
	for _, rule := range parsed {
		r.policy.AddPermission(approval.Permission{Rule: rule, Source: approval.FromConfig, Origin: path + ": allow"})
	}
	return nil
}
