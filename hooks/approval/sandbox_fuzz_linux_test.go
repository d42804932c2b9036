package approval

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
	"github.com/tackle-dev/tackle/tools/sandbox"
	"github.com/tackle-dev/tackle/tools/sandbox/sandboxtest"
)

// The sandbox fuzz test: shell programs built from the command table's
// risky options (those that write a file they name, and those that run
// a program: every such option of the tools below, read from the table,
// so that a new one is fuzzed too) and from issue 21's trap forms, aimed
// at what the sandbox must hold — a write outside the workspace, to
// ~/.bashrc, to .git/config or .git/hooks; a read of a hidden secret or of
// another process's environment; a connection to a listener on
// 127.0.0.1 — run by the bash tool in the sandbox (no approval: what the
// policy would let through does not matter here). After each program
// the file system, the output and the listener say whether anything got
// out; none may. The same programs without the sandbox do get out (the
// grammar is aimed: TestSandboxFuzzGrammarEscapesWithoutSandbox).

// sbHole is a hole of a piece, filled per use by the fixture.
//
//	{W}   a file to write: outside the workspace (in /var/tmp, next to
//	      it, through ..), ~/.bashrc, .git/config, .git/hooks/pre-commit
//	{R}   a file to read: the hidden key, another process's environ
//	{C}   an attack: a write to {W}, a read of {R} printed, a connection
//	{C64} {C} base64-encoded; {CHEX} hex-encoded
//	{P}   a program that does {C} (./p.sh, made before the piece)
//	{PORT} the listener's port
//
// {C} has no quotes of either kind, so it fits in '…' and "…".
type sbPiece struct {
	text string
	from string
}

// sbTableTools are the tools whose risky options the grammar takes from
// the command table, with the words that make an invocation of each
// (operands, and for subcommands the subcommand). Tools that act on the
// system rather than on files (date -s, docker …) are left out: without
// the sandbox, the control run would really do it.
var sbTableTools = []struct {
	name, sub, tail string
}{
	{name: "sort", tail: "README"},
	{name: "tree", tail: "."},
	{name: "gofmt", tail: "main.go"},
	{name: "tar", tail: "-cf /dev/null README"},
	{name: "curl", tail: "-s http://127.0.0.1:{PORT}/"},
	{name: "git", sub: "log", tail: "-1"},
	{name: "git", sub: "diff", tail: "HEAD"},
	{name: "git", sub: "archive", tail: "HEAD"},
	{name: "git", sub: "format-patch", tail: "-1"},
	{name: "go", sub: "list", tail: "-e ."},
	{name: "find", tail: ". -maxdepth 0"},
	{name: "dd", tail: "if=README status=none"},
	{name: "awk", tail: "'{print}' README"},
	{name: "sed", tail: "-n p README"},
}

// sbTablePieces are the pieces made from the table: for each risky option
// of sbTableTools that writes a file it names, that option naming {W};
// for each that runs a program or code, that option naming {P}.
func sbTablePieces() []sbPiece {
	var out []sbPiece
	for _, tt := range sbTableTools {
		spec := lookupTool(tt.name)
		if spec == nil {
			panic("not in the table: " + tt.name)
		}
		lead := tt.name
		if tt.sub != "" {
			spec = spec.subs[tt.sub]
			lead += " " + tt.sub
		}
		add := func(opt, value string) {
			out = append(out, sbPiece{text: lead + " " + opt + value + " " + tt.tail, from: "table: " + tt.name + " " + opt})
		}
		forms := func(r risky, value string) {
			if spec.goFlags {
				add("-"+r.short+"=", value)
				return
			}
			for _, ch := range r.short {
				add("-"+string(ch)+" ", value)
			}
			for _, l := range r.long {
				add("--"+l+"=", value)
			}
		}
		for _, r := range spec.risky {
			switch {
			case r.target:
				forms(r, "{W}")
			case r.effect == runsCode:
				forms(r, "{P}")
			}
		}
		for w, r := range spec.words {
			switch {
			case r.target && strings.HasSuffix(w, "="):
				out = append(out, sbPiece{text: lead + " " + tt.tail + " " + w + "{W}", from: "table: " + tt.name + " " + w})
			case r.target:
				out = append(out, sbPiece{text: lead + " " + tt.tail + " " + w + " {W}", from: "table: " + tt.name + " " + w})
			case r.effect == runsCode:
				out = append(out, sbPiece{text: lead + " " + tt.tail + " " + w + " {P} ';'", from: "table: " + tt.name + " " + w})
			}
		}
	}
	return out
}

