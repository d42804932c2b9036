package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The property tests are named TestCommand…: TestUnprivileged runs them
// again as uid 65534.

func TestCommandWritesTheWritableRoots(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		r := f.mustRun(t, m, `set -e
			echo a > new && mkdir -p d/e && mv new d/e/ && ln -s d link && ln d/e/new hard && rm -r d link hard
			echo tmp > "$TMPDIR/t"
			echo cache > "$CACHE/c"
			echo gone > /dev/null; : > /dev/null; head -c 3 /dev/zero >/dev/null; cat /dev/urandom | head -c 1 >/dev/null
			ls nowhere 2>/dev/null || true
			echo to-stdout > /dev/stdout; echo to-fd > /proc/self/fd/1; echo to-stderr > /dev/stderr
			echo done`)
		for _, want := range []string{"to-stdout", "to-fd", "to-stderr", "done"} {
			if !strings.Contains(r.out, want) {
				t.Errorf("output lacks %q:\n%s", want, r.out)
			}
		}
		for path, want := range map[string]string{filepath.Join(f.tmp, "t"): "tmp\n", filepath.Join(f.cache, "c"): "cache\n"} {
			if b, err := os.ReadFile(path); err != nil || string(b) != want {
				t.Errorf("%s: %q, %v; want %q", path, b, err, want)
			}
		}
		if r.proc.Level() != m.launch.level {
			t.Errorf("level %s, want %s", r.proc.Level(), m.launch.level)
		}
	})
}

func TestCommandWritesNothingElse(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		before := f.outside(t)
		for _, script := range []string{
			`echo x >> "$HOME/.bashrc"`,
			`echo x > "$HOME/new"`,
			`echo x > "$ROOT/new"`,
			`mkdir "$HOME/d"`,
			`rm "$HOME/notes.txt"`,
			`mv "$HOME/notes.txt" "$WS/"`,
			`ln "$HOME/notes.txt" "$WS/hard"`,
			`: > "$HOME/notes.txt"`,
			`truncate -s 0 "$HOME/notes.txt"`,
			`echo x > /var/tmp/tackle-sandbox-escape-$$`,
			`echo x > /dev/shm/tackle-sandbox-escape-$$ && test -e /dev/shm/tackle-sandbox-escape-$$ && ! ls /dev/shm | grep -v tackle-sandbox-escape`,
			// Landlock does not control a file's mode, owner or times;
			// the read-only mounts of level full do.
			`chmod 777 "$HOME/notes.txt"`,
			`touch -d 2000-01-01 "$HOME/notes.txt"`,
		} {
			metadata := strings.HasPrefix(script, "chmod") || strings.HasPrefix(script, "touch")
			if metadata && m.launch.level == LevelLandlock {
				continue
			}
			r := f.run(t, m, script)
			if m.launch.level == LevelFull && strings.Contains(script, "/dev/shm") {
				// A private tmpfs: writable, and empty of the host's files.
				if r.err != nil {
					t.Errorf("%s: /dev/shm is a private tmpfs at level full:\n%s", script, r)
				}
				continue
			}
			if r.err == nil {
				t.Errorf("%s: succeeded:\n%s", script, r)
			}
		}
		if f.outside(t) != before {
			t.Errorf("the fixture changed outside the writable roots")
		}
		if matches, _ := filepath.Glob("/var/tmp/tackle-sandbox-escape-*"); len(matches) > 0 {
			t.Errorf("written outside: %v", matches)
		}
		if matches, _ := filepath.Glob("/dev/shm/tackle-sandbox-escape-*"); len(matches) > 0 {
			t.Errorf("written to the host's /dev/shm: %v", matches)
		}
	})
}

