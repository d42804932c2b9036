package tools

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestIsSecretEnv(t *testing.T) {
	for _, name := range []string{
		"OPENAI_API_KEY", "api_key", "KEY", "STRIPE_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "token",
		"DB_PASSWORD", "MYSQL_PASSWD", "REDIS_PASS", "GPG_PASSPHRASE", "GOOGLE_APPLICATION_CREDENTIALS",
		"MAPBOX_APIKEY", "SSH_PRIVATE_KEY_FILE", "spring.datasource.password", "api.key", "npm-token", "OPENAI_BASE_URL",
	} {
		if !IsSecretEnv(name) {
			t.Errorf("IsSecretEnv(%q) = false", name)
		}
	}
	for _, name := range []string{
		"PATH", "HOME", "PWD", "KEY_ID", "AWS_ACCESS_KEY_ID", "SSH_AUTH_SOCK", "MONKEY", "BYPASS", "COMPASS_DIR",
		"TOKENIZER", "KEYBOARD", "LANG", "user", "TERM",
	} {
		if IsSecretEnv(name) {
			t.Errorf("IsSecretEnv(%q) = true", name)
		}
	}
}

// TestBashEnvAllowList: commands the model runs get the variables on the
// allow list only (issue 21 class 8): secrets under names no pattern
// knows stay with tackle, and so does a proxy or module proxy URL with
// credentials; their values are scrubbed from output too. The build
// tools' variables get through.
func TestBashEnvAllowList(t *testing.T) {
	secrets := map[string]string{
		"MYSQL_PWD":             "mysql-pw-0123456",
		"npm_config__authToken": "npm-token-0123456",
		"DOCKER_AUTH_CONFIG":    `{"auths":{"r.example":{"auth":"ZG9ja2VyOnB3"}}}`,
		"GITHUB_PAT":            "github_pat_0123456789",
		"HTTPS_PROXY":           "http://alice:proxy-pw-123@proxy.example:3128",
		"GOPROXY":               "https://bob:goproxy-pw-1@goproxy.example,direct",
		"PIP_INDEX_URL":         "https://carol:pip-secret-1@pypi.example/simple",
		"AWS_SESSION_TOKEN":     "aws-session-0123456",
		"SENTRY_DSN":            "https://deadbeefdeadbeef@o1.ingest.sentry.example/1",
		"TACKLE_CONFIG_SECRET":  "tackle-own-0123456",
		"CUSTOM_HOOK_VALUE":     "not-listed-0123456",
	}
	kept := map[string]string{
		"PATH": "/usr/bin:/bin", "HOME": "/home/u", "GOPATH": "/home/u/go", "GOFLAGS": "-mod=mod", "LC_ALL": "C.UTF-8",
		"XDG_CACHE_HOME": "/home/u/.cache", "CGO_ENABLED": "0", "CFLAGS": "-O2", "HTTP_PROXY": "http://proxy.example:3128",
		"GOPRIVATE": "example.com/*", "VIRTUAL_ENV": "/home/u/venv", "NODE_OPTIONS": "--max-old-space-size=4096",
	}
	var base []string
	for k, v := range secrets {
		base = append(base, k+"="+v)
	}
	for k, v := range kept {
		base = append(base, k+"="+v)
	}
	env, scrub := bashEnv(base, nil)
	for k := range secrets {
		for _, kv := range env {
			if strings.HasPrefix(kv, k+"=") {
				t.Errorf("%s reaches the command", kv)
			}
		}
	}
	for k, v := range kept {
		if !slices.Contains(env, k+"="+v) {
			t.Errorf("%s=%s does not reach the command", k, v)
		}
	}
	// Values whose names or contents say they are secret are scrubbed
	// from output; the proxies' passwords on their own too.
	for _, v := range []string{"mysql-pw-0123456", "npm-token-0123456", secrets["DOCKER_AUTH_CONFIG"], "github_pat_0123456789", "proxy-pw-123", "goproxy-pw-1", "pip-secret-1", "aws-session-0123456"} {
		if !slices.Contains(scrub, v) {
			t.Errorf("%q is not scrubbed from output", v)
		}
	}
	if slices.Contains(scrub, "not-listed-0123456") || slices.Contains(scrub, "/usr/bin:/bin") {
		t.Errorf("ordinary values are scrubbed: %q", scrub)
	}

	// The real bash: none of the names reaches it, and a value printed
	// some other way is scrubbed.
	r, dir := newTestRegistry(t, WithEnv(append(base, "PATH="+os.Getenv("PATH"))))
	writeFile(t, dir, "leak.txt", "pw=mysql-pw-0123456 proxy=proxy-pw-123\n")
	got := wantOK(t, call(t, r, "bash", BashArgs{Command: "env; cat leak.txt"}))
	for k, v := range secrets {
		if strings.Contains(got, k) || strings.Contains(got, v) {
			t.Errorf("bash sees %s:\n%s", k, got)
		}
	}
	wantContains(t, got, "GOPATH=/home/u/go", "pw=[REDACTED] proxy=[REDACTED]")

	// A configured addition: a pattern lets names through but not
	// secrets; an exact name lets through whatever it names.
	env, _ = bashEnv(base, []string{"CUSTOM_*", "*_PWD", "GITHUB_PAT"})
	for want, in := range map[string]bool{"CUSTOM_HOOK_VALUE=not-listed-0123456": true, "MYSQL_PWD=mysql-pw-0123456": false, "GITHUB_PAT=github_pat_0123456789": true} {
		if slices.Contains(env, want) != in {
			t.Errorf("with additions, %s in the environment: %v, want %v", want, !in, in)
		}
	}
}

func TestIsSecretEnvMore(t *testing.T) {
	for _, name := range []string{"MYSQL_PWD", "npm_config__authToken", "DOCKER_AUTH_CONFIG", "GITHUB_PAT", "NPM_AUTH", "npm_config__auth", "ACCESS_TOKEN", "githubAccessToken"} {
		if !IsSecretEnv(name) {
			t.Errorf("IsSecretEnv(%q) = false", name)
		}
	}
	for _, name := range []string{"PWD", "OLDPWD", "GIT_AUTHOR_NAME", "SSH_AUTH_SOCK", "PATH", "OAUTH_CALLBACK_PORT", "SPAT", "XPWD"} {
		if IsSecretEnv(name) {
			t.Errorf("IsSecretEnv(%q) = true", name)
		}
	}
}

// TestDocsListTheEnvAllowList: docs/policy.md lists every entry of the
// allow list, so that the page stays true to the code.
func TestDocsListTheEnvAllowList(t *testing.T) {
	b, err := os.ReadFile("../docs/policy.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range DefaultEnvAllow {
		if !strings.Contains(string(b), "`"+name+"`") {
			t.Errorf("docs/policy.md does not list `%s`", name)
		}
	}
}