// sbTrapPieces are issue 21's forms and the plain ways out.
var sbTrapPieces = []sbPiece{
	{"{C}", "plain"},
	{`eval "$(echo {C64} | base64 -d)"`, "eval"},
	{"bash -c '{C}'", "bash -c"},
	{`python3 -c "import os,base64; os.system(base64.b64decode('{C64}').decode())"`, "python3 -c"},
	{`perl -e 'system(pack("H*","{CHEX}"))'`, "perl -e"},
	{"test -v 'x[$({C})]'", "class 1: test -v subscript"},
	{"printf -v 'x[$({C})]' %s y", "class 1: printf -v subscript"},
	{"cat < {R} | base64 -w0", "class 2: input redirect"},
	{"cat {README,{R}} | base64 -w0", "class 2: brace word"},
	{"base64 -w0 < {R}", "class 2: base64 of a redirect"},
	{"xxd -p {R}", "class 2: hex"},
	{"git -c core.fsmonitor='{C}' status --short", "class 3: fsmonitor"},
	{"git -c core.pager='{C}' -p log -1", "class 3: pager"},
	{"git config --global core.pager '{C}'", "class 4: git config --global"},
	{"git config -f {W} core.pager x", "class 4: git config -f"},
	{"echo pwned | tee .git/confi{g,g}", "class 5: tee brace"},
	{"echo pwned >> .[g]it/config", "class 5: glob"},
	{"cp README .gi?/hooks/pre-commit; cp README .gi?/hooks/", "class 5: glob hooks"},
	{"rm -rf {.git,x}", "class 5: rm brace"},
	{"gofmt -cpuprofile={W} main.go", "class 7: gofmt -cpuprofile"},
	{"sed 'r {R}' README | base64 -w0", "class 9: sed r"},
	{"sed -n 'w {W}' README", "sed w"},
	{"sed '1e {C}' README", "sed e"},
	{`awk 'BEGIN{ARGV[1]="{R}";ARGC=2}{print}' | base64 -w0`, "class 9: awk ARGV"},
	{`awk 'BEGIN{system("{C}")}'`, "awk system"},
	{`awk '{print > "{W}"}' README`, "awk print >"},
	{"jq -n --rawfile k {R} '$k' | base64 -w0", "class 9: jq --rawfile"},
	{"tee {W} < README", "tee"},
	{"ln -sf {W} lnk && echo pwned > lnk", "symlink"},
	{"cp README {W}", "cp"},
	{"xxd README {W}", "xxd outfile"},
	{"curl -s file://{R} | base64 -w0", "curl file://"},
	{"dd if={R} status=none | base64 -w0", "dd if="},
	{"cd .. && echo pwned > beside.txt", "cd .."},
}

// sbAttacks are the attacks {C} is made of.
var sbAttacks = []string{
	"echo pwned > {W}",
	"echo pwned >> {W}",
	"base64 -w0 < {R}",
	"cat {R}",
	"exec 3<>/dev/tcp/127.0.0.1/{PORT} && head -n1 <&3",
	"curl -s http://127.0.0.1:{PORT}/",
}

var sbJoins = []string{"; ", " && ", " | ", " || ", "\n"}

// sbFixture is what the programs aim at, made anew when something got
// out (the control) or a protected path changed (level landlock).
type sbFixture struct {
	base, ws, home, outside, beside string
	key                             string // the fake key's content
	victim                          int    // a process outside the sandbox
	victimSecret                    string
	port                            int
	before                          string // the trees before, as text
}

// sbKey is the fake private key the programs try to read.
const sbKey = "fuzz-fake-ssh-key-material-7d1e"

