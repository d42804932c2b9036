package approval

import (
	"fmt"
	"slices"
)

// Source is where an allow or deny rule came from.
type Source uint8

// Rule sources. A rule given to WithRules has no source (zero).
const (
	FromFlag    Source = iota + 1 // --allow or --deny on the command line
	FromConfig                    // a config file
	FromSession                   // "approve always" during this session
	FromClaude                    // a Claude Code settings file's permissions
)

func (s Source) String() string {
	switch s {
	case FromFlag:
		return "flag"
	case FromConfig:
		return "config"
	case FromSession:
		return "session"
	case FromClaude:
		return "claude"
	}
	return "option"
}

// Permission is one allow, ask or deny rule of a policy and where it
// came from.
type Permission struct {
	Rule Rule
	// Deny is set for a deny rule, Ask for an ask rule (Claude Code's
	// permissions.ask: the call asks, whatever the mode, unless a deny
	// rule skips it); otherwise the rule allows.
	Deny   bool
	Ask    bool
	Source Source
	// Origin says where the rule was written, for the user: the flag
	// ("--allow") or the config file and field
	// ("/home/u/.config/tackle/config.json: allow[2]"). Empty for session
	// rules.
	Origin string
}

// Effect is "deny", "ask" or "allow".
func (p Permission) Effect() string {
	switch {
	case p.Deny:
		return "deny"
	case p.Ask:
		return "ask"
	}
	return "allow"
}

func (p Permission) String() string {
	s := fmt.Sprintf("%s %s (%s", p.Effect(), p.Rule, p.Source)
	if p.Origin != "" {
		s += " " + p.Origin
	}
	return s + ")"
}

// WithPermissions sets the allow and deny rules with their sources, in
// place of WithRules; Permissions lists them and Revoke removes them. A
// permission from FromSession is a session rule (always an allow rule).
func WithPermissions(perms []Permission) Option {
	return func(p *Policy) {
		var kept []Permission
		for _, perm := range perms {
			if perm.Source == FromSession {
				if !perm.Deny && !slices.Contains(p.session, perm.Rule) {
					p.session = append(p.session, perm.Rule)
				}
				continue
			}
			kept = append(kept, perm)
		}
		p.setPermissions(kept)
	}
}

// setPermissions makes perms the policy's allow and deny rules. The
// caller holds p.mu or owns p.
func (p *Policy) setPermissions(perms []Permission) {
	p.perms = perms
	p.allow, p.deny, p.ask = nil, nil, nil
	for _, perm := range perms {
		switch {
		case perm.Deny:
			p.deny = append(p.deny, perm.Rule)
		case perm.Ask:
			p.ask = append(p.ask, perm.Rule)
		default:
			p.allow = append(p.allow, perm.Rule)
		}
	}
}

// Permissions lists the policy's rules as they stand: deny rules, then
// ask rules, then allow rules, then session rules, each in the order they
// were given or added.
func (p *Policy) Permissions() []Permission {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Permission
	if p.perms != nil {
		for _, perm := range p.perms {
			if perm.Deny {
				out = append(out, perm)
			}
		}
		for _, perm := range p.perms {
			if perm.Ask && !perm.Deny {
				out = append(out, perm)
			}
		}
		for _, perm := range p.perms {
			if !perm.Deny && !perm.Ask {
				out = append(out, perm)
			}
		}
	} else {
		for _, r := range p.deny {
			out = append(out, Permission{Rule: r, Deny: true})
		}
		for _, r := range p.allow {
			out = append(out, Permission{Rule: r})
		}
	}
	for _, r := range p.session {
		out = append(out, Permission{Rule: r, Source: FromSession})
	}
	return out
}

// AddPermission adds an allow rule with its source, for the rest of the
// session: a rule the user just saved to a config file applies at once,
// listed with the file it went to. A deny or ask rule, or one the policy
// has from the same source and origin, is not added; it reports whether
// perm was added.
func (p *Policy) AddPermission(perm Permission) bool {
	if perm.Deny || perm.Ask || perm.Source == FromSession {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	perms := p.perms
	if perms == nil {
		for _, r := range p.deny {
			perms = append(perms, Permission{Rule: r, Deny: true})
		}
		for _, r := range p.ask {
			perms = append(perms, Permission{Rule: r, Ask: true})
		}
		for _, r := range p.allow {
			perms = append(perms, Permission{Rule: r})
		}
	}
	if slices.Contains(perms, perm) {
		return false
	}
	p.setPermissions(append(slices.Clone(perms), perm))
	return true
}

// Revoke removes a rule, as Permissions lists it, from the policy for the
// rest of the session: a session rule is forgotten, and a rule from a flag
// or a config file no longer applies (the file is not changed). The same
// rule from another source still applies. Revoke reports whether perm was
// found.
func (p *Policy) Revoke(perm Permission) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if perm.Source == FromSession {
		i := slices.Index(p.session, perm.Rule)
		if i < 0 || perm.Deny {
			return false
		}
		p.session = slices.Delete(slices.Clone(p.session), i, i+1)
		return true
	}
	if p.perms == nil {
		// Rules from WithRules: no sources to tell copies apart.
		list := &p.allow
		if perm.Deny {
			list = &p.deny
		}
		i := slices.Index(*list, perm.Rule)
		if i < 0 || perm.Source != 0 {
			return false
		}
		*list = slices.Delete(slices.Clone(*list), i, i+1)
		return true
	}
	i := slices.Index(p.perms, perm)
	if i < 0 {
		return false
	}
	p.setPermissions(slices.Delete(slices.Clone(p.perms), i, i+1))
	return true
}
