package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// trusting is a cache that keeps every ruleset it builds, however
// recently the directories it listed changed (the fixtures were made just
// now), so that the tests see it used again.
func trusting() *rulesetCache {
	return &rulesetCache{racy: -time.Hour}
}

func (c *rulesetCache) built() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.builds
}

func TestRulesetUsedAgainWhileNothingChanged(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		m.launch.rules = trusting()
		// The directories on the way to the fixture's hidden paths are
		// listed, /var/tmp among them, where other tests make theirs: a
		// command between two of their changes uses the last one's.
		reused := false
		f.mustRun(t, m, `cat "$HOME/notes.txt"`)
		for range 10 {
			before := m.launch.rules.built()
			f.mustRun(t, m, `cat "$HOME/notes.txt"`)
			if reused = m.launch.rules.built() == before; reused {
				break
			}
		}
		if !reused {
			t.Fatal("two commands of one policy never shared a ruleset")
		}
		// A file made in a listed directory since: the home is listed on
		// the way to .ssh, and the new file must be readable.
		before := m.launch.rules.built()
		if err := os.WriteFile(filepath.Join(f.home, "new.txt"), []byte("fresh"), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := f.mustRun(t, m, `cat "$HOME/new.txt"`); r.out != "fresh" {
			t.Fatalf("new file: %s", r)
		}
		if m.launch.rules.built() == before {
			t.Fatal("the ruleset was used again after the home changed")
		}
	})
}

// TestRulesetRebuiltWhenAHiddenPathIsSwapped is the attack on the cache:
// a directory the last ruleset let commands read is renamed to a hidden
// path's name. Its rule is on the directory itself, so a stale ruleset
// would let the next command read it there.
func TestRulesetRebuiltWhenAHiddenPathIsSwapped(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		m.launch.rules = trusting()
		other := filepath.Join(f.home, "other")
		if err := os.Mkdir(other, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other, "id_ed25519"), []byte("SECRET-swapped-in"), 0o600); err != nil {
			t.Fatal(err)
		}
		f.mustRun(t, m, `cat "$HOME/other/id_ed25519"`)
		ssh := filepath.Join(f.home, ".ssh")
		if err := os.Rename(ssh, filepath.Join(f.home, "ssh.old")); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(other, ssh); err != nil {
			t.Fatal(err)
		}
		r := f.run(t, m, `cat "$HOME/.ssh/id_ed25519"`)
		if r.err == nil || strings.Contains(r.out, "SECRET") {
			t.Fatalf("read the hidden path after the swap:\n%s", r)
		}
	})
}

// TestRulesetRebuiltWhenARootIsReplaced: a writable root removed and made
// again is another directory, which the last ruleset has no rule for.
func TestRulesetRebuiltWhenARootIsReplaced(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		m.launch.rules = trusting()
		f.mustRun(t, m, `echo one > "$CACHE/a"`)
		if err := os.RemoveAll(f.cache); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(f.cache, 0o755); err != nil {
			t.Fatal(err)
		}
		f.mustRun(t, m, `echo two > "$CACHE/b"`)
	})
}

func TestRulesetOfADirectoryJustChangedIsNotKept(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		// The fixture's directories changed within the last hour.
		m.launch.rules = &rulesetCache{racy: time.Hour}
		f.mustRun(t, m, `true`)
		f.mustRun(t, m, `true`)
		if n := m.launch.rules.built(); n != 2 {
			t.Fatalf("%d rulesets built, want 2: none may be kept", n)
		}
	})
}

func TestRulesetKeyedByTheStandardStreams(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		m.launch.rules = trusting()
		f.mustRun(t, m, `true`)
		// A command whose output is a file gets a rule for that file, which
		// the next command, writing elsewhere, must not inherit.
		out, err := os.Create(filepath.Join(f.root, "out.txt"))
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		cmd := f.command(`echo to-the-file`, nil)
		cmd.Stdout = out
		if _, err := m.launch.start(cmd, f.policy); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writing to its own output file: %v", err)
		}
		r := f.run(t, m, `echo again >> "$ROOT/out.txt"`)
		if r.err == nil {
			t.Fatalf("a later command wrote the earlier one's output file:\n%s", r)
		}
	})
}

func TestPreparedRulesetServesTheFirstCommand(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		// Other tests change /var/tmp, on the way to the fixture's hidden
		// paths: a command between two of their changes is served by the
		// ruleset prepared before it.
		served := false
		for range 10 {
			c := trusting()
			c.prepare(f.policy, m.launch.level)
			m.launch.rules = c
			// The command's output is a pipe, as the bash tool's is.
			r := f.run(t, m, `cat "$HOME/notes.txt" "$HOME/.ssh/id_ed25519"`)
			if r.err == nil || !strings.Contains(r.out, "notes") || strings.Contains(r.out, "SECRET") {
				t.Fatalf("with the prepared ruleset:\n%s", r)
			}
			if served = c.built() == 1; served {
				break
			}
		}
		if !served {
			t.Fatal("no command was served by the ruleset prepared for it")
		}
	})
}

func TestRulesetsOfSeveralPoliciesKept(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		readOnly := f.policy
		readOnly.ReadOnly = true
		kept := false
		for range 10 {
			m.launch.rules = trusting()
			f.mustRun(t, m, `true`)
			f.mustRun(t, m, `true`, readOnly) // tackle's own git status, plan mode
			f.mustRun(t, m, `true`)
			if kept = m.launch.rules.built() == 2; kept {
				break
			}
		}
		if !kept {
			t.Fatal("a command of another policy in between made the first policy's ruleset be built again")
		}
		r := f.run(t, m, `echo x > written`, readOnly)
		if r.err == nil {
			t.Fatalf("the read-only policy's command wrote the workspace:\n%s", r)
		}
	})
}

// TestRulesetRebuiltWhenAHiddenPathAppears: a hidden path that did not
// exist when the ruleset was kept (~/.aws made later) is hidden from the
// next command.
func TestRulesetRebuiltWhenAHiddenPathAppears(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		later := filepath.Join(f.home, ".later")
		p := f.policy
		p.Hidden = append(slices.Clone(p.Hidden), later)
		m.launch.rules = trusting()
		f.mustRun(t, m, `true`, p)
		if err := os.Mkdir(later, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(later, "token"), []byte("SECRET-later"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := f.run(t, m, `cat "$HOME/.later/token"`, p)
		if r.err == nil || strings.Contains(r.out, "SECRET") {
			t.Fatalf("read a hidden path made after the ruleset was kept:\n%s", r)
		}
	})
}