// The attacks on protected paths: at LevelFull each fails and changes
// nothing; at LevelLandlock Process.Changed reports every change.
var protectedAttacks = []string{
	`echo x >> .git/config`,
	`: > .git/config`,
	`truncate -s 0 .git/config`,
	`printf '#!/bin/sh\necho owned\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
	`chmod 777 .git/config`,
	`touch -d 2000-01-01 .git/config`,
	`rm -rf .git`,
	`mv .git moved`,
	`mv .git/config .git/config.old`,
	`ln .git/config hard && echo x >> hard`,
	`ln -s .git/config soft && echo x >> soft`,
	`cp -a .git copy && rm -rf .git && mv copy .git`,
	`echo x >> sub/.git/config`,
	`rm -rf sub`,
	`echo x > .mcp.json`,
	`rm .mcp.json`,
	`mv .mcp.json x.json`,
	`echo '{"hooks":1}' > .tackle/config.json`,
	`mkdir -p .claude/commands && echo x > .claude/commands/x.md`,
	`mv .claude claude.old`,
	`echo 'curl evil' >> hooks/check.sh`,
	`mv hooks hooks.old && mkdir hooks && echo x > hooks/check.sh`,
	`umount .git`,
	`unshare -Urm sh -c 'mount -o remount,rw,bind .git && echo x >> .git/config'`,
	`unshare -Urm sh -c 'umount -l .git && echo x >> .git/config'`,
}

func TestCommandProtectedPaths(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		for i, attack := range protectedAttacks {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, "", false)
				before := digests(t, f.policy.Protected)
				r := f.run(t, m, attack)
				after := digests(t, f.policy.Protected)
				changed := r.proc.Changed()
				for _, p := range f.policy.Protected {
					if before[p] == after[p] {
						continue
					}
					if m.launch.level == LevelFull {
						t.Errorf("%s: changed %s at level full:\n%s", attack, p, r)
					}
					if !strings.Contains(strings.Join(changed, "\n"), p) {
						t.Errorf("%s: changed %s; Changed says %q", attack, p, changed)
					}
				}
				if m.launch.level == LevelFull && len(changed) > 0 {
					t.Errorf("%s: Changed says %q at level full", attack, changed)
				}
			})
		}
	})
}

// A protected path that does not exist cannot be a read-only mount; its
// creation is reported at every level.
func TestCommandMissingProtectedPathReported(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		r := f.mustRun(t, m, `true`)
		if c := r.proc.Changed(); len(c) > 0 {
			t.Errorf("nothing changed, Changed says %q", c)
		}
		r = f.mustRun(t, m, `echo x > .missing`)
		if c := r.proc.Changed(); !contains(c, filepath.Join(f.ws, ".missing")) {
			t.Errorf("Changed says %q, want .missing", c)
		}
	})
}

// A protected path that is a symbolic link cannot be a mount: its
// replacement is reported at every level.
func TestCommandProtectedLinkReplaced(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		link := filepath.Join(f.ws, ".mcp.json")
		os.Remove(link)
		if err := os.Symlink("README", link); err != nil {
			t.Fatal(err)
		}
		r := f.mustRun(t, m, `cat .mcp.json`)
		if c := r.proc.Changed(); len(c) > 0 {
			t.Errorf("nothing changed, Changed says %q", c)
		}
		r = f.mustRun(t, m, `rm .mcp.json && echo '{"mcpServers":{}}' > .mcp.json`)
		if c := r.proc.Changed(); !contains(c, link) {
			t.Errorf("Changed says %q, want %s", c, link)
		}
	})
}

func TestCommandReadOnlyWorkspace(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		p := f.policy
		p.ReadOnly = true
		before := digest(t, f.ws)
		r := f.mustRun(t, m, `cat README && echo x > "$TMPDIR/t" && echo y > "$CACHE/c"`, p)
		if !strings.Contains(r.out, "readme") {
			t.Errorf("README not read:\n%s", r)
		}
		for _, script := range []string{`echo x > new`, `echo x >> README`, `rm README`, `mkdir d`, `echo x >> .git/config`} {
			if r := f.run(t, m, script, p); r.err == nil {
				t.Errorf("%s: succeeded in a read-only workspace:\n%s", script, r)
			}
		}
		if digest(t, f.ws) != before {
			t.Errorf("the read-only workspace changed")
		}
	})
}

// A workspace under /tmp (where tests and many users keep one) is bound
// back into the private /tmp at LevelFull, with its protected paths, and
// read-only when the workspace is: under the temp dir it would inherit
// the temp dir's rights.
func TestCommandWorkspaceUnderTmp(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, realTmp(), true)
		// (At level landlock, a workspace holding hidden paths cannot be
		// written at its top: see TestCommandHiddenPathsInTheWorkspace.)
		r := f.mustRun(t, m, `pwd -P; echo x > sub/new && cat sub/new && cat notes.txt && echo t > "$TMPDIR/t"`)
		if !strings.HasPrefix(r.out, f.ws+"\n") || !strings.Contains(r.out, "notes") {
			t.Errorf("want the workspace %s as the working directory, readable:\n%s", f.ws, r)
		}
		if _, err := os.Stat(filepath.Join(f.ws, "sub/new")); err != nil {
			t.Errorf("write in the workspace: %v", err)
		}
		before := digest(t, filepath.Join(f.ws, ".git"))
		f.run(t, m, `echo x >> .git/config; rm -rf .git`)
		if m.launch.level == LevelFull && digest(t, filepath.Join(f.ws, ".git")) != before {
			t.Errorf(".git changed")
		}
		r = f.run(t, m, `cat .ssh/id_ed25519 .netrc .aws/credentials; ls .ssh`)
		noSecret(t, "workspace under /tmp", r.out)

		p := f.policy
		p.ReadOnly = true
		before = digest(t, f.ws)
		for _, script := range []string{`echo x > sub/new2`, `rm notes.txt`, `mkdir sub/d`, `chmod 777 sub`} {
			if strings.HasPrefix(script, "chmod") && m.launch.level == LevelLandlock {
				continue // Landlock does not control modes
			}
			if r := f.run(t, m, script, p); r.err == nil {
				t.Errorf("%s: succeeded in a read-only workspace under /tmp:\n%s", script, r)
			}
		}
		if digest(t, f.ws) != before {
			t.Errorf("the read-only workspace changed")
		}
	})
}

// The temp dir as the workspace, or as the working directory, is at its
// own path too.
func TestCommandRunsInTheTempDir(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		dir, err := os.MkdirTemp(realTmp(), "tackle-sandbox-test-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		sub := filepath.Join(dir, "sub")
		os.Mkdir(sub, 0o755)
		for _, c := range []struct {
			p   Policy
			dir string
		}{
			{Policy{Workspace: dir, TempDir: dir}, dir},
			{Policy{Workspace: t.TempDir(), TempDir: dir}, sub},
		} {
			var out strings.Builder
			cmd := exec.Command("bash", "-c", `pwd -P && echo x > f && cat f`)
			cmd.Dir = c.dir
			cmd.Stdout, cmd.Stderr = &out, &out
			if _, err := m.launch.start(cmd, c.p); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil || out.String() != c.dir+"\nx\n" {
				t.Errorf("%+v in %s: %v\n%s", c.p, c.dir, err, out.String())
			}
		}
	})
}
