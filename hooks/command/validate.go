package command

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tackle-dev/tackle/tools/child"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// checkProgram checks, when a hook is registered, that the program it
// runs exists, so that a typo fails at startup rather than on every
// firing:
//
//   - an argv's program is looked up as os/exec will run it: a bare name
//     in tackle's $PATH, a path relative to dir (the workspace);
//   - a script's first command is looked up as sh will: a builtin is
//     fine, a path is relative to dir, a bare name is looked up in the
//     $PATH of the hook's environment env. Its name may use ~ and
//     variables of env (they are expanded as sh will). The check is left
//     out where sh could find something that cannot be known now: the
//     script does not parse, starts with anything but a simple command
//     (a function, if, a subshell …), the name is built by a command
//     substitution, a special parameter or a glob, the command sets PATH
//     itself, its failure is handled (cmd || …, ! cmd), or env has no
//     PATH.
//
// Only the program is checked, not what it does; a file removed later
// still fails when the hook fires.
func checkProgram(c Command, argv []string, dir string, env []string) error {
	for _, a := range append(slices.Clone(argv), c.Script) {
		if strings.ContainsRune(a, 0) {
			return errors.New("command: contains a NUL byte")
		}
	}
	if c.Script == "" {
		prog := argv[0]
		if !strings.ContainsRune(prog, '/') {
			if _, err := exec.LookPath(prog); err != nil {
				return fmt.Errorf("command: program %q is not in $PATH (give its path, or install it)", prog)
			}
			return nil
		}
		return checkFile(c.Argv[0], prog, dir)
	}
	name, ok := firstCommand(c.Script, env)
	if !ok || isBuiltin(name) {
		return nil
	}
	if strings.ContainsRune(name, '/') {
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if err := checkFile(name, path, dir); err != nil {
			return fmt.Errorf("the script's first command: %w", err)
		}
		return nil
	}
	pathVar, ok := child.LookupEnv(env, "PATH")
	if !ok {
		return nil
	}
	for _, d := range filepath.SplitList(pathVar) {
		if d == "" || d == "." {
			d = dir
		} else if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		if isExecutable(filepath.Join(d, name)) {
			return nil
		}
	}
	return fmt.Errorf("command: the script's first command %q is not in the hook's $PATH (give its path, or install it)", name)
}

// checkFile checks that path, the program shown to the user as shown, is
// an executable file.
func checkFile(shown, path, dir string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !filepath.IsAbs(shown):
		return fmt.Errorf("command: %s does not exist (a relative path is taken from the workspace, %s)", shown, dir)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("command: %s does not exist", shown)
	case err != nil:
		return fmt.Errorf("command: %w", err)
	case fi.IsDir():
		return fmt.Errorf("command: %s is a directory, not a program", shown)
	case fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("command: %s is not executable (chmod +x it, or run it with an interpreter: [\"sh\", %q])", shown, shown)
	}
	return nil
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode().Perm()&0o111 != 0
}

// firstCommand returns the name of a script's first command, expanded as
// sh will expand it with env, when that can be known now and a missing
// program would make the script fail (see checkProgram).
func firstCommand(script string, env []string) (string, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(script), "")
	if err != nil || len(f.Stmts) == 0 {
		return "", false
	}
	st := f.Stmts[0]
	for {
		if st.Negated || st.Background || st.Coprocess {
			return "", false
		}
		bin, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok {
			break
		}
		if bin.Op == syntax.OrStmt {
			return "", false // cmd || fallback: the script handles it
		}
		st = bin.X
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	for _, a := range call.Assigns {
		if a.Name != nil && a.Name.Value == "PATH" {
			return "", false
		}
	}
	word := call.Args[0]
	if !plainWord(word.Parts, false, env) {
		return "", false
	}
	name, err := expand.Literal(&expand.Config{Env: expand.ListEnviron(env...)}, word)
	if err != nil || name == "" {
		return "", false
	}
	return name, true
}

// plainWord reports whether word parts expand to one known word: literal
// text without glob characters, quotes, and plain $NAME or ${NAME} of
// regular variables; unquoted, only a variable of env whose value has no
// space or glob character (which sh would split or glob).
func plainWord(parts []syntax.WordPart, quoted bool, env []string) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if !quoted && strings.ContainsAny(p.Value, "*?[") {
				return false
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return false
			}
		case *syntax.DblQuoted:
			if p.Dollar || !plainWord(p.Parts, true, env) {
				return false
			}
		case *syntax.ParamExp:
			if p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil ||
				p.Repl != nil || p.Exp != nil || p.Names != 0 || p.Param == nil || !syntax.ValidName(p.Param.Value) {
				return false
			}
			if v, ok := child.LookupEnv(env, p.Param.Value); !quoted && (!ok || strings.ContainsAny(v, " \t\n*?[")) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// shBuiltins are the commands sh (dash, or bash as sh) runs itself.
var shBuiltins = []string{
	".", ":", "[", "alias", "bg", "break", "builtin", "cd", "command", "continue",
	"declare", "echo", "eval", "exec", "exit", "export", "false", "fc", "fg",
	"getopts", "hash", "jobs", "kill", "let", "local", "printf", "pwd", "read",
	"readonly", "return", "set", "shift", "source", "test", "times", "trap", "true",
	"type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
}

func isBuiltin(name string) bool { return slices.Contains(shBuiltins, name) }
