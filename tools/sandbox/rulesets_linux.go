package sandbox

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// rulesetCache keeps the last rulesets built, one for each of a few
// policies (tackle's read-only git status, plan mode, a call with
// network …), for the next command of the same policy. Building one
// lists every directory on the way to a hidden path and gives each entry
// a rule of its own (grant): four system calls an entry, 1–4 ms a
// command for a home of a few hundred entries, the sandbox's largest
// cost per command. A ruleset is used again only while nothing it was
// built from has changed: the same policy, level and standard streams
// that get rules (the key), each root given a rule still the same file,
// and each directory listed unchanged — its inode, mode, and its change
// and modification times, which any entry made, removed or renamed in it
// moves on. A sandboxed command can set a modification time back but not
// a change time.
//
// The file system's clock is coarse (a tick of the kernel's, or more): a
// directory changed in the same tick as the listing, just after it,
// would keep the times the ruleset noted. So a ruleset is kept only if
// every directory it listed was last changed more than racy before the
// build began; one that changes often is listed again for each command.
type rulesetCache struct {
	racy time.Duration

	mu     sync.Mutex
	kept   []keptRuleset // the most recent last
	builds int           // rulesets built, for tests
}

type keptRuleset struct {
	key string
	rs  *ruleset
}

// keepRulesets is how many rulesets a cache keeps.
const keepRulesets = 4

// rulesets is the cache of the commands this process starts.
var rulesets = &rulesetCache{racy: time.Second}

// get returns the ruleset for a command of policy r at level with the
// standard streams stdio; the caller closes it.
func (c *rulesetCache) get(abi int, r resolved, level Level, stdio [3]*os.File) (*ruleset, error) {
	key := rulesetKey(abi, r, level, stdio)
	c.mu.Lock()
	for i, k := range c.kept {
		if k.key != key {
			continue
		}
		if unchanged(k.rs.from) {
			rs, err := k.rs.dup()
			c.mu.Unlock()
			return rs, err
		}
		k.rs.close()
		c.kept = slices.Delete(c.kept, i, i+1)
		break
	}
	c.mu.Unlock()

	start := time.Now()
	rs, err := buildRuleset(abi, r, level, stdio)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.builds++
	if !settled(rs.from, start.Add(-c.racy)) {
		return rs, nil
	}
	kept, err := rs.dup()
	if err != nil {
		return rs, nil // not kept: the command still has its ruleset
	}
	c.kept = slices.DeleteFunc(c.kept, func(k keptRuleset) bool {
		if k.key == key { // built meanwhile by another command
			k.rs.close()
			return true
		}
		return false
	})
	if len(c.kept) == keepRulesets {
		c.kept[0].rs.close()
		c.kept = slices.Delete(c.kept, 0, 1)
	}
	c.kept = append(c.kept, keptRuleset{key, kept})
	return rs, nil
}

// prepare builds the ruleset of a command of policy p at level whose
// standard streams get no rules, for rulesets to keep.
func prepare(p Policy, level Level) { rulesets.prepare(p, level) }

func (c *rulesetCache) prepare(p Policy, level Level) {
	r, err := resolvePolicy(p, p.Workspace)
	if err != nil {
		return // Start will say why
	}
	if rs, err := c.get(Probe().ABI, r, level, [3]*os.File{}); err == nil {
		rs.close()
	}
}

// dup is another descriptor of the same ruleset.
func (r *ruleset) dup() (*ruleset, error) {
	fd, err := unix.FcntlInt(uintptr(r.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: ruleset: %w", err)
	}
	return &ruleset{fd: fd, access: r.access, from: r.from}, nil
}

// rulesetKey is everything buildRuleset reads but the file system.
func rulesetKey(abi int, r resolved, level Level, stdio [3]*os.File) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %d %t %q %q", abi, level, r.Network, r.hidden, r.writable)
	if level == LevelLandlock {
		fmt.Fprintf(&b, " %q", realTmp())
	}
	for _, f := range stdio { // those stdioAccess gives a rule
		var st unix.Stat_t
		if f == nil || unix.Fstat(int(f.Fd()), &st) != nil {
			b.WriteString(" -")
			continue
		}
		switch kind := st.Mode & unix.S_IFMT; kind {
		case unix.S_IFREG, unix.S_IFCHR:
			fmt.Fprintf(&b, " %d:%d:%o", st.Dev, st.Ino, kind)
		default:
			b.WriteString(" -")
		}
	}
	return b.String()
}

// fsState is what a ruleset noted of a path it was built from: a root
// given a rule by its identity, a listed directory with its times too.
type fsState struct {
	path         string
	exists       bool
	dev, ino     uint64
	mode         uint32
	listed       bool
	mtime, ctime unix.Timespec
}

func stateOf(path string, listed bool) fsState {
	s := fsState{path: path, listed: listed}
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return s
	}
	s.exists, s.dev, s.ino, s.mode = true, st.Dev, st.Ino, st.Mode
	if listed {
		s.mtime, s.ctime = st.Mtim, st.Ctim
	}
	return s
}

// unchanged reports whether every path is as noted.
func unchanged(from []fsState) bool {
	for _, s := range from {
		if stateOf(s.path, s.listed) != s {
			return false
		}
	}
	return true
}

// settled reports whether every directory listed was last changed before
// the time given.
func settled(from []fsState, before time.Time) bool {
	t := unix.NsecToTimespec(before.UnixNano())
	for _, s := range from {
		if s.listed && s.exists && (!earlier(s.mtime, t) || !earlier(s.ctime, t)) {
			return false
		}
	}
	return true
}

func earlier(a, b unix.Timespec) bool {
	return a.Sec < b.Sec || a.Sec == b.Sec && a.Nsec < b.Nsec
}
