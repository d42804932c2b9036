package redact

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Names of the patterns, for Settings.Disable.
const (
	PatternDotenv             = "dotenv"                // KEY=value where KEY looks secret
	PatternAWSAccessKeyID     = "aws_access_key_id"     // AKIA..., ASIA...
	PatternAWSSecretAccessKey = "aws_secret_access_key" // 40 characters after aws_secret_access_key
	PatternGitHub             = "github"                // ghp_, gho_, ghs_, ghu_, ghr_, github_pat_
	PatternGitLab             = "gitlab"                // glpat-
	PatternSlack              = "slack"                 // xoxa-, xoxb-, xoxp-, xoxr-, xoxs-
	PatternOpenAI             = "openai"                // sk-, sk-proj-
	PatternAnthropic          = "anthropic"             // sk-ant-
	PatternGoogleAPIKey       = "google_api_key"        // AIza...
	PatternStripe             = "stripe"                // sk_live_, rk_live_, sk_test_, rk_test_
	PatternPrivateKey         = "private_key"           // -----BEGIN ... PRIVATE KEY----- to END
	PatternJWT                = "jwt"                   // eyJ....eyJ....sig
	PatternURLPassword        = "url_password"          // scheme://user:PASSWORD@host
)

// pattern finds one kind of secret. Each match starts with one of its
// anchors, literal strings that are cheap to look for, so a text without
// them costs a few fast substring searches and nothing more.
type pattern struct {
	name    string
	anchors []string
	// expr is matched at each anchor (it starts with ^); group is the
	// submatch that is replaced (0: the whole match).
	expr  string
	group int
	// window bounds the text the expression sees after an anchor.
	window int
	// wordStart: the anchor must not follow a letter, digit, '_' or '-';
	// wordEnd: the match must not be followed by a letter or digit.
	wordStart, wordEnd bool
	// find, when set, replaces expr: it returns where the secret is in s,
	// which starts with the anchor, or -1, -1.
	find func(s string) (start, end int)

	re func() *regexp.Regexp
}

// patterns are every pattern, in the order they are applied: the ones
// that see a token's context (a key name, a URL) before the token shapes.
var patterns = sync.OnceValue(func() []*pattern {
	ps := []*pattern{
		{name: PatternPrivateKey, anchors: []string{"-----BEGIN "}, find: privateKey},
		{
			name:    PatternAWSSecretAccessKey,
			anchors: []string{"aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "SecretAccessKey", "secretAccessKey", "secret_access_key"},
			expr:    `^[A-Za-z_]*["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})`, group: 1, window: 128, wordEnd: true,
		},
		{name: PatternURLPassword, anchors: []string{"://"}, find: urlPassword},
		{name: PatternJWT, anchors: []string{"eyJ"}, expr: `^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`, window: 16 << 10, wordStart: true},
		{name: PatternGitHub, anchors: []string{"ghp_", "gho_", "ghs_", "ghu_", "ghr_"}, expr: `^gh[pousr]_[A-Za-z0-9]{36,251}`, window: 256, wordStart: true, wordEnd: true},
		{name: PatternGitHub, anchors: []string{"github_pat_"}, expr: `^github_pat_[A-Za-z0-9_]{22,244}`, window: 256, wordStart: true, wordEnd: true},
		{name: PatternGitLab, anchors: []string{"glpat-"}, expr: `^glpat-[A-Za-z0-9_-]{20,}`, window: 256, wordStart: true},
		{name: PatternSlack, anchors: []string{"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"}, expr: `^xox[abprs]-[A-Za-z0-9-]{10,}`, window: 256, wordStart: true},
		{name: PatternAnthropic, anchors: []string{"sk-ant-"}, expr: `^sk-ant-[A-Za-z0-9_-]{20,}`, window: 512, wordStart: true},
		{name: PatternOpenAI, anchors: []string{"sk-"}, expr: `^sk-[A-Za-z0-9_-]{20,}`, window: 512, wordStart: true},
		{name: PatternGoogleAPIKey, anchors: []string{"AIza"}, expr: `^AIza[0-9A-Za-z_-]{35}`, window: 64, wordStart: true, wordEnd: true},
		{name: PatternStripe, anchors: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_"}, expr: `^[sr]k_(?:live|test)_[0-9A-Za-z]{16,}`, window: 256, wordStart: true, wordEnd: true},
		{name: PatternAWSAccessKeyID, anchors: []string{"AKIA", "ASIA"}, expr: `^A[KS]IA[A-Z0-9]{16}`, window: 20, wordStart: true, wordEnd: true},
	}
	for _, p := range ps {
		if p.expr != "" {
			p.re = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(p.expr) })
		}
	}
	return ps
})

