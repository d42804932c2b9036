package approval

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

func fetchCall(url string) chat.ToolCall {
	args, _ := json.Marshal(tools.FetchArgs{URL: url})
	return chat.ToolCall{ID: "f", Name: tools.Fetch, Arguments: string(args)}
}

func mustRules(t *testing.T, rules ...string) []Rule {
	t.Helper()
	var out []Rule
	for _, s := range rules {
		r, err := ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestParseFetchRules(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"fetch(domain:go.dev)", "fetch(domain:go.dev)", ""},
		{"fetch(domain:Go.Dev.)", "fetch(domain:go.dev)", ""},
		{"fetch(domain:*.go.dev)", "fetch(domain:*.go.dev)", ""},
		{"fetch(domain:127.0.0.1)", "fetch(domain:127.0.0.1)", ""},
		{"fetch(domain:[::1])", "fetch(domain:::1)", ""},
		{"fetch(domain:::1)", "fetch(domain:::1)", ""},
		{"fetch", "fetch", ""},
		{"fetch(go.dev)", "", "a fetch rule names a host"},
		{"fetch(domain:*)", "", "a host, or *."},
		{"fetch(domain:go.*)", "", "a host, or *."},
		{"fetch(domain:https://go.dev)", "", "without a scheme"},
		{"fetch(domain:go.dev/doc)", "", "without a scheme"},
		{"fetch(domain:2130706433)", "", "IPv4 address written"},
		{"fetch(domain:*.10.0.0.1)", "", "no subdomains"},
	} {
		r, err := ParseRule(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRule(%q) = %v, %v; want an error with %q", tc.in, r, err, tc.err)
			}
			continue
		}
		if err != nil || r.String() != tc.want {
			t.Errorf("ParseRule(%q) = %v, %v; want %s", tc.in, r, err, tc.want)
			continue
		}
		if back, err := ParseRule(r.String()); err != nil || back != r {
			t.Errorf("%s does not read back: %v, %v", r, back, err)
		}
	}
}

// TestFetchRules attacks domain rules as a prompt-injected model would:
// lookalike hosts, user info, another spelling of the address.
func TestFetchRules(t *testing.T) {
	reg := registryOn(t, t.TempDir())
	allow := mustRules(t, "fetch(domain:go.dev)", "fetch(domain:*.rust-lang.org)")
	deny := mustRules(t, "fetch(domain:evil.example)")
	for _, tc := range []struct {
		mode Mode
		url  string
		want hooks.PreToolAction
	}{
		{Default, "https://go.dev/doc", cont},
		{Default, "https://GO.DEV./doc", cont},
		{Default, "https://pkg.go.dev/x", pause},
		{Default, "https://go.dev.evil.example/", pause},
		{Default, "https://go.dev@evil.example/", pause},
		{Default, "https://doc.rust-lang.org/std", cont},
		{Default, "https://rust-lang.org/", pause},
		{Default, "https://evilrust-lang.org/", pause},
		{Default, "http://2130706433/", pause},
		{Default, "https://evil.example/?q=secret", skip},
		{Yolo, "https://anything.example/", cont},
		{Yolo, "https://evil.example/", skip},
		{Yolo, "https://sub.evil.example/", cont},
		{AcceptEdits, "https://pkg.go.dev/", pause},
		{Plan, "https://pkg.go.dev/", pause},
		{Plan, "https://go.dev/", cont},
	} {
		p := New(tc.mode, reg, WithRules(allow, deny))
		got := p.Decide(fetchCall(tc.url))
		if got.Action != tc.want {
			t.Errorf("%s %s: %s (%q), want %s", tc.mode, tc.url, actionNames[got.Action], got.Reason, actionNames[tc.want])
		}
	}
	p := New(Default, reg)
	if got := p.Decide(fetchCall("https://pkg.go.dev/x")); !strings.Contains(got.Reason, "fetch wants to reach pkg.go.dev") {
		t.Errorf("the reason: %q", got.Reason)
	}
	// "Always" gives a rule naming the host, which covers that host alone.
	rules := p.AlwaysRules(fetchCall("https://pkg.go.dev/x?y=1"))
	if len(rules) != 1 || rules[0].String() != "fetch(domain:pkg.go.dev)" {
		t.Fatalf("always: %v", rules)
	}
	p.Remember(fetchCall("https://pkg.go.dev/x?y=1"))
	if got := p.Decide(fetchCall("https://pkg.go.dev/other")); got.Action != cont {
		t.Errorf("after always: %q", got.Reason)
	}
	if got := p.Decide(fetchCall("https://go.dev/")); got.Action != pause {
		t.Errorf("always on pkg.go.dev covers go.dev: %q", got.Reason)
	}
	if rules := p.AlwaysRules(fetchCall("http://go.dev@127.0.0.1/")); rules != nil {
		t.Errorf("always for a refused URL: %v", rules)
	}
}

