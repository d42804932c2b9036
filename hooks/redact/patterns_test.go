package redact

import (
	"fmt"
	"strings"
	"testing"
)

// Token-shaped test values (none of them real).
const (
	ghToken         = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	ghPAT           = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
	glToken         = "glpat-abcdefghij0123456789"
	slackToken      = "xoxb-123456789012-123456789012-abcdefghijABCDEFGHIJ"
	openaiKey       = "sk-proj-abcdefghij0123456789ABCDEFGHIJ_-xyz"
	anthKey         = "sk-ant-api03-abcdefghij0123456789ABCDEFGHIJ-xyz"
	googleKey       = "AIzaSyA0123456789abcdefghijABCDEFGHIJ_-"
	stripeKey       = "sk_live_0123456789abcdefABCDEF"
	awsKeyID        = "AKIAIOSFODNN7EXAMPLE"
	awsSecret       = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	jwtToken        = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	privateKeyBlock = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDxExampleExampleExampleExampleExampleExampleExAAAA\n-----END OPENSSH PRIVATE KEY-----"
	dbPassword      = "hunter2-but-longer"
	shortSecret     = "pw1"
)

func mustRedactor(t testing.TB, s Settings, secrets ...string) *Redactor {
	t.Helper()
	r, err := New(secrets, s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRedactsTokenShapes(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"github", "token: " + ghToken + ".", "token: [REDACTED:github]."},
		{"github pat", "GH=" + ghPAT, "GH=[REDACTED:github]"},
		{"gitlab", "glpat: " + glToken, "glpat: [REDACTED:gitlab]"},
		{"slack", `{"token":"` + slackToken + `"}`, `{"token":"[REDACTED:slack]"}`},
		{"openai", "key " + openaiKey + " end", "key [REDACTED:openai] end"},
		{"anthropic", "key " + anthKey, "key [REDACTED:anthropic]"},
		{"google", "?key=" + googleKey + "&x=1", "?key=[REDACTED:google_api_key]&x=1"},
		{"stripe", "Stripe(" + stripeKey + ")", "Stripe([REDACTED:stripe])"},
		{"aws key id", "aws_access_key_id = " + awsKeyID + "\n", "aws_access_key_id = [REDACTED:aws_access_key_id]\n"},
		{"aws secret in credentials", "[default]\naws_secret_access_key = " + awsSecret + "\n", "[default]\naws_secret_access_key = [REDACTED:aws_secret_access_key]\n"},
		{"aws secret in json", `{"SecretAccessKey": "` + awsSecret + `"}`, `{"SecretAccessKey": "[REDACTED:aws_secret_access_key]"}`},
		{"jwt", "Authorization: Bearer " + jwtToken, "Authorization: Bearer [REDACTED:jwt]"},
		{"private key", "before\n" + privateKeyBlock + "\nafter", "before\n[REDACTED:private_key]\nafter"},
		{"private key cut short", "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow...", "x\n[REDACTED:private_key]"},
		{"url password", "DATABASE_URL is postgres://app:" + dbPassword + "@db:5432/app", "DATABASE_URL is postgres://app:[REDACTED:url_password]@db:5432/app"},
		{"dotenv", "API_TOKEN=abc123\n", "API_TOKEN=[REDACTED:dotenv]\n"},
		{"dotenv export quoted", `export DB_PASSWORD="` + dbPassword + `" # prod` + "\n", `export DB_PASSWORD="[REDACTED:dotenv]" # prod` + "\n"},
		{"dotenv single quotes", "SECRET_KEY='a b c'", "SECRET_KEY='[REDACTED:dotenv]'"},
		{"dotenv short value", "DB_PASS=" + shortSecret, "DB_PASS=[REDACTED:dotenv]"},
		{"dotenv through grep", "./.env:3:STRIPE_SECRET=whatever\n./app/.env.local:MY_CREDENTIALS=u:p\n", "./.env:3:STRIPE_SECRET=[REDACTED:dotenv]\n./app/.env.local:MY_CREDENTIALS=[REDACTED:dotenv]\n"},
		{"dotenv through read_file", "     1\tpassword=letmein\n     2\tuser=me\n", "     1\tpassword=[REDACTED:dotenv]\n     2\tuser=me\n"},
		{"dotenv docker flag", "docker run -e API_KEY=abc123 img", "docker run -e API_KEY=[REDACTED:dotenv] img"},
		{"properties", "spring.datasource.password=" + dbPassword, "spring.datasource.password=[REDACTED:dotenv]"},
		{"a token in a dotenv value", "GITHUB_TOKEN=" + ghToken, "GITHUB_TOKEN=[REDACTED:github]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRedactor(t, Settings{})
			if got := r.Redact(tc.in); got != tc.want {
				t.Errorf("redact(%q)\n = %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestLeavesOrdinaryTextAlone(t *testing.T) {
	for _, in := range []string{
		"the task-management-system-for-teams is a risk-assessment-framework-thing",
		"ask-me-anything-about-everything-please",
		"conn = connect(user=u, password=pw)",
		"if token == expected_token { ok = true }",
		"API_KEY=$API_KEY ./run.sh",
		"export GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
		"set SECRET=%SECRET%",
		"KEY_ID=7 and PATH=/usr/bin HOME=/root",
		"https://example.com/path?q=1 and ssh://git@github.com/x/y.git",
		"ghp_short and AKIA-not-a-key AIzaShort",
		"xAKIAIOSFODNN7EXAMPLEx is inside a word",
		"-----BEGIN CERTIFICATE-----\nMIIB...\n-----END CERTIFICATE-----",
		"eyJhbGciOi is half a token",
		"func password() string { return cfg.Password }",
		"password_hint=\n",
	} {
		r := mustRedactor(t, Settings{})
		if got := r.Redact(in); got != in {
			t.Errorf("redact(%q)\n = %q, want it unchanged", in, got)
		}
	}
}

func TestLearnedValuesAreRedactedEverywhere(t *testing.T) {
	r := mustRedactor(t, Settings{})
	if got := r.Redact("DB_PASSWORD=" + dbPassword + "\nagain: " + dbPassword); got != "DB_PASSWORD=[REDACTED:dotenv]\nagain: [REDACTED:dotenv]" {
		t.Errorf("same result: %q", got)
	}
	// A later result that shows the value without its key.
	if got := r.Redact("compose: password: " + dbPassword); got != "compose: password: [REDACTED:dotenv]" {
		t.Errorf("later result: %q", got)
	}
	// Short values are redacted where they are assigned, not everywhere.
	if got := r.Redact("DB_PASS=" + shortSecret + " and " + shortSecret); got != "DB_PASS=[REDACTED:dotenv] and "+shortSecret {
		t.Errorf("short value: %q", got)
	}
}

func TestDisablePatterns(t *testing.T) {
	in := "t=" + jwtToken + " k=" + ghToken + "\nAPI_TOKEN=abc123"
	r := mustRedactor(t, Settings{Disable: []string{"jwt", "dotenv"}})
	want := "t=" + jwtToken + " k=[REDACTED:github]\nAPI_TOKEN=abc123"
	if got := r.Redact(in); got != want {
		t.Errorf("redact = %q\nwant %q", got, want)
	}
	_, err := New(nil, Settings{Disable: []string{"jwtt"}})
	if err == nil || !strings.Contains(err.Error(), `unknown pattern "jwtt"`) || !strings.Contains(err.Error(), "the patterns are dotenv, ") {
		t.Errorf("error = %v", err)
	}
	// Every name Patterns lists can be disabled, and then finds nothing.
	for _, name := range Patterns() {
		if _, err := New(nil, Settings{Disable: []string{name}}); err != nil {
			t.Errorf("disable %s: %v", name, err)
		}
	}
}

// bigResult is about 1 MiB of ordinary tool output (source code and logs)
// with a few secrets in it.
func bigResult() string {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "%6d\tfunc handler%d(w http.ResponseWriter, r *http.Request) { x := r.URL.Query().Get(\"q\"); if x == \"\" { return } }\n", i, i)
		fmt.Fprintf(&b, "2024-05-01T12:00:%02d INFO request id=%d path=/api/v1/items?page=%d status=200 latency=12ms https://example.com/x\n", i%60, i, i)
		if i%2000 == 0 {
			fmt.Fprintf(&b, "API_TOKEN=value%d GITHUB=%s\n", i, ghToken)
		}
	}
	return b.String()
}

func TestBigResult(t *testing.T) {
	in := bigResult()
	out := mustRedactor(t, Settings{}, "sk-e2e-secret-key").Redact(in)
	if strings.Contains(out, ghToken) || strings.Contains(out, "API_TOKEN=value") {
		t.Error("a secret got through")
	}
	if strings.Count(out, "[REDACTED:github]") != strings.Count(in, ghToken) {
		t.Error("not every token was redacted")
	}
}

func BenchmarkRedact1MiB(b *testing.B) {
	in := bigResult()
	r := mustRedactor(b, Settings{}, "sk-e2e-secret-key", "another-secret-value")
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		r.Redact(in)
	}
}
