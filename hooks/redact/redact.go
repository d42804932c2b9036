// Package redact is a built-in post_tool_call hook that removes secrets
// from every tool result before anything else sees it: later hooks, the
// event stream, the transcript and the model.
//
// It removes the values of tackle's own secret environment variables (the
// API key, tokens), the values of secret-looking assignments in
// .env-style text (KEY=value where KEY looks secret), and well-known token
// shapes (cloud keys, GitHub/GitLab/Slack/OpenAI/Anthropic/Google/Stripe
// tokens, private key blocks, JWTs, passwords in URLs). A value learned
// from an assignment is also removed wherever it appears later in the
// session. Redaction is a safety net, not a guarantee: a secret of no
// known shape, or one transformed by a command (base64, split across
// lines), gets through.
package redact

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tackle-dev/tackle/hooks"
)

// HookName is the hook's name in the decision trace.
const HookName = "redact-secrets"

// HookPriority is the hook's priority: first of the post_tool_call hooks,
// so that none of them sees a secret.
const HookPriority = -1 << 20

// Placeholder replaces each secret value of the environment; a secret
// found by a pattern becomes "[REDACTED:name]", naming the pattern.
const Placeholder = "[REDACTED]"

// minLen is the shortest value redacted wherever it appears (environment
// values, learned values); shorter ones would mangle text.
const minLen = 8

// maxLearned bounds the values learned from assignments in a session.
const maxLearned = 1024

// Settings configure redaction: the "redact" object of the config file.
type Settings struct {
	// Disable names patterns that are not applied, e.g. ["jwt"]. See
	// Patterns for the names.
	Disable []string `json:"disable,omitempty"`
}

// Hook returns a post_tool_call hook that redacts every result's content:
// the given secret values (values shorter than 8 bytes are ignored) and
// what the patterns not disabled by s find. It runs before every other
// post_tool_call hook, and as a Protect hook on every result with content,
// cancelled or not. An unknown pattern name in s is an error.
func Hook(secrets []string, s Settings) (hooks.Hook[hooks.PostToolInput, hooks.PostToolResult], error) {
	r, err := New(secrets, s)
	if err != nil {
		return hooks.Hook[hooks.PostToolInput, hooks.PostToolResult]{}, err
	}
	return r.Hook(), nil
}

// Hook returns the post_tool_call hook that redacts every result's
// content with r (see the function Hook). A value r learns from a result
// is redacted from then on wherever r is used: in the session file too.
func (r *Redactor) Hook() hooks.Hook[hooks.PostToolInput, hooks.PostToolResult] {
	return hooks.Hook[hooks.PostToolInput, hooks.PostToolResult]{
		Name:     HookName,
		Priority: HookPriority,
		// Redaction guards every result, also one finished after the run
		// was cancelled or a hook aborted it.
		Protect: true,
		Run: func(_ context.Context, in *hooks.PostToolInput) (hooks.PostToolResult, error) {
			in.Result.Content = r.Redact(in.Result.Content)
			return hooks.PostToolResult{}, nil
		},
	}
}

// Redactor holds the secrets of a session: the values it was given, the
// patterns in force and the values it learned. It is safe for concurrent
// use.
type Redactor struct {
	fixed    []string // environment values, longest first
	patterns []*pattern
	dotenv   bool

	mu      sync.Mutex
	learned []string // values learned from assignments, longest first
}

// Validate reports a name in s.Disable that is not a pattern's.
func (s Settings) Validate() error {
	known := Patterns()
	for _, name := range s.Disable {
		if !slices.Contains(known, name) {
			return fmt.Errorf("redact.disable: unknown pattern %q (the patterns are %s)", name, strings.Join(known, ", "))
		}
	}
	return nil
}

// New returns a Redactor of the given secret values (values shorter than
// 8 bytes are ignored) and the patterns s does not disable. An unknown
// pattern name in s is an error.
func New(secrets []string, s Settings) (*Redactor, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	off := map[string]bool{}
	for _, name := range s.Disable {
		off[name] = true
	}
	r := &Redactor{dotenv: !off[PatternDotenv]}
	for _, v := range secrets {
		if len(v) >= minLen {
			r.fixed = append(r.fixed, v)
		}
	}
	sortLongestFirst(&r.fixed)
	for _, p := range patterns() {
		if !off[p.name] {
			r.patterns = append(r.patterns, p)
		}
	}
	return r, nil
}

// sortLongestFirst sorts values so that a secret containing another is
// replaced whole, and drops duplicates.
func sortLongestFirst(vals *[]string) {
	slices.SortFunc(*vals, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) })
	*vals = slices.Compact(*vals)
}

// Redact returns s without the secrets r knows or finds. A value of a
// secret-looking assignment it finds is learned: it is redacted wherever
// it appears from then on.
func (r *Redactor) Redact(s string) string {
	s = replaceValues(s, r.fixed, Placeholder)
	for _, p := range r.patterns {
		s = p.apply(s)
	}
	var found []string
	if r.dotenv {
		s = dotenv(s, func(v string) {
			if len(v) >= minLen {
				found = append(found, v)
			}
		})
	}
	r.mu.Lock()
	if len(found) > 0 && len(r.learned) < maxLearned {
		r.learned = append(r.learned, found...)
		sortLongestFirst(&r.learned)
	}
	learned := r.learned
	r.mu.Unlock()
	return replaceValues(s, learned, "[REDACTED:"+PatternDotenv+"]")
}

// replaceValues replaces each of vals (longest first) in s. Values that
// do not occur cost one fast substring search each.
func replaceValues(s string, vals []string, placeholder string) string {
	var present []string
	for _, v := range vals {
		if strings.Contains(s, v) {
			present = append(present, v, placeholder)
		}
	}
	if len(present) == 0 {
		return s
	}
	return strings.NewReplacer(present...).Replace(s)
}
