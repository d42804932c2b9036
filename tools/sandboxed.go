package tools

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"github.com/tackle-dev/tackle/tools/sandbox"
)

// Sandbox confines the commands tackle runs on the model's behalf — the
// bash tool, the user's !cmd, the turn-end checks — and tackle's own
// children that read the repository (git status): each starts inside the
// OS sandbox (tools/sandbox) with the same policy. A nil *Sandbox starts
// commands as they are: the sandbox is off or the system has none, and
// the approval policy alone holds.
type Sandbox struct {
	base     sandbox.Policy
	readOnly func() bool // plan mode, asked at each command
	// protect returns the protected paths at the moment a command starts
	// (.git directories the workspace holds then, tackle's files, the
	// scripts hooks and checks run).
	protect func() []string
	repos   *Repositories // the workspace's git directories, protected too
	env     []string      // set for every command, over what it had
	level   sandbox.Level

	mu      sync.Mutex
	changed func(paths []string) // told of protected paths a command changed
}

// SandboxOption configures a Sandbox.
type SandboxOption func(*Sandbox)

// WithReadOnly makes the workspace read-only for the commands started
// while readOnly returns true (plan mode).
func WithReadOnly(readOnly func() bool) SandboxOption {
	return func(s *Sandbox) { s.readOnly = readOnly }
}

// WithProtected sets the function that gives the protected paths, asked
// at each command (they change as the workspace does).
func WithProtected(protect func() []string) SandboxOption {
	return func(s *Sandbox) { s.protect = protect }
}

// WithSandboxEnv sets variables (KEY=value) for every command in the sandbox,
// over those it has: the sandbox's own build cache (GOCACHE), which a
// command may write without reaching the one builds outside use.
func WithSandboxEnv(kv ...string) SandboxOption {
	return func(s *Sandbox) { s.env = append(s.env, kv...) }
}

// WithRepositories protects the git directories repos finds, and has it
// scan again after each command that could write the workspace.
func WithRepositories(repos *Repositories) SandboxOption {
	return func(s *Sandbox) { s.repos = repos }
}

// NewSandbox returns the sandbox of policy p (its Protected are the
// paths always protected) at the best level the system allows, or nil
// with the probe's report when there is none: the caller says so and
// goes on without it.
func NewSandbox(p sandbox.Policy, opts ...SandboxOption) (*Sandbox, sandbox.Report) {
	r := sandbox.Probe()
	if p.MaxLevel != sandbox.LevelNone && p.MaxLevel < r.Level {
		r.Level = p.MaxLevel
	}
	if r.Level == sandbox.LevelNone {
		return nil, r
	}
	s := &Sandbox{base: p, level: r.Level}
	for _, o := range opts {
		o(s)
	}
	return s, r
}

// Level is the level commands run at; LevelNone for a nil Sandbox.
func (s *Sandbox) Level() sandbox.Level {
	if s == nil {
		return sandbox.LevelNone
	}
	return s.level
}

// Network reports whether commands reach the network without asking.
func (s *Sandbox) Network() bool { return s != nil && s.base.Network }

// OnChanged sets the function told of the protected paths a command
// changed (possible at LevelLandlock, where they cannot be made
// read-only; or a protected path a command created).
func (s *Sandbox) OnChanged(f func(paths []string)) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.changed = f
	s.mu.Unlock()
}

// Run says how one command runs.
type Run struct {
	// ReadOnly keeps the workspace read-only whatever the mode (tackle's
	// own git status).
	ReadOnly bool
	// Network lets the command reach the network (approved per call).
	Network bool
}

// policy is the policy of one command.
func (s *Sandbox) policy(r Run) sandbox.Policy {
	p := s.base
	p.ReadOnly = p.ReadOnly || r.ReadOnly || (s.readOnly != nil && s.readOnly())
	p.Network = p.Network || r.Network
	p.Protected = slices.Clone(p.Protected)
	if s.protect != nil {
		p.Protected = append(p.Protected, s.protect()...)
	}
	if s.repos != nil {
		p.Protected = append(p.Protected, s.repos.Paths()...)
	}
	return p
}

// Start starts cmd as exec.Cmd.Start does, inside the sandbox when s is
// not nil. done, called once cmd.Wait returned, reports the protected
// paths the command changed (see OnChanged) and returns them. A sandbox
// that could not be set up is an error wrapping sandbox.ErrLaunch: the
// command did not run.
func (s *Sandbox) Start(cmd *exec.Cmd, r Run) (done func() []string, err error) {
	if s == nil {
		return func() []string { return nil }, cmd.Start()
	}
	p := s.policy(r)
	if len(s.env) > 0 {
		env := cmd.Env
		if env == nil {
			env = os.Environ()
		}
		cmd.Env = append(slices.Clone(env), s.env...) // the last of a name wins
	}
	proc, err := sandbox.Start(cmd, p)
	if err != nil {
		return nil, err
	}
	return func() []string {
		if s.repos != nil && !p.ReadOnly {
			s.repos.Rescan() // the command may have made a repository
		}
		changed := proc.Changed()
		s.mu.Lock()
		f := s.changed
		s.mu.Unlock()
		if len(changed) > 0 && f != nil {
			f(changed)
		}
		return changed
	}, nil
}

// Prepare does what the sandbox can do for a command of run r before the
// command comes (sandbox.Prepare): call it on a goroutine of its own once
// the sandbox is wired.
func (s *Sandbox) Prepare(r Run) {
	if s != nil {
		sandbox.Prepare(s.policy(r))
	}
}

// Describe says in a few words what a command in the sandbox may do, for
// the model and the user.
func (s *Sandbox) Describe(r Run) string {
	if s == nil {
		return "no sandbox"
	}
	p := s.policy(r)
	var may []string
	if p.ReadOnly {
		may = append(may, "nothing is writable but the temp dir")
	} else {
		may = append(may, "writes only in the workspace and the temp dir")
	}
	may = append(may, ".git and tackle's files read-only", "your secrets (~/.ssh …) unreadable")
	if !p.Network {
		may = append(may, "no network")
	}
	return fmt.Sprintf("sandbox %s: %s", s.level, strings.Join(may, ", "))
}

// blockedNote is what the model is told when a command that failed in
// the sandbox looks as if the sandbox refused it something.
func (s *Sandbox) blockedNote(r Run) string {
	return "[This command ran in tackle's OS " + s.Describe(r) + ". If it failed because the sandbox refused it something it needs, " +
		`run it again with "network": true for network access, or with "outside_sandbox": true to run it outside the sandbox: the user is asked either way.]` + "\n"
}

// launchFailed is the result of a command whose sandbox could not be set
// up.
func launchFailed(err error) Result {
	msg := err.Error()
	if errors.Is(err, sandbox.ErrLaunch) {
		msg = strings.TrimPrefix(msg, sandbox.ErrLaunch.Error()+": ")
	}
	return Fail("The command did not run: tackle's sandbox could not be set up for it (%s). Run it again with \"outside_sandbox\": true to run it outside the sandbox; the user is asked.", msg)
}
