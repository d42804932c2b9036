package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/tools/chat"
)

// liveCall is a bash call running with a progress listener: each report
// of its output arrives on reports, in order.
type liveCall struct {
	t       *testing.T
	dir     string // where its gates are
	reports chan string
	seen    []string // every report taken so far
	done    chan chat.ToolResult
}

// runLive starts command in r, with a FIFO under dir for each gate: the
// command waits for a gate with `read _ < gate`, and the test opens it
// with open.
func runLive(t *testing.T, r *Registry, dir, command string, gates ...string) *liveCall {
	t.Helper()
	for _, g := range gates {
		if err := syscall.Mkfifo(filepath.Join(dir, g), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := &liveCall{t: t, dir: dir, reports: make(chan string, 4096), done: make(chan chat.ToolResult, 1)}
	ctx := WithProgress(context.Background(), func(p Progress) {
		if p.Done != 0 || p.Total != 0 || p.Message != "" {
			t.Errorf("bash reported %+v: only output is expected", p)
		}
		c.reports <- p.Output
	})
	args, _ := json.Marshal(BashArgs{Command: command})
	go func() {
		res, err := r.Run(ctx, chat.ToolCall{ID: "call_1", Name: Bash, Arguments: string(args)})
		if err != nil {
			t.Error(err)
		}
		close(c.reports) // no report comes after the result
		c.done <- res
	}()
	return c
}

// waitOutput takes reports until one satisfies cond, and returns it:
// the last one taken when it does.
func (c *liveCall) waitOutput(what string, cond func(string) bool) string {
	c.t.Helper()
	if n := len(c.seen); n > 0 && cond(c.seen[n-1]) {
		return c.seen[n-1]
	}
	timeout := time.After(20 * time.Second)
	for {
		select {
		case out, ok := <-c.reports:
			if !ok {
				c.t.Fatalf("the call ended before its output showed %s; reports: %q", what, c.seen)
			}
			c.seen = append(c.seen, out)
			if cond(out) {
				return out
			}
		case <-timeout:
			c.t.Fatalf("no report showed %s; reports: %q", what, c.seen)
		}
	}
}

// open lets the command go on past gate.
func (c *liveCall) open(gate string) {
	c.t.Helper()
	// Opening a FIFO for writing waits for the command to open it.
	if err := os.WriteFile(filepath.Join(c.dir, gate), []byte("go\n"), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// result waits for the call's result; every report is in seen then.
func (c *liveCall) result() chat.ToolResult {
	c.t.Helper()
	for out := range c.reports {
		c.seen = append(c.seen, out)
	}
	return <-c.done
}

func TestBashReportsOutputAsItComes(t *testing.T) {
	r, _ := newTestRegistry(t, WithEnv(testEnv()))
	gates := t.TempDir()
	c := runLive(t, r, gates, "echo one; read _ < "+filepath.Join(gates, "g1")+"; echo two; printf 'partial li'; read _ < "+filepath.Join(gates, "g2")+"; echo ne; echo three", "g1", "g2")

	got := c.waitOutput(`"one"`, func(s string) bool { return s != "" })
	if got != "one\n" {
		t.Errorf("first report %q, want %q", got, "one\n")
	}
	c.open("g1")
	// The line being written shows up to its last blank.
	got = c.waitOutput(`"two" and the finished word of the line being written`, func(s string) bool { return strings.Contains(s, "partial") })
	if got != "one\ntwo\npartial " {
		t.Errorf("report %q, want %q", got, "one\ntwo\npartial ")
	}
	c.open("g2")
	res := c.result()
	if res.Status != chat.StatusOK || res.Content != "one\ntwo\npartial line\nthree" {
		t.Errorf("result %s %q", res.Status, res.Content)
	}
	for _, s := range c.seen {
		if !strings.HasPrefix("one\ntwo\npartial line\nthree\n", s) {
			t.Errorf("report %q is not how the output began", s)
		}
	}
}

func TestBashReportsNothingWithoutListener(t *testing.T) {
	// Without a listener the call runs as before: nothing to report to.
	r, _ := newTestRegistry(t, WithEnv(testEnv()))
	if got := wantOK(t, call(t, r, Bash, BashArgs{Command: "echo quiet"})); got != "quiet" {
		t.Errorf("got %q", got)
	}
}

// TestSecurityBashLiveOutputScrubsSecrets: a command that prints the
// environment's secrets a piece at a time never shows a piece of one
// live: a word shows once whole, when it is scrubbed, and the start of a
// secret at the end of what came (one holding a blank, one of several
// lines) is held back as at a cut.
func TestSecurityBashLiveOutputScrubsSecrets(t *testing.T) {
	key := "sk-proj-0123456789abcdef"
	pw := "correct horse battery staple"
	pem := "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END KEY-----"
	r, _ := newTestRegistry(t, WithEnv(testEnv("OPENAI_API_KEY="+key, "DB_PASSWORD="+pw, "DEPLOY_SECRET="+pem)))
	gates := t.TempDir()
	g := func(n string) string { return "read _ < " + filepath.Join(gates, n) }
	cmd := strings.Join([]string{
		`printf 'key: sk-proj-01234'`, g("g1"), `printf '56789abcdef\n'`,
		`printf 'pw: correct horse '`, g("g2"), `printf 'battery staple\n'`,
		`printf -- '-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n'`, g("g3"), `printf 'BKcwggSjAgEAAoIBAQC7\n-----END KEY-----\n'`,
		"echo end",
	}, "; ")
	c := runLive(t, r, gates, cmd, "g1", "g2", "g3")

	c.waitOutput(`"key: "`, func(s string) bool { return s == "key: " })
	c.open("g1")
	c.waitOutput(`the key scrubbed`, func(s string) bool { return strings.Contains(s, "key: [REDACTED]\n") })
	c.waitOutput(`"pw: " and the start of the password held back`, func(s string) bool { return strings.HasSuffix(s, "pw: [REDACTED]") })
	c.open("g2")
	c.waitOutput(`the password scrubbed`, func(s string) bool { return strings.Contains(s, "pw: [REDACTED]\n") })
	c.waitOutput(`the start of the key block held back`, func(s string) bool { return strings.HasSuffix(s, "pw: [REDACTED]\n[REDACTED]") })
	c.open("g3")
	res := c.result()
	wantContains(t, res.Content, "key: [REDACTED]\n", "pw: [REDACTED]\n", "[REDACTED]\nend")
	for _, s := range c.seen {
		for _, piece := range []string{"sk-proj", "01234", "correct", "horse", "BEGIN KEY", "MIIEvQ"} {
			if strings.Contains(s, piece) {
				t.Errorf("a report shows %q: %q", piece, s)
			}
		}
	}
}

// TestSecurityBashLiveOutputIsSafeText: escape sequences and control
// characters never reach a report, whole or cut in two by the pause.
func TestSecurityBashLiveOutputIsSafeText(t *testing.T) {
	r, _ := newTestRegistry(t, WithEnv(testEnv()))
	gates := t.TempDir()
	cmd := `printf 'title\033]0;pwned\007 clear\033[2J bell\007 nul\000 del\177 c1\302\233\n'; printf 'half \033[3'; read _ < ` + filepath.Join(gates, "g1") + `; printf '1mred\033[0m done\n'`
	c := runLive(t, r, gates, cmd, "g1")
	c.waitOutput("the first line", func(s string) bool { return strings.Contains(s, "title") })
	c.waitOutput(`"half "`, func(s string) bool { return strings.HasSuffix(s, "half ") })
	c.open("g1")
	res := c.result()
	wantContains(t, res.Content, "title clear bell␇ nul␀ del␡ c1\ufffd\nhalf red done")
	if len(c.seen) == 0 {
		t.Fatal("no reports")
	}
	for _, s := range c.seen {
		for _, r := range s {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
				t.Errorf("a report holds %U: %q", r, s)
			}
		}
		if strings.Contains(s, "pwned") {
			t.Errorf("a report shows the title sequence's text: %q", s)
		}
	}
}

func TestBashLiveOutputIsBounded(t *testing.T) {
	r, _ := newTestRegistry(t, WithEnv(testEnv()))
	start := time.Now()
	c := runLive(t, r, t.TempDir(), "seq 1 300000")
	res := c.result()
	elapsed := time.Since(start)
	if !strings.HasSuffix(res.Content, "\n300000") {
		t.Fatalf("result ends %q", res.Content[len(res.Content)-20:])
	}
	// At most one report per liveEvery, and the first at once.
	if most := int(elapsed/liveEvery) + 2; len(c.seen) > most {
		t.Errorf("%d reports in %v, want at most %d", len(c.seen), elapsed, most)
	}
	for _, s := range c.seen {
		if len(s) > liveContext {
			t.Errorf("a report of %d bytes", len(s))
		}
		if s != "" && !strings.HasSuffix(s, "\n") {
			t.Errorf("a report ends in a line being written: %q", s[max(len(s)-20, 0):])
		}
	}
}

func TestLiveText(t *testing.T) {
	sc := newScrubber([]string{"s3cr3t-value", "open sesame"})
	tests := []struct {
		name string
		in   string
		cut  bool
		want string
	}{
		{"whole lines", "a\nb\n", false, "a\nb\n"},
		{"the line being written, to its last blank", "a\nb c d", false, "a\nb c "},
		{"a word being written", "a\nbcd", false, "a\n"},
		{"a carriage return ends a word", "a\n10%\r20", false, "a\n10%\r"},
		{"the first line began before", "xyz\nb\n", true, "b\n"},
		{"no line began", "xyz", true, ""},
		{"a secret", "a s3cr3t-value b\n", false, "a [REDACTED] b\n"},
		{"the start of a secret at the end", "a\nopen ", false, "a\n[REDACTED]"},
		{"escapes", "\x1b[31mred\x1b[0m\n", false, "red\n"},
		{"binary", strings.Repeat("\x00\x01\x02 ", 20) + "\n", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := liveText([]byte(tt.in), tt.cut, sc); got != tt.want {
				t.Errorf("liveText(%q, %v) = %q, want %q", tt.in, tt.cut, got, tt.want)
			}
		})
	}
}

func TestHeadTailLast(t *testing.T) {
	b := newHeadTail(4, 6)
	b.Write([]byte("abc"))
	if got, cut := b.last(10); string(got) != "abc" || cut {
		t.Errorf("last(10) = %q, %v", got, cut)
	}
	if got, cut := b.last(2); string(got) != "bc" || !cut {
		t.Errorf("last(2) = %q, %v", got, cut)
	}
	b.Write([]byte("defgh")) // head abcd, ring efgh
	if got, cut := b.last(10); string(got) != "abcdefgh" || cut {
		t.Errorf("last(10) = %q, %v", got, cut)
	}
	if got, cut := b.last(6); string(got) != "cdefgh" || !cut {
		t.Errorf("last(6) = %q, %v", got, cut)
	}
	b.Write([]byte("ijk")) // the ring wraps: fghijk
	if got, cut := b.last(10); string(got) != "fghijk" || !cut {
		t.Errorf("last(10) = %q, %v", got, cut)
	}
	if got, cut := b.last(3); string(got) != "ijk" || !cut {
		t.Errorf("last(3) = %q, %v", got, cut)
	}
	// last returns a copy: writing on does not change it.
	got, _ := b.last(3)
	b.Write([]byte("xyz"))
	if string(got) != "ijk" {
		t.Errorf("last's bytes changed to %q", got)
	}
}
