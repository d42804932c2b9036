// Package redact is a built-in post_tool_call hook that removes secret
// values (the user's API key, tokens from the environment) from every tool
// result before anything else sees it: later hooks, the event stream, the
// transcript and the model.
package redact

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/tackle-dev/tackle/hooks"
)

// HookName is the hook's name in the decision trace.
const HookName = "redact-secrets"

// Placeholder replaces each secret.
const Placeholder = "[REDACTED]"

// minLen is the shortest value redacted; shorter ones would mangle text.
const minLen = 8

// Hook returns a post_tool_call hook that replaces every occurrence of the
// given secret values in a result's content. It runs before every other
// post_tool_call hook, and as a Protect hook on every result with content,
// cancelled or not. Values shorter than 8 bytes are ignored.
func Hook(secrets []string) hooks.Hook[hooks.PostToolInput, hooks.PostToolResult] {
	var vals []string
	for _, s := range secrets {
		if len(s) >= minLen {
			vals = append(vals, s)
		}
	}
	// Longest first, so a secret that contains another is replaced whole.
	slices.SortFunc(vals, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	vals = slices.Compact(vals)
	pairs := make([]string, 0, 2*len(vals))
	for _, v := range vals {
		pairs = append(pairs, v, Placeholder)
	}
	r := strings.NewReplacer(pairs...)
	return hooks.Hook[hooks.PostToolInput, hooks.PostToolResult]{
		Name:     HookName,
		Priority: -1 << 20,
		// Redaction guards every result, also one finished after the run
		// was cancelled or a hook aborted it.
		Protect: true,
		Run: func(_ context.Context, in *hooks.PostToolInput) (hooks.PostToolResult, error) {
			if len(vals) > 0 {
				in.Result.Content = r.Replace(in.Result.Content)
			}
			return hooks.PostToolResult{}, nil
		},
	}
}
