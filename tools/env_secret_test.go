package tools

import "testing"

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
