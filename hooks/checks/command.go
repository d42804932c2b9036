package checks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// DefaultCommandTimeout bounds one run of a configured check command.
const DefaultCommandTimeout = 2 * time.Minute

// FilesPlaceholder in a Command's Run is replaced by the matching changed
// files.
const FilesPlaceholder = "{files}"

// Command is a configured check for files of any language, e.g.
//
//	Command{Match: "*.py", Run: []string{"ruff", "check", "{files}"}}
//
// It runs in the workspace root when files matching Match changed during
// the run. An argument that is exactly "{files}" becomes one argument per
// matching file (workspace paths); "{files}" inside a longer argument is
// replaced by the files joined with spaces. A non-zero exit is a failed
// check: its "file:line[:col]: message" lines about the changed files
// become the diagnostics, and when it names none of them its whole output
// does (unless the lines it has are about other files of the workspace,
// which are filtered out like every other check's).
type Command struct {
	// Name identifies the check in events and messages; default: the
	// base name of Run[0].
	Name string
	// Match is a glob (doublestar syntax: *, **, ?, [...], {a,b})
	// matched against the workspace path of each changed file; a pattern
	// without a slash is matched against the base name, so "*.py" means
	// any Python file.
	Match string
	// Run is the program and its arguments, run directly (no shell). A
	// bare name is looked up on PATH; a name with a slash is relative
	// to the workspace root.
	Run []string
	// Timeout bounds one run; zero means DefaultCommandTimeout.
	Timeout time.Duration
}

// matches reports whether the workspace path rel is one of c's files.
func (c Command) matches(rel string) bool {
	subject := rel
	if !strings.Contains(c.Match, "/") {
		subject = path.Base(rel)
	}
	ok, _ := doublestar.Match(c.Match, subject)
	return ok
}

func (c Command) validate() error {
	switch {
	case len(c.Run) == 0 || c.Run[0] == "":
		return errors.New("run is empty")
	case c.Match == "":
		return errors.New("match is empty")
	case !doublestar.ValidatePattern(c.Match):
		return fmt.Errorf("match %q is not a valid pattern", c.Match)
	case c.Timeout < 0:
		return errors.New("timeout is negative")
	}
	return nil
}

// argv expands the placeholder.
func (c Command) argv(files []string) []string {
	out := make([]string, 0, len(c.Run)+len(files))
	out = append(out, c.Run[0])
	for _, a := range c.Run[1:] {
		switch {
		case a == FilesPlaceholder:
			out = append(out, files...)
		case strings.Contains(a, FilesPlaceholder):
			out = append(out, strings.ReplaceAll(a, FilesPlaceholder, strings.Join(files, " ")))
		default:
			out = append(out, a)
		}
	}
	return out
}

// Limits of a command's raw output quoted as a diagnostic.
const (
	maxQuotedLines = 40
	maxQuotedBytes = 4 << 10
)

// commandEnv is set for every check command: Python does not put the
// workspace (the directory a -m or -c command runs in, a script's
// directory) first on its module path, so a file the model wrote cannot
// shadow a module the check imports (python3 -m py_compile importing a
// py_compile.py of the workspace). A check that imports the project's own
// modules names them with PYTHONPATH. (Perl since 5.26 and Ruby leave
// the current directory off their paths already; PERL_USE_UNSAFE_INC and
// RUBYLIB are not on the environment's allow list.)
var commandEnv = []string{"PYTHONSAFEPATH=1"}

// runCommand runs a configured check on its files.
func (c *Checker) runCommand(ctx context.Context, cmd Command, prog string, files []string) checkOutcome {
	out := checkOutcome{name: cmd.Name}
	argv := cmd.argv(files)
	argv[0] = prog
	pr := c.run(ctx, proc{argv: argv, dir: c.root, env: withEnv(c.env, commandEnv...), timeout: orDefault(cmd.Timeout, DefaultCommandTimeout), combined: true})
	if pr.err != nil {
		out.errs = append(out.errs, fmt.Sprintf("%s: %v", cmd.Name, pr.err))
		return out
	}
	if pr.exit == 0 {
		return out
	}
	p := outputParser{check: cmd.Name, dir: c.root, root: c.root}.parse(string(pr.stdout))
	kept, dropped := filterChanged(p.diags, files, nil)
	out.diags = kept
	for _, d := range dropped {
		if c.isWorkspaceFile(d.Path) {
			out.dropped++ // a finding about another file; not this run's
		}
	}
	if len(out.diags) == 0 && out.dropped == 0 {
		// Nothing names a file: the output itself is the diagnostic.
		out.diags = []Diagnostic{{Check: cmd.Name, Message: fmt.Sprintf("check %s failed (exit status %d):\n%s", cmd.Name, pr.exit, quoteOutput(string(pr.stdout)))}}
	}
	return out
}

// isWorkspaceFile reports whether rel names an existing file of the
// workspace.
func (c *Checker) isWorkspaceFile(rel string) bool {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return false
	}
	fi, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(rel)))
	return err == nil && !fi.IsDir()
}

// quoteOutput indents a command's output and cuts it to its first lines.
func quoteOutput(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "    (no output)"
	}
	var b strings.Builder
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if i == maxQuotedLines || b.Len()+len(l) > maxQuotedBytes {
			fmt.Fprintf(&b, "    … %d more lines", len(lines)-i)
			break
		}
		b.WriteString("    " + strings.TrimRight(l, "\r") + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// orDefault returns v, or def when v is the zero value.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