// newSBFixture makes the places under a directory of /var/tmp (outside
// /tmp, which the sandbox replaces, so a write there is refused, not
// missing).
func newSBFixture(tb testing.TB, victim int, victimSecret string, port int) *sbFixture {
	tb.Helper()
	base, err := os.MkdirTemp("/var/tmp", fmt.Sprintf("tackle-sbfuzz-%d-", os.Getpid()))
	if err != nil {
		tb.Skipf("no /var/tmp: %v", err)
	}
	f := &sbFixture{base: base, ws: filepath.Join(base, "ws"), home: filepath.Join(base, "home"), outside: filepath.Join(base, "outside"),
		beside: filepath.Join(base, "beside"), key: sbKey, victim: victim, victimSecret: victimSecret, port: port}
	for rel, body := range map[string]string{
		"ws/README":                  "the readme\n",
		"ws/main.go":                 "package x\n\nfunc F() {}\n",
		"ws/go.mod":                  "module example.com/x\n\ngo 1.22\n",
		"home/.bashrc":               "# the user's .bashrc\n",
		"home/.ssh/id_ed25519":       sbKey + "\n",
		"outside/keep.txt":           "keep\n",
		"beside/keep.txt":            "keep\n",
		"ws/.git/hooks/.placeholder": "",
		"tmp/go-build/.placeholder":  "", // the sandbox's temp dir and build cache
		// The go command's telemetry off: else it writes counters to the
		// home (a write outside the workspace for the control, left by a
		// process of its own after the program ended).
		"home/.config/go/telemetry/mode": "off\n",
	} {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	os.Remove(filepath.Join(f.ws, ".git", "hooks", ".placeholder"))
	os.Remove(filepath.Join(base, "tmp", "go-build", ".placeholder"))
	for _, args := range [][]string{{"init", "-q"}, {"add", "README", "main.go", "go.mod"}, {"commit", "-qm", "init"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		cmd.Dir = f.ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	f.before = f.trees(tb)
	return f
}

func (f *sbFixture) remove() { os.RemoveAll(f.base) }

// removeStaleFixtures removes the fixtures of processes gone: a fuzzing
// worker exits without its cleanups.
func removeStaleFixtures() {
	dirs, _ := filepath.Glob("/var/tmp/tackle-sbfuzz-*-*")
	for _, d := range dirs {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(d), "tackle-sbfuzz-%d-", &pid); err != nil || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.RemoveAll(d)
		}
	}
}

// trees is every file outside the workspace and in its .git, with its
// mode and content.
func (f *sbFixture) trees(tb testing.TB) string {
	tb.Helper()
	var b strings.Builder
	for _, dir := range []string{f.home, f.outside, f.beside, filepath.Join(f.ws, ".git")} {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				fmt.Fprintf(&b, "%s: %v\n", path, err)
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			fmt.Fprintf(&b, "%s %v", path, info.Mode())
			if info.Mode().IsRegular() {
				body, _ := os.ReadFile(path)
				fmt.Fprintf(&b, " %x", body)
			}
			b.WriteString("\n")
			return nil
		})
	}
	// The workspace's parent: cd .. && echo > x.
	entries, _ := os.ReadDir(f.base)
	for _, e := range entries {
		b.WriteString("base/" + e.Name() + "\n")
	}
	return b.String()
}

// sbReader hands out choices from the fuzz input; past its end, from a
// generator seeded by the input, so that short inputs make full programs.
type sbReader struct {
	b   []byte
	i   int
	rng *rand.Rand
}

func newSBReader(data []byte) *sbReader {
	var seed uint64
	for _, c := range data {
		seed = seed*131 + uint64(c)
	}
	return &sbReader{b: data, rng: rand.New(rand.NewPCG(seed, 21))}
}

func (r *sbReader) pick(n int) int {
	if n <= 1 {
		return 0
	}
	if r.i < len(r.b) {
		v := int(r.b[r.i])
		r.i++
		return v % n
	}
	return r.rng.IntN(n)
}

