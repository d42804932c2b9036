package tools

import (
	"cmp"
	"slices"
	"strings"
)

// minSecretLen is the shortest secret value scrubbed from output; shorter
// values ("1", "true") would mangle ordinary text.
const minSecretLen = 8

// redacted replaces secret values in command output.
const redacted = "[REDACTED]"

// bashFixedEnv is set for every command: nothing may wait for an editor,
// a pager or a password prompt, and nothing should draw for a terminal.
var bashFixedEnv = []string{
	"GIT_EDITOR=true",
	"GIT_PAGER=cat",
	"GIT_TERMINAL_PROMPT=0",
	"PAGER=cat",
	"TERM=dumb",
}

// IsSecretEnv reports whether an environment variable must not reach
// commands the model runs (nor the turn-end checks), and whether a
// KEY=value assignment in a tool result holds a secret to redact: keys
// (*_KEY, *APIKEY), tokens (*_TOKEN), *SECRET*, passwords (*PASSWORD*,
// *PASSWD*, *_PASS, *PASSPHRASE*), *CREDENTIAL*, and everything of the
// OpenAI client's. The name is compared without regard to case.
func IsSecretEnv(name string) bool {
	// Compared in place, without an upper-case copy: the redaction hook
	// asks this for every KEY=value of large tool results.
	for _, s := range []string{"KEY", "APIKEY", "TOKEN", "PASS"} {
		if n := len(name) - len(s); n >= 0 && strings.EqualFold(name[n:], s) && (n == 0 || strings.IndexByte("_.-", name[n-1]) >= 0) {
			return true
		}
	}
	for _, s := range []string{"SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "APIKEY", "PRIVATE_KEY"} {
		if containsFold(name, s) {
			return true
		}
	}
	return len(name) >= 7 && strings.EqualFold(name[:7], "OPENAI_")
}

// containsFold reports whether sub (upper-case ASCII) is in s, ignoring
// case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i]|0x20 == sub[0]|0x20 && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// bashEnv returns base without the secret variables, with bashFixedEnv
// set, and the secret values to scrub from output (longest first).
func bashEnv(base []string) (env, secrets []string) {
	for _, kv := range base {
		name, value, _ := strings.Cut(kv, "=")
		if IsSecretEnv(name) {
			if len(value) >= minSecretLen {
				secrets = append(secrets, value)
			}
			continue
		}
		if slices.ContainsFunc(bashFixedEnv, func(f string) bool { return strings.HasPrefix(f, name+"=") }) {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, bashFixedEnv...)
	slices.SortFunc(secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return env, slices.Compact(secrets)
}

// SecretValues returns the values of env's secret variables (API keys,
// tokens, secrets, passwords, OPENAI_*) long enough to scrub from text,
// longest first, without duplicates.
func SecretValues(env []string) []string {
	_, secrets := bashEnv(env)
	return secrets
}

// scrubber removes secret values from text.
type scrubber struct {
	secrets []string
	r       *strings.Replacer
}

func newScrubber(secrets []string) *scrubber {
	if len(secrets) == 0 {
		return &scrubber{}
	}
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s, redacted)
	}
	return &scrubber{secrets: secrets, r: strings.NewReplacer(pairs...)}
}

// scrub replaces every whole secret in s.
func (sc *scrubber) scrub(s string) string {
	if sc.r == nil {
		return s
	}
	return sc.r.Replace(s)
}

// scrubCut is scrub for the two sides of a cut: head is followed by
// omitted bytes and tail preceded by them, so a secret may be split
// between them. A head ending with the start of a secret, or a tail
// starting with the end of one, loses that part too (4 bytes or more;
// shorter fragments are everywhere).
func (sc *scrubber) scrubCut(head, tail string) (string, string) {
	head, tail = sc.scrub(head), sc.scrub(tail)
	for _, s := range sc.secrets {
		for k := len(s) - 1; k >= 4; k-- {
			if strings.HasSuffix(head, s[:k]) {
				head = head[:len(head)-k] + redacted
				break
			}
		}
		for k := len(s) - 1; k >= 4; k-- {
			if strings.HasPrefix(tail, s[len(s)-k:]) {
				tail = redacted + tail[k:]
				break
			}
		}
	}
	return head, tail
}