func TestNamesHost(t *testing.T) {
	reg := registryOn(t, t.TempDir())
	p := New(Default, reg, WithRules(
		mustRules(t, "fetch(domain:localhost)", "fetch(domain:*.corp.example)", "fetch(domain:10.0.0.8)", "fetch(domain:wiki.lan)"),
		mustRules(t, "fetch(domain:wiki.lan)")))
	for host, want := range map[string]bool{
		"localhost": true, "10.0.0.8": true,
		"127.0.0.1":         false, // not named
		"wiki.corp.example": false, // a wildcard names no host exactly
		"wiki.lan":          false, // a deny rule wins
	} {
		if got := p.NamesHost(host); got != want {
			t.Errorf("NamesHost(%s) = %v", host, got)
		}
	}
	// A rule approved "always" in a dialog opens no private address.
	p.Remember(fetchCall("http://127.0.0.1:8080/"))
	if !slices.Contains(p.SessionRules(), "fetch(domain:127.0.0.1)") || p.NamesHost("127.0.0.1") {
		t.Errorf("a session rule names a host for the address rules: %v", p.SessionRules())
	}
	// Nor does a bare rule, or yolo.
	y := New(Yolo, reg, WithRules(mustRules(t, "fetch"), nil))
	if y.NamesHost("localhost") {
		t.Error("a bare fetch rule names localhost")
	}
}

func TestFollowsRedirect(t *testing.T) {
	reg := registryOn(t, t.TempDir())
	p := New(Default, reg, WithRules(mustRules(t, "fetch(domain:go.dev)"), mustRules(t, "fetch(domain:evil.example)")))
	for u, want := range map[string]bool{
		"https://go.dev/x": true, "https://pkg.go.dev/": false, "https://go.dev@evil.example/": false,
	} {
		if got := p.FollowsRedirect(u); got != want {
			t.Errorf("default: FollowsRedirect(%s) = %v", u, got)
		}
	}
	p.SetMode(Yolo)
	if !p.FollowsRedirect("https://pkg.go.dev/") || p.FollowsRedirect("https://evil.example/") {
		t.Error("yolo: follows what it should not, or not what it should")
	}
}

// TestFetchDenyRulesSeeThroughSpellings (red team): in yolo, where only
// deny rules stop fetch, a denied host spelt in upper case, with a final
// dot, in full-width letters or ideographic full stops, or a denied IPv4
// address written in decimal (full-width, which IDNA maps to ASCII), is
// denied or refused by fetch itself.
func TestFetchDenyRulesSeeThroughSpellings(t *testing.T) {
	reg := registryOn(t, t.TempDir())
	deny := mustRules(t, "fetch(domain:pastebin.com)", "fetch(domain:93.184.216.34)", "fetch(domain:*.evil.example)")
	p := New(Yolo, reg, WithRules(nil, deny))
	for _, u := range []string{
		"https://PASTEBIN.COM/raw/x",
		"https://pastebin.com./raw/x",
		"https://ｐａｓｔｅｂｉｎ。ｃｏｍ/raw/x",
		"https://pastebin.com:443/raw/x",
		"http://93.184.216.34/",
		"http://[::ffff:93.184.216.34]/",
		"http://[::ffff:5db8:d822]/",
		"http://９３。１８４。２１６。３４/",
		"http://1572395042/",
		"http://１５７２３９５０４２/",
		"http://0x5d.0xb8.0xd8.0x22/",
		"https://a.b.EVIL.example./",
	} {
		got := p.Decide(fetchCall(u))
		if _, _, err := tools.FetchURL(u); got.Action != skip && err == nil {
			t.Errorf("%s: %s (%q), want it denied or refused", u, actionNames[got.Action], got.Reason)
		}
	}
}