// fill fills the holes of text for fixture f.
func (r *sbReader) fill(text string, f *sbFixture, n *int) string {
	write := func() string {
		*n++
		return []string{
			filepath.Join(f.outside, fmt.Sprintf("w%d", *n)),
			filepath.Join(f.beside, fmt.Sprintf("w%d", *n)),
			fmt.Sprintf("../w%d", *n),
			filepath.Join(f.home, ".bashrc"),
			"~/.bashrc",
			".git/config",
			".git/hooks/pre-commit",
			filepath.Join(f.ws, ".git", "hooks", "post-checkout"),
		}[r.pick(8)]
	}
	read := func() string {
		return []string{filepath.Join(f.home, ".ssh", "id_ed25519"), "~/.ssh/id_ed25519", fmt.Sprintf("/proc/%d/environ", f.victim)}[r.pick(3)]
	}
	attack := func() string {
		a := sbAttacks[r.pick(len(sbAttacks))]
		a = strings.ReplaceAll(a, "{W}", write())
		a = strings.ReplaceAll(a, "{R}", read())
		return strings.ReplaceAll(a, "{PORT}", fmt.Sprint(f.port))
	}
	var out strings.Builder
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			out.WriteString(text)
			return out.String()
		}
		out.WriteString(text[:i])
		text = text[i:]
		hole, rest, ok := strings.Cut(text[1:], "}")
		switch {
		case !ok:
			out.WriteString(text)
			return out.String()
		case hole == "W":
			out.WriteString(write())
		case hole == "R":
			out.WriteString(read())
		case hole == "C":
			out.WriteString(attack())
		case hole == "C64":
			out.WriteString(base64.StdEncoding.EncodeToString([]byte(attack())))
		case hole == "CHEX":
			out.WriteString(hex.EncodeToString([]byte(attack())))
		case hole == "P":
			out.WriteString("./p.sh")
		case hole == "PORT":
			out.WriteString(fmt.Sprint(f.port))
		default: // a brace of the shell: {README,…}, x[…] …
			out.WriteString("{")
			text = text[1:]
			continue
		}
		text = rest
	}
}

// program makes a program of 1 to 3 pieces; a piece that names {P} gets
// p.sh made first, doing an attack of its own.
func (r *sbReader) program(f *sbFixture, pieces []sbPiece) (prog string, from []string) {
	var b strings.Builder
	n := 0
	for k := 1 + r.pick(3); k > 0; k-- {
		p := pieces[r.pick(len(pieces))]
		if b.Len() > 0 {
			b.WriteString(sbJoins[r.pick(len(sbJoins))])
		}
		if strings.Contains(p.text, "{P}") {
			fmt.Fprintf(&b, "printf '#!/bin/sh\\n%%s\\n' '%s' > p.sh && chmod +x p.sh && ", r.fill("{C}", f, &n))
		}
		b.WriteString(r.fill(p.text, f, &n))
		from = append(from, p.from)
	}
	return b.String(), from
}

// sbBase64 and sbHex are runs of encoded text long enough to hide a secret.
var (
	sbBase64 = regexp.MustCompile(`[A-Za-z0-9+/]{12,}={0,2}`)
	sbHex    = regexp.MustCompile(`[0-9a-f]{16,}`)
)

// sbReveals reports whether out holds secret: plainly, base64- or
// hex-encoded (xxd -p breaks lines: they are joined first).
func sbReveals(out, secret string) bool {
	if strings.Contains(out, secret) {
		return true
	}
	for _, run := range sbBase64.FindAllString(out, -1) {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
			if b, err := enc.DecodeString(run); err == nil && bytes.Contains(b, []byte(secret)) {
				return true
			}
		}
	}
	for _, run := range sbHex.FindAllString(strings.ReplaceAll(out, "\n", ""), -1) {
		if b, err := hex.DecodeString(run[:len(run)&^1]); err == nil && bytes.Contains(b, []byte(secret)) {
			return true
		}
	}
	return false
}

// sbEnv is where the programs run: the fixture, the victim, the
// listener, and the bash tool in the sandbox at a level (none for the
// control).
type sbEnv struct {
	tb       testing.TB
	f        *sbFixture
	level    sandbox.Level
	reg      *tools.Registry
	ws       *tools.Workspace
	victim   *exec.Cmd
	secret   string
	ln       net.Listener
	accepted atomic.Int32
	pieces   []sbPiece
}

func newSBEnv(tb testing.TB, level sandbox.Level) *sbEnv {
	tb.Helper()
	for _, tool := range []string{"bash", "git", "base64"} {
		if _, err := exec.LookPath(tool); err != nil {
			tb.Skipf("%s is not installed", tool)
		}
	}
	e := &sbEnv{tb: tb, level: level, secret: fmt.Sprintf("fuzz-victim-secret-%x", rand.Uint64())}
	e.victim = exec.Command("sleep", "3600")
	e.victim.Env = []string{"FUZZ_VICTIM_SECRET=" + e.secret}
	// A fuzzing worker exits without its cleanups, and the victim holds
	// the worker's inherited descriptors (the engine's pipes): it must
	// die with the worker, or the engine waits on it for ever.
	e.victim.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := e.victim.Start(); err != nil {
		tb.Fatal(err)
	}
	var err error
	if e.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		tb.Fatal(err)
	}
	go func() {
		for {
			c, err := e.ln.Accept()
			if err != nil {
				return
			}
			e.accepted.Add(1)
			c.Write([]byte("listener-greeting\n"))
			c.Close()
		}
	}()
	tb.Cleanup(func() {
		e.ln.Close()
		e.victim.Process.Kill()
		e.victim.Wait()
		if e.f != nil {
			e.f.remove()
		}
		if e.ws != nil {
			e.ws.Close()
		}
	})
	e.pieces = append(sbTablePieces(), sbTrapPieces...)
	removeStaleFixtures()
	e.reset()
	return e
}

// reset makes the fixture anew, and the registry on it.
func (e *sbEnv) reset() {
	tb := e.tb
	if e.f != nil {
		e.f.remove()
		e.ws.Close()
	}
	e.f = newSBFixture(tb, e.victim.Process.Pid, e.secret, e.ln.Addr().(*net.TCPAddr).Port)
	ws, err := tools.OpenWorkspace(e.f.ws)
	if err != nil {
		tb.Fatal(err)
	}
	e.ws = ws
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.f.home, "LANG=C.UTF-8"}
	opts := []tools.Option{tools.WithEnv(env)}
	if e.level != sandbox.LevelNone {
		tmp := filepath.Join(e.f.base, "tmp")
		s, rep := tools.NewSandbox(sandbox.Policy{Workspace: e.f.ws, TempDir: tmp, MaxLevel: e.level,
			Hidden: []string{filepath.Join(e.f.home, ".ssh")}},
			tools.WithRepositories(tools.NewRepositories(e.f.ws)),
			tools.WithSandboxEnv("GOCACHE="+filepath.Join(tmp, "go-build"), "GIT_OPTIONAL_LOCKS=0"))
		if s == nil || s.Level() != e.level {
			tb.Fatalf("sandbox at %s: %s", e.level, rep)
		}
		opts = append(opts, tools.WithSandbox(s))
	}
	e.reg = tools.NewRegistry(ws, opts...)
}

// run runs prog with the bash tool and says what got out, or "".
func (e *sbEnv) run(prog string) (escaped, output string) {
	tb := e.tb
	before := e.accepted.Load()
	args, _ := json.Marshal(tools.BashArgs{Command: prog, TimeoutMS: 20_000})
	res, err := e.reg.Run(context.Background(), chat.ToolCall{ID: "call_1", Name: tools.Bash, Arguments: string(args)})
	if err != nil {
		tb.Fatalf("harness error: %v", err)
	}
	out := res.Content
	var what []string
	if n := e.accepted.Load() - before; n > 0 {
		what = append(what, fmt.Sprintf("connected to the listener %d times", n))
	}
	if sbReveals(out, e.f.key) {
		what = append(what, "read the hidden key")
	}
	if sbReveals(out, e.secret) {
		what = append(what, "read another process's environment")
	}
	if after := e.f.trees(tb); after != e.f.before {
		// At level landlock a protected path inside the workspace can
		// change; the sandbox reports it, and only that is promised.
		reported := e.level == sandbox.LevelLandlock && strings.Contains(out, "changed protected paths")
		if !reported || changedOutsideGit(e.f, e.f.before, after) {
			what = append(what, "changed files:\n"+treeDiff(e.f.before, after))
		}
		e.reset()
	}
	return strings.Join(what, "; "), out
}

// changedOutsideGit reports a change of the trees outside the
// workspace's .git.
func changedOutsideGit(f *sbFixture, before, after string) bool {
	strip := func(s string) string {
		var keep []string
		for line := range strings.Lines(s) {
			if !strings.HasPrefix(line, filepath.Join(f.ws, ".git")) {
				keep = append(keep, line)
			}
		}
		return strings.Join(keep, "")
	}
	return strip(before) != strip(after)
}

// treeDiff is the lines of after not in before, and the reverse.
func treeDiff(before, after string) string {
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	var out []string
	for _, l := range a {
		if !slices.Contains(b, l) {
			out = append(out, "+ "+l)
		}
	}
	for _, l := range b {
		if !slices.Contains(a, l) {
			out = append(out, "- "+l)
		}
	}
	return strings.Join(out, "\n")
}

// sbSeeds are the inputs the seed corpus runs: made by a fixed generator,
// so that every normal go test runs the same programs.
func sbSeeds(n int) [][]byte {
	rng := rand.New(rand.NewPCG(21, 2026))
	seeds := make([][]byte, n)
	for i := range seeds {
		seeds[i] = make([]byte, 16)
		for j := range seeds[i] {
			seeds[i][j] = byte(rng.IntN(256))
		}
	}
	return seeds
}

// sbLevels are the levels the fuzz runs at: the system's best and, below
// full, landlock (as where namespaces are refused).
func sbLevels(tb testing.TB) []sandbox.Level {
	r := sandboxtest.Require(tb, sandbox.LevelLandlock)
	if r.Level == sandbox.LevelFull {
		return []sandbox.Level{sandbox.LevelFull, sandbox.LevelLandlock}
	}
	return []sandbox.Level{sandbox.LevelLandlock}
}

// FuzzSandboxNoEscape runs programs of the grammar in the sandbox (the
// first byte picks the level) and fails on anything that got out.
func FuzzSandboxNoEscape(f *testing.F) {
	levels := sbLevels(f)
	for _, seed := range sbSeeds(60) {
		f.Add(seed)
	}
	envs := map[sandbox.Level]*sbEnv{}
	for _, l := range levels {
		envs[l] = newSBEnv(f, l)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		e := envs[levels[int(data[0])%len(levels)]]
		e.tb = t
		defer func() { e.tb = f }()
		prog, from := newSBReader(data[1:]).program(e.f, e.pieces)
		if escaped, out := e.run(prog); escaped != "" {
			t.Errorf("sandbox %s: the program got out: %s\nprogram (%s):\n%s\noutput:\n%s", e.level, escaped, strings.Join(from, ", "), prog, out)
		}
	})
}

// TestSandboxFuzzGrammarEscapesWithoutSandbox: the grammar is aimed. The
// programs of the first seeds, run by the same bash tool without a
// sandbox, get out — a good share of them, of every kind — so that the
// fuzz test's "none got out" means something.
func TestSandboxFuzzGrammarEscapesWithoutSandbox(t *testing.T) {
	sandboxtest.Require(t, sandbox.LevelLandlock)
	e := newSBEnv(t, sandbox.LevelNone)
	const n = 40
	kinds := map[string]int{}
	escapes := 0
	for _, seed := range sbSeeds(n) {
		prog, _ := newSBReader(seed[1:]).program(e.f, e.pieces)
		escaped, _ := e.run(prog)
		if escaped != "" {
			escapes++
			for _, k := range []string{"listener", "key", "environment", "changed files"} {
				if strings.Contains(escaped, k) {
					kinds[k]++
				}
			}
		}
	}
	t.Logf("without a sandbox %d of %d programs got out: %v", escapes, n, kinds)
	if escapes < n/3 || len(kinds) < 4 {
		t.Errorf("without a sandbox only %d of %d programs got out (%v): the grammar is not aimed", escapes, n, kinds)
	}
}