// Patterns returns the names of every pattern, for Settings.Disable.
func Patterns() []string {
	names := []string{PatternDotenv}
	for _, p := range patterns() {
		if !slices.Contains(names, p.name) {
			names = append(names, p.name)
		}
	}
	return names
}

// apply replaces every match of p in s.
func (p *pattern) apply(s string) string {
	for _, a := range p.anchors {
		s = p.applyAt(s, a)
	}
	return s
}

func (p *pattern) applyAt(s, anchor string) string {
	placeholder := "[REDACTED:" + p.name + "]"
	// Search from the anchor's rarest byte: strings.Index is slow on a
	// needle whose first byte is everywhere ("eyJ", "sk-").
	off := rarest(anchor)
	key := anchor[off:]
	var b strings.Builder
	last := 0
	for i := off; i < len(s); {
		k := strings.Index(s[i:], key)
		if k < 0 {
			break
		}
		at := i + k - off
		i += k + 1
		if !strings.HasPrefix(s[at:], anchor) {
			continue
		}
		i = at + len(anchor)
		if p.wordStart && at > 0 && (isWordByte(s[at-1]) || s[at-1] == '-') {
			continue
		}
		start, end := p.match(s, at)
		if start < 0 || start < last {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:start])
		b.WriteString(placeholder)
		last, i = end, max(i, end)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// match returns the secret that the pattern finds at the anchor at s[at],
// or -1, -1.
func (p *pattern) match(s string, at int) (start, end int) {
	if p.find != nil {
		start, end := p.find(s[at:])
		if start < 0 {
			return -1, -1
		}
		return at + start, at + end
	}
	w := s[at:min(len(s), at+p.window)]
	loc := p.re().FindStringSubmatchIndex(w)
	if loc == nil || loc[2*p.group] < 0 {
		return -1, -1
	}
	if p.wordEnd && at+loc[1] < len(s) && isAlnum(s[at+loc[1]]) {
		return -1, -1
	}
	return at + loc[2*p.group], at + loc[2*p.group+1]
}

// privateKey finds the private key block that starts at s[0] ("-----BEGIN
// RSA PRIVATE KEY-----"): up to its END line, or to the end of s when the
// END line is missing (a cut output).
func privateKey(s string) (start, end int) {
	line, _, _ := strings.Cut(s, "\n")
	label, ok := strings.CutPrefix(line, "-----BEGIN ")
	if !ok {
		return -1, -1
	}
	label, _, ok = strings.Cut(label, "-----")
	if !ok || !strings.HasSuffix(label, "PRIVATE KEY") || len(label) > 64 {
		return -1, -1
	}
	endLine := "-----END " + label + "-----"
	if k := strings.Index(s, endLine); k >= 0 {
		return 0, k + len(endLine)
	}
	return 0, len(s)
}

// maxAuthority bounds the user:password part of a URL looked at.
const maxAuthority = 512

// urlPassword finds the password of a URL's user:password@ part, in s
// that starts with "://" ("https://:TOKEN@host" has an empty user).
func urlPassword(s string) (start, end int) {
	colon := -1
	for i := 3; i < len(s) && i < maxAuthority; i++ {
		switch c := s[i]; {
		case c == ':' && colon < 0:
			colon = i
		case c == '@':
			if colon < 0 || i == colon+1 {
				return -1, -1
			}
			return colon + 1, i
		case c <= ' ' || strings.IndexByte("/\"'<>", c) >= 0:
			return -1, -1
		}
	}
	return -1, -1
}

// commonBytes are bytes of ordinary text and code, most common first.
const commonBytes = " etaoinsrhldcumfpgwybvkxjqz_.,=-/:\"'()\n\t"

// rarest returns the offset in anchor of its least common byte.
func rarest(anchor string) int {
	best, rank := 0, -1
	for i := 0; i < len(anchor); i++ {
		r := strings.IndexByte(commonBytes, anchor[i])
		if r < 0 {
			r = len(commonBytes)
		}
		if r > rank {
			best, rank = i, r
		}
	}
	return best
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }
