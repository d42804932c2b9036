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

// DefaultEnvAllow is the allow list of the environment the commands the
// model runs get (bash, !cmd, the turn-end checks), like Codex's
// shell_environment_policy: a variable reaches them only when its name is
// here (an entry ending in * is a prefix) or in the configured additions
// (WithEnvAllow), so a secret under a name no pattern knows (MYSQL_PWD,
// DOCKER_AUTH_CONFIG, npm_config__authToken …) stays with tackle. Even
// then, a variable whose name says it holds a secret (IsSecretEnv) or
// whose value holds a credential (a URL with user:password@) is left out,
// unless a configured addition names it exactly.
//
// The list: the user and the system (PATH, HOME, USER, LOGNAME, SHELL,
// TMPDIR, the locale, TZ, the XDG directories, Windows' own), the build
// tools' own (the go command's variables, CGO_*, the C toolchain and its
// *FLAGS and paths, pkg-config, CMake, Rust, Java, Python, Node, Ruby,
// .NET, Android, version managers), git's author and committer, proxies
// and CA certificates. Not on it: tokens and keys,
// SSH_AUTH_SOCK, DISPLAY, EDITOR, tackle's own TACKLE_* and OPENAI_*.
var DefaultEnvAllow = []string{
	// The user and the system.
	"PATH", "HOME", "USER", "USERNAME", "LOGNAME", "SHELL", "TMPDIR", "TEMP", "TMP", "LANG", "LANGUAGE", "LC_*", "TZ", "XDG_*",
	"SYSTEMROOT", "SYSTEMDRIVE", "COMSPEC", "PATHEXT", "WINDIR", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA",
	"PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMW6432", "COMMONPROGRAMFILES",
	// Go (cmd/go's known variables, and the runtime's).
	"GO111MODULE", "GO386", "GOAMD64", "GOARCH", "GOARM", "GOARM64", "GOAUTH", "GOBIN", "GOCACHE", "GOCACHEPROG", "GOENV", "GOEXE",
	"GOEXPERIMENT", "GOFIPS140", "GOFLAGS", "GOGCCFLAGS", "GOHOSTARCH", "GOHOSTOS", "GOINSECURE", "GOMIPS", "GOMIPS64", "GOMODCACHE",
	"GONOPROXY", "GONOSUMDB", "GOOS", "GOPATH", "GOPPC64", "GOPRIVATE", "GOPROXY", "GORISCV64", "GOROOT", "GOSUMDB", "GOTMPDIR",
	"GOTOOLCHAIN", "GOTOOLDIR", "GOVCS", "GOWASM", "GOWORK", "GO_EXTLINK_ENABLED", "GCCGO", "GODEBUG", "GOGC", "GOMAXPROCS",
	"GOMEMLIMIT", "GOTRACEBACK", "GORACE", "GOCOVERDIR", "CGO_*",
	// C and C++ toolchains, make, pkg-config.
	"CC", "CXX", "CPP", "AR", "AS", "LD", "FC", "NM", "RANLIB", "STRIP", "*FLAGS", "PKG_CONFIG", "PKG_CONFIG_*", "MAKELEVEL",
	"CPATH", "LIBRARY_PATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "CMAKE_*",
	// Rust, Java, Python, Node, Ruby.
	"CARGO_HOME", "CARGO_TARGET_DIR", "CARGO_BUILD_*", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN",
	"JAVA_HOME", "JDK_HOME", "JAVA_OPTS", "MAVEN_HOME", "MAVEN_OPTS", "M2_HOME", "GRADLE_HOME", "GRADLE_USER_HOME", "GRADLE_OPTS",
	"PYENV_*", "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_EXE", "PYTHONPATH", "PYTHONUSERBASE", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED",
	"NVM_DIR", "NVM_BIN", "NVM_INC", "NODE_*", "PNPM_HOME", "BUN_INSTALL", "DENO_DIR", "VOLTA_HOME", "COREPACK_HOME",
	"GEM_HOME", "GEM_PATH", "RBENV_ROOT", "RBENV_VERSION", "BUNDLE_PATH",
	// .NET, Android, version managers.
	"DOTNET_ROOT", "ANDROID_HOME", "ANDROID_SDK_ROOT", "ASDF_DIR", "ASDF_DATA_DIR", "SDKMAN_DIR",
	// git's author and committer.
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
	// Network settings.
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "FTP_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy", "ftp_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
}

