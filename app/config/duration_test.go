package config

import (
	"strings"
	"testing"
	"time"
)

func TestParseStreamTimeoutsAndRedact(t *testing.T) {
	c, err := Parse([]byte(`{"first_token_timeout": "90s", "stream_idle_timeout": "2m", "redact": {"disable": ["jwt"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if time.Duration(c.FirstTokenTimeout) != 90*time.Second || time.Duration(c.StreamIdleTimeout) != 2*time.Minute {
		t.Errorf("timeouts = %v, %v", c.FirstTokenTimeout, c.StreamIdleTimeout)
	}
	if len(c.Redact.Disable) != 1 || c.Redact.Disable[0] != "jwt" {
		t.Errorf("redact = %+v", c.Redact)
	}
	for body, want := range map[string]string{
		`{"first_token_timeout": "soon"}`: `invalid duration "soon": expected a Go duration such as "90s" or "2m"`,
		`{"stream_idle_timeout": 60}`:     `duration 60 is not a string: expected a Go duration such as "90s" or "2m"`,
		`{"stream_idle_timeout": "0s"}`:   `duration "0s" must be more than 0`,
		`{"first_token_timeout": "-1m"}`:  `duration "-1m" must be more than 0`,
	} {
		if _, err := Parse([]byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want %q", body, err, want)
		}
	}
}

func TestStateDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}, "/x/state/tackle"},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/home/u"}, "/home/u/.local/state/tackle"},
		{map[string]string{"HOME": "/home/u"}, "/home/u/.local/state/tackle"},
	} {
		if got, err := StateDir(env(tc.env)); err != nil || got != tc.want {
			t.Errorf("StateDir(%v) = %q, %v, want %q", tc.env, got, err, tc.want)
		}
	}
	if _, err := StateDir(env(nil)); err == nil {
		t.Error("no HOME: no error")
	}
}
