package redact

import (
	"strings"

	"github.com/tackle-dev/tackle/tools"
)

// maxKeyLen bounds the key name looked at before an '='.
const maxKeyLen = 128

// dotenv replaces the values of secret-looking assignments in .env-style
// text: KEY=value, KEY="value", KEY='value', export KEY=value, also with
// a prefix that grep or read_file puts before a line. The key looks
// secret by tools.IsSecretEnv (*_KEY, *_TOKEN, *SECRET*, *PASSWORD*,
// ...). A key in capitals counts anywhere (docker run -e API_TOKEN=...); a
// key with lower-case letters only at the start of a line, so code such
// as f(password=pw) is left alone. Values that refer to something else
// ($VAR, ${VAR}, %VAR%) are not secrets. learn is called with each value
// replaced.
func dotenv(s string, learn func(string)) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '=')
		if k < 0 {
			break
		}
		eq := i + k
		i = eq + 1
		key := keyBefore(s, eq)
		if key == "" || !tools.IsSecretEnv(key) {
			continue
		}
		if hasLower(key) && !atLineStart(s, eq-len(key)) {
			continue
		}
		start, end := valueAt(s, eq+1)
		if start == end {
			continue
		}
		v := s[start:end]
		if strings.HasPrefix(v, "$") || strings.HasPrefix(v, "%") || strings.HasPrefix(v, "[REDACTED") {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:start])
		b.WriteString("[REDACTED:" + PatternDotenv + "]")
		last, i = end, end
		learn(v)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// keyBefore returns the key name that ends at s[eq] (the '='), or "".
func keyBefore(s string, eq int) string {
	j := eq
	for j > 0 && eq-j < maxKeyLen && isKeyByte(s[j-1]) {
		j--
	}
	if j == eq || (j > 0 && isKeyByte(s[j-1])) {
		return ""
	}
	key := s[j:eq]
	if c := key[0]; c >= '0' && c <= '9' || c == '.' || c == '-' {
		return ""
	}
	return key
}

func isKeyByte(c byte) bool { return isWordByte(c) || c == '.' || c == '-' }

func hasLower(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' })
}

// atLineStart reports whether the key at s[k] starts its line, after
// indentation, "export ", a YAML list's "- ", or a prefix of grep
// ("file:", "file:12:") or read_file ("    12\t").
func atLineStart(s string, k int) bool {
	line := s[strings.LastIndexByte(s[:k], '\n')+1 : k]
	line = strings.TrimRight(line, " \t")
	line = strings.TrimSuffix(line, "export")
	line = strings.TrimSuffix(line, "-")
	line = strings.TrimSpace(line)
	return line == "" || strings.HasSuffix(line, ":") || strings.Trim(line, "0123456789") == ""
}

// valueAt returns the value that starts at s[i]: a quoted string without
// its quotes (to the closing quote, or the end of the line), or a word up
// to white space or a quote.
func valueAt(s string, i int) (start, end int) {
	if i >= len(s) {
		return i, i
	}
	if q := s[i]; q == '"' || q == '\'' {
		for j := i + 1; j < len(s); j++ {
			switch {
			case s[j] == '\\' && q == '"':
				j++
			case s[j] == q, s[j] == '\n':
				return i + 1, j
			}
		}
		return i + 1, len(s)
	}
	j := i
	for j < len(s) && !strings.ContainsRune(" \t\r\n\"'`", rune(s[j])) {
		j++
	}
	return i, j
}