// IsSecretEnv reports whether an environment variable's name says it
// holds a secret, which must not reach commands the model runs (nor the
// turn-end checks) even when the allow list lets its name through, and
// whether a KEY=value assignment in a tool result holds a secret to
// redact: keys (*_KEY, *APIKEY), tokens (*_TOKEN, *AuthToken,
// *ACCESS_TOKEN), *SECRET*, passwords (*PASSWORD*, *PASSWD*, *_PASS,
// *_PWD, *PASSPHRASE*), personal access tokens (*_PAT), *CREDENTIAL*,
// auth settings (*_AUTH, *AUTH_CONFIG*), and everything of the OpenAI
// client's. The name is compared without regard to case.
func IsSecretEnv(name string) bool {
	// Compared in place, without an upper-case copy: the redaction hook
	// asks this for every KEY=value of large tool results.
	for _, s := range []string{"KEY", "APIKEY", "TOKEN", "PASS", "PWD", "PAT", "AUTH"} {
		n := len(name) - len(s)
		if n < 0 || !strings.EqualFold(name[n:], s) {
			continue
		}
		if n == 0 && (s == "KEY" || s == "TOKEN" || s == "PASS" || s == "APIKEY") || n > 0 && strings.IndexByte("_.-", name[n-1]) >= 0 {
			return true
		}
	}
	for _, s := range []string{"SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "APIKEY", "PRIVATE_KEY", "AUTHTOKEN", "AUTH_TOKEN",
		"ACCESSTOKEN", "ACCESS_TOKEN", "AUTH_CONFIG"} {
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

// credentialURL finds a URL with credentials in a value (a user, and
// perhaps a password, before an @: https://user:pw@proxy:3128, or
// GOPROXY's list of them) and returns the credential part, or "".
func credentialURL(v string) (string, bool) {
	for rest := v; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			return "", false
		}
		rest = rest[i+3:]
		end := strings.IndexAny(rest, "/?#,| \t\n")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at > 0 {
			return rest[:at], true
		}
	}
}

// allowedName reports whether name is on the allow list: an exact entry,
// or one ending in * as a prefix (one starting with * as a suffix).
func allowedName(name string, list []string) bool {
	for _, p := range list {
		switch {
		case p == name:
			return true
		case strings.HasSuffix(p, "*") && strings.HasPrefix(name, p[:len(p)-1]):
			return true
		case strings.HasPrefix(p, "*") && strings.HasSuffix(name, p[1:]) && len(name) > len(p)-1:
			return true
		}
	}
	return false
}

// ChildEnv returns the variables of base that the commands the model runs
// get: the names DefaultEnvAllow and extra (the configured additions)
// allow, less secret names and credential values unless extra names the
// variable exactly; and the secret values to scrub from their output
// (SecretValues of base), longest first.
func ChildEnv(base, extra []string) (env, secrets []string) {
	for _, kv := range base {
		name, value, _ := strings.Cut(kv, "=")
		if name == "" {
			continue
		}
		if slices.Contains(extra, name) {
			env = append(env, kv)
			continue
		}
		if !allowedName(name, DefaultEnvAllow) && !allowedName(name, extra) || IsSecretEnv(name) {
			continue
		}
		if _, cred := credentialURL(value); cred {
			continue
		}
		env = append(env, kv)
	}
	return env, SecretValues(base)
}

// bashEnv returns the environment of a bash command: ChildEnv of base with
// bashFixedEnv set, and the secret values to scrub from output.
func bashEnv(base, extra []string) (env, secrets []string) {
	child, secrets := ChildEnv(base, extra)
	for _, kv := range child {
		name, _, _ := strings.Cut(kv, "=")
		if slices.ContainsFunc(bashFixedEnv, func(f string) bool { return strings.HasPrefix(f, name+"=") }) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, bashFixedEnv...), secrets
}

// SecretValues returns the values to scrub from text that env's secrets
// would leave there: the values of variables with a secret's name (API
// keys, tokens, secrets, passwords, OPENAI_*), and the credentials of URLs
// with a user and password (and the whole value holding one); long enough
// to scrub, longest first, without duplicates.
func SecretValues(env []string) []string {
	var secrets []string
	add := func(s string) {
		if len(s) >= minSecretLen {
			secrets = append(secrets, s)
		}
	}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if IsSecretEnv(name) {
			add(value)
			continue
		}
		if cred, ok := credentialURL(value); ok {
			add(value)
			add(cred)
			if _, pw, ok := strings.Cut(cred, ":"); ok {
				add(pw)
			}
		}
	}
	slices.SortFunc(secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return slices.Compact(secrets)
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
