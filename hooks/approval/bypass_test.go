package approval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tackle-dev/tackle/tools/chat"
)

// The tests in this file are the classes of bypass a red-team pass found
// against the policy (issue 21): for each class, rules a user gets from
// one "always" keypress (or writes by hand) must not cover the forms
// that run code, write, or read outside the workspace, and must still
// cover the harmless forms (the control).

// ruleCase is one rule with the commands it must cover and refuse.
type ruleCase struct {
	rule    string
	covers  []string
	refuses []string
}

func checkRuleCases(t *testing.T, tests []ruleCase, opts ...Option) {
	t.Helper()
	root := t.TempDir()
	for _, tt := range tests {
		p := mustPolicy(t, Default, []string{tt.rule}, nil, append([]Option{WithWorkspace(root), WithProtection(Protection{Home: "/home/u"})}, opts...)...)
		for _, cmd := range tt.covers {
			if got := p.Decide(bashCall(cmd)); got.Action != cont {
				t.Errorf("%s does not cover %q: %s %q", tt.rule, cmd, actionNames[got.Action], got.Reason)
			}
		}
		for _, cmd := range tt.refuses {
			if got := p.Decide(bashCall(cmd)); got.Action == cont {
				t.Errorf("%s covers %q: %q", tt.rule, cmd, got.Reason)
			}
		}
	}
}

// TestClass1SubscriptsAndVariables: bash evaluates array subscripts in the
// names builtins take (test -v, printf -v, read, declare …), which runs
// $(…) inside them; and a builtin that sets PATH, IFS, BASH_ENV … changes
// what the next command runs. Deny rules saw the subscript trap, allow
// rules did not.
func TestClass1SubscriptsAndVariables(t *testing.T) {
	checkRuleCases(t, []ruleCase{
		{rule: "bash(test *)",
			covers:  []string{"test -v x", "test -n \"$x\"", "test -f main.go", "test \"$a\" = \"$b\"", "test \"$x\"", "test ! \"$x\"", "test -v 'x[1]'"},
			refuses: []string{"test -v 'x[$(touch pwned)]'", "test -v \"$n\"", "test -v 'x[i]'", "test -R 'x[$(id)]'", "test $a $b", "test \"$a\" \"$b\"", "test -v `echo x`", "test -v $'x[$(id)]'", "test -n a -a \"$x\" \"$y\""}},
		{rule: "bash(\\[ *)",
			covers:  []string{"[ -d src ]", "[ \"$a\" != x ]"},
			refuses: []string{"[ -v 'x[$(touch pwned)]' ]", "[ -v \"$1\" ]", "[ $x ]"}},
		{rule: "bash(printf *)",
			covers:  []string{"printf '%s\\n' hello", "printf -v out %s x", "printf '%s' \"$x\""},
			refuses: []string{"printf -v 'x[$(touch pwned)]' %s a", "printf -v PATH %s /tmp", "printf -v IFS x", "printf -vBASH_ENV %s x", "printf -v \"$n\" x", "printf -v http_proxy x", "printf -v 'x[i]' %s 1"}},
		{rule: "bash(read *)",
			covers:  []string{"read line", "read -r a b"},
			refuses: []string{"read PATH", "read -a 'x[$(id)]'", "read 'x[i]'", "read -r GIT_DIR", "read $v"}},
		{rule: "bash(declare *)",
			covers:  []string{"declare x=1", "declare -a list"},
			refuses: []string{"declare PATH=/tmp", "declare 'x[$(touch pwned)]=1'", "declare LD_PRELOAD=./x.so", "declare -x GIT_CONFIG_COUNT=1", "declare IFS"}},
		{rule: "bash(export *)", covers: []string{"export x=1", "export 'x=1'"},
			refuses: []string{"export GIT_CONFIG_COUNT=1", "export PATH=.:$PATH", "export GOFLAGS=-toolexec=./x", `export "LD_PRELOAD=./x.so"`, "export 'GIT_CONFIG_COUNT=1'", `declare "PATH=/tmp"`, "export PATH"}},
		{rule: "bash(local *)", refuses: []string{"local PATH=/tmp"}},
		{rule: "bash(readonly *)", refuses: []string{"readonly BASH_ENV=x"}},
		{rule: "bash(mapfile *)", covers: []string{"mapfile -t lines"}, refuses: []string{"mapfile -C 'touch pwned' x", "mapfile PATH"}},
		{rule: "bash(getopts *)", covers: []string{"getopts ab opt"}, refuses: []string{"getopts a IFS", "getopts a \"$v\""}},
		{rule: "bash(wait *)", covers: []string{"wait", "wait -n -p pid"}, refuses: []string{"wait -n -p 'x[$(touch pwned)]'", "wait -p PATH"}},
		{rule: "bash(unset *)", covers: []string{"unset x"}, refuses: []string{"unset 'x[$(id)]'", "unset PATH"}},
		{rule: "bash(echo *)", covers: []string{"echo '[x]'"}, refuses: []string{"echo 'x[$(id)]'"}},
	})
}

// TestClass2ReadsOutside: input redirects and words that expand (braces,
// globs, variables) name paths too; a rule's final `*` never covers one
// outside the workspace or one known only at run time.
func TestClass2ReadsOutside(t *testing.T) {
	checkRuleCases(t, []ruleCase{
		{rule: "bash(cat *)",
			covers: []string{"cat < README", "cat {README,main.go}", "cat src/*.go", "cat < /dev/null", "cat <<< x", "cat <<EOF\nx\nEOF",
				"for f in *.go; do cat \"$f\"; done", "cat src/{a,b}.go"},
			refuses: []string{
				"cat < ../x", "cat < ~/.ssh/id_ed25519", "cat 0< ../x", "cat 3< ../x", "cat < $F", "cat < \"$HOME/.ssh/id_rsa\"", "cat < /etc/passwd",
				"cat {README,~/.ssh/id_ed25519}", "cat {a,../b}", "cat {a,/etc/passwd}", "cat src/{a,../../x}", "cat /proc/*/environ", "cat .[.]/x",
				"d=..; cat $d/x", "for f in ../*; do cat \"$f\"; done", "cat ~/.ssh/id_rsa", "cat $HOME/x", "cat {,~}/x", "cat x{,/../../y}",
				"cat < $(echo ../x)", "if true; then d=src; fi; cat $d/x", "d=src; f() { cat $d/x; }; f", "read d; cat $d", "cat {1..3}/../../../x",
			}},
		{rule: "bash(base64 *)",
			covers:  []string{"base64 main.go"},
			refuses: []string{"base64 -w0 < /proc/$PPID/environ", "base64 < /proc/self/environ", "base64 -w0 < /proc/1234/environ"}},
		{rule: "bash(grep *)",
			covers:  []string{"grep -rn foo .", "grep foo < main.go"},
			refuses: []string{"grep foo < ../x", "grep -r foo {.,..}"}},
		// Files a list names are read too.
		{rule: "bash(sort *)", covers: []string{"sort main.go"}, refuses: []string{"sort --files0-from=list", "sort --files0-from list"}},
		{rule: "bash(wc *)", covers: []string{"wc -l main.go"}, refuses: []string{"wc --files0-from=list"}},
		{rule: "bash(sha256sum *)", covers: []string{"sha256sum main.go"}, refuses: []string{"sha256sum -c sums", "sha256sum --check sums"}},
		{rule: "bash(rg *)", covers: []string{"rg foo"}, refuses: []string{"rg --hostname-bin=./x foo", "rg --pre ./x foo"}},
	})
}

// TestClass2LinkGlob: a glob matching a symbolic link that leads out of
// the workspace is a path outside it.
func TestClass2LinkGlob(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	if err := os.Symlink(out, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "secret"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := mustPolicy(t, Default, []string{"bash(cat *)"}, nil, WithWorkspace(root))
	for _, cmd := range []string{"cat link/*", "cat l?nk/secret", "cat *", "cat < l*/secret"} {
		if got := p.Decide(bashCall(cmd)); got.Action == cont {
			t.Errorf("bash(cat *) covers %q: %q", cmd, got.Reason)
		}
	}
}

// TestClass5ProtectedWords: a word the parser cannot make static (braces,
// globs, variables) that may name a protected path is treated as naming
// it: the call asks in every mode, yolo and --yes included.
func TestClass5ProtectedWords(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	for _, d := range []string{".git/hooks", "src", "build"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	asks := []string{
		"tee .git/confi{g,g}", "tee .gi?/config", "echo x > .[g]it/hooks/pre-commit", "rm -rf {.git,x}", "cp x .[g]it/config",
		"d=.git; echo x >> $d/config", "for d in .gi?; do echo x > \"$d/config\"; done", "echo x > $(echo .git)/config", "tee \"$X\"",
		"echo x > ~/.bash{rc,_profile}", "mv x .tackl?/config.json", "touch .mcp.js{on,}", "rm -rf .*", "shopt -s dotglob; rm -rf *",
		"cp x src/../.gi[t]/config", "echo x > .GI?/config", "tee .[[:alpha:]]it/config", "ln -sf x .gi*/hooks/post-checkout",
		"sed -i s/a/b/ .git/conf*", "rm -rf sub/.g?t", "touch .gi{s..u}/config", "echo x > .[!a]it/config",
		"IFS=x; f=ax.git; rm -rf $f", "read IFS; f=ax.git; rm -rf $f", "shopt -s globstar; echo x > **/config",
	}
	passes := []string{"rm -rf build/*", "rm -rf {a,b}", "tee out.{txt,log}", "for f in *.go; do sed -i s/a/b/ \"$f\"; done", "d=build; rm -rf $d", "rm -rf *", "echo x > out/*.txt",
		"IFS=x; f=ax.git; rm -rf \"$f\""}
	for _, mode := range []Mode{Yolo, Default, AcceptEdits} {
		p := mustPolicy(t, mode, nil, nil, WithWorkspace(root), WithProtection(Protection{Home: home}))
		for _, cmd := range asks {
			if why := p.HeldBack(bashCall(cmd)); why == "" {
				t.Errorf("%s: %q is not protected", mode, cmd)
			}
			if got := p.Decide(bashCall(cmd)); got.Action != pause {
				t.Errorf("%s: %q: %s %q, want Pause", mode, cmd, actionNames[got.Action], got.Reason)
			}
		}
		for _, cmd := range passes {
			if why := p.HeldBack(bashCall(cmd)); why != "" {
				t.Errorf("%s: %q is protected: %s", mode, cmd, why)
			}
		}
	}
	p := mustPolicy(t, Yolo, nil, nil, WithWorkspace(root), WithProtection(Protection{Home: home}))
	for _, cmd := range passes {
		if got := p.Decide(bashCall(cmd)); got.Action != cont {
			t.Errorf("yolo: %q: %s %q, want Continue", cmd, actionNames[got.Action], got.Reason)
		}
	}
}

// bareRepo makes dir look like a repository to git without being named
// .git: HEAD, config, objects/ and refs/.
func bareRepo(t *testing.T, dir string) {
	t.Helper()
	for _, d := range []string{"objects", "refs/heads"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"HEAD": "ref: refs/heads/main\n", "config": "[core]\n\tbare = true\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestClass3GitDirsNotNamedGit: a directory git takes for a repository
// whatever its name (HEAD, objects/, refs/) is protected like .git, a HEAD
// file is protected (writing it makes one), and git run inside one runs
// its config, which no wide rule covers.
func TestClass3GitDirsNotNamedGit(t *testing.T) {
	root := t.TempDir()
	bareRepo(t, filepath.Join(root, "bare"))
	if err := os.MkdirAll(filepath.Join(root, "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	rules := []string{"bash(git status *)", "bash(git log *)", "bash(cd *)", "bash(echo *)"}
	for _, mode := range []Mode{AcceptEdits, Yolo} {
		p := mustPolicy(t, mode, rules, nil, WithWorkspace(root), WithProtection(Protection{Home: t.TempDir()}))
		for _, call := range []chatCall{
			{fileCall("write_file", "bare/config"), "bare/config"},
			{fileCall("edit_file", "bare/hooks/pre-commit"), "bare hook"},
			{fileCall("write_file", "plain/HEAD"), "a HEAD file"},
			{fileCall("write_file", "HEAD"), "HEAD at the root"},
			{bashCall("echo '[core] fsmonitor = touch pwned' >> bare/config"), "append to bare/config"},
			{bashCall("printf 'ref: refs/heads/main' > plain/HEAD"), "bash HEAD"},
			{bashCall("cp x bare/config"), "cp into bare"},
		} {
			if got := p.Decide(call.call); got.Action != pause {
				t.Errorf("%s, %s: %s %q, want Pause", mode, call.name, actionNames[got.Action], got.Reason)
			}
		}
		for _, call := range []chatCall{
			{fileCall("write_file", "plain/config"), "config of a plain directory"},
			{bashCall("git log HEAD"), "HEAD as a revision"},
		} {
			if got := p.Decide(call.call); got.Action != cont {
				t.Errorf("%s, %s: %s %q, want Continue", mode, call.name, actionNames[got.Action], got.Reason)
			}
		}
	}
	p := mustPolicy(t, Default, rules, nil, WithWorkspace(root))
	for _, cmd := range []string{"cd bare && git status", "cd bare/refs && git log", "cd plain; cd ../bare; git status"} {
		if got := p.Decide(bashCall(cmd)); got.Action == cont {
			t.Errorf("%q runs bare/config unasked: %q", cmd, got.Reason)
		}
	}
	for _, cmd := range []string{"git status", "cd plain && git status"} {
		if got := p.Decide(bashCall(cmd)); got.Action != cont {
			t.Errorf("%q: %s %q, want Continue", cmd, actionNames[got.Action], got.Reason)
		}
	}
	// An exact rule is the user's word for exactly that command.
	p = mustPolicy(t, Default, []string{"bash(cd bare)", "bash(git status)"}, nil, WithWorkspace(root))
	if got := p.Decide(bashCall("cd bare && git status")); got.Action != cont {
		t.Errorf("exact rules: %s %q, want Continue", actionNames[got.Action], got.Reason)
	}

	// A workspace below a repository's root, whose root was made a
	// repository: git anywhere in it runs the planted config.
	planted := t.TempDir()
	bareRepo(t, planted)
	p = mustPolicy(t, Default, rules, nil, WithWorkspace(planted))
	if got := p.Decide(bashCall("git status")); got.Action == cont {
		t.Errorf("git status in a planted repository runs unasked: %q", got.Reason)
	}
}

type chatCall struct {
	call chat.ToolCall
	name string
}

// TestClass4GitConfig: git config's scopes and git's global options are
// what they are: a final `*` covers reading configuration, never a change
// (of any scope) or another repository.
func TestClass4GitConfig(t *testing.T) {
	checkRuleCases(t, []ruleCase{
		{rule: "bash(git config *)",
			covers: []string{"git config user.name", "git config --get core.editor", "git config --list", "git config get user.name", "git config -l --show-origin"},
			refuses: []string{
				"git config --system core.pager id", "git config -f x core.pager id", "git config --file=x a.b c", "git config --global core.fsmonitor x",
				"git config set core.pager id", "git config edit", "git config core.editor vim", "git config unset core.x", "git config $K v",
				"git config --blob HEAD:x a.b c", "git config --add include.path ../x", "git config --worktree core.hooksPath h", "git config -e",
			}},
		{rule: "bash(git config -f out.cfg user.email *)", covers: []string{"git config -f out.cfg user.email me@example.com"},
			refuses: []string{"git config -f out.cfg user.email me@example.com --global", "git config -f out.cfg user.email x --system", "git config -f out.cfg user.email x -f ../y"}},
		{rule: "bash(git *)",
			covers:  []string{"git status", "git log -1"},
			refuses: []string{"git -C sub status", "git --git-dir=x log", "git --work-tree=y status", "git --exec-path=/tmp log", "git -c core.fsmonitor=id status", "git help -w log", "git cat-file --filters HEAD:x"}},
		{rule: "bash(git log *)", refuses: []string{"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=id git log", "GIT_DIR=x git log", "export GIT_CONFIG_COUNT=1; git log"}},
		{rule: "bash(env *)", covers: []string{"env", "env x=1"}, refuses: []string{"env GIT_CONFIG_COUNT=1", "env -C .. ls", "env -S 'ls x'", "env LD_PRELOAD=./x.so"}},
	})
	// A change of the system's or the user's configuration is a protected
	// write: it asks in every mode.
	home := t.TempDir()
	p := mustPolicy(t, Yolo, nil, nil, WithWorkspace(t.TempDir()), WithProtection(Protection{Home: home}))
	for _, cmd := range []string{"git config --system core.pager id", "git config --global core.fsmonitor x", "git config core.fsmonitor x", "git config -f ~/.gitconfig a.b c"} {
		if got := p.Decide(bashCall(cmd)); got.Action != pause {
			t.Errorf("yolo: %q: %s %q, want Pause", cmd, actionNames[got.Action], got.Reason)
		}
	}
}

// TestClass7GoFlags: the profiling, tracing and debug flags of the go
// command and gofmt write the file they name, even in "read-only" go
// list, go vet and gofmt; compiler and linker flags can write files and
// run programs.
func TestClass7GoFlags(t *testing.T) {
	checkRuleCases(t, []ruleCase{
		{rule: "bash(gofmt *)",
			covers:  []string{"gofmt -l .", "gofmt -d main.go", "gofmt -r 'a -> b' -d main.go"},
			refuses: []string{"gofmt -cpuprofile=.git/config x.go", "gofmt -cpuprofile out x.go", "gofmt --cpuprofile=x x.go"}},
		{rule: "bash(go vet *)",
			covers: []string{"go vet ./...", "go vet -json ./..."},
			refuses: []string{"go vet -debug-trace=x ./...", "go vet -fix ./...", "go vet -gcflags=-cpuprofile=x ./...", "go vet -mod=mod ./...", "go vet -mod mod ./...",
				"go vet -trace x ./...", "go vet -debug-runtime-trace=x ./...", "go vet -ldflags=-extld=./x ./...", "go vet -fixtool=./x ./..."}},
		{rule: "bash(go list *)",
			covers: []string{"go list ./...", "go list -json ./...", "go list -m all", "go list -mod=readonly ./...", "go list -f '{{.Dir}}' ./..."},
			refuses: []string{"go list -debug-actiongraph=x ./...", "go list -debug-runtime-trace=x", "go list -pkgdir=x ./...", "go list -modfile=x ./...",
				"go list -ldflags=-extld=./x ./...", "go list -asmflags=x ./...", "go list -cpuprofile=x ./...", "go list -memprofile x ./..."}},
		{rule: "bash(go doc *)", covers: []string{"go doc fmt.Println"}, refuses: []string{"go doc -http fmt"}},
	})
	p := mustPolicy(t, Yolo, nil, nil, WithWorkspace(t.TempDir()))
	for _, cmd := range []string{
		"gofmt -cpuprofile=.git/config x.go", "go test -coverprofile=.git/hooks/pre-commit ./...", "go build -o .git/hooks/pre-push .",
		"go vet -debug-trace=.git/config ./...", "go test -outputdir .git/hooks -cpuprofile pre-commit ./...", "go list -debug-actiongraph=.tackle/config.json",
	} {
		if got := p.Decide(bashCall(cmd)); got.Action != pause {
			t.Errorf("yolo: %q: %s %q, want Pause", cmd, actionNames[got.Action], got.Reason)
		}
	}
}

// TestClass9SedAwkFiles: the files sed's r, R, w and W commands and awk's
// redirects, getline and ARGV/ARGC name are reads and writes of them.
func TestClass9SedAwkFiles(t *testing.T) {
	checkRuleCases(t, []ruleCase{
		{rule: "bash(sed *)",
			covers:  []string{"sed 'r other.txt' f", "sed -n p f", "sed '/x/R src/a.txt' f"},
			refuses: []string{"sed 'r /etc/passwd' f", "sed 'R ../x' f", "sed '1r /home/u/.ssh/id_rsa' f", "sed -e p -e 'r /proc/self/environ' f", "sed 'w ../out' f", "sed 'e id' f"}},
		{rule: "bash(awk *)",
			covers: []string{"awk '{print $1}' f", "awk '{if ($1 > 5) print}' f"},
			refuses: []string{
				`awk 'BEGIN{ARGV[1]="/etc/passwd"; ARGC=2} {print}'`, `awk -v ARGC=3 '{print}' f`, `awk '{print}' ARGC=3 f`,
				`awk 'BEGIN{while ((getline l < "../x") > 0) print l}'`, `awk -f p.awk f`, `awk '@include "x"'`, `awk 'BEGIN{system("id")}'`, `awk '{print > "out"}' f`,
			}},
	})
	// Their write targets are judged as paths: protected in every mode.
	p := mustPolicy(t, Yolo, nil, nil, WithWorkspace(t.TempDir()))
	for _, cmd := range []string{`sed -n 'w .git/config' f`, `awk '{print > ".git/hooks/pre-commit"}' f`, `awk '{print >> ".tackle/config.json"}' f`, `awk '{print > $1}' f`} {
		if got := p.Decide(bashCall(cmd)); got.Action != pause {
			t.Errorf("yolo: %q: %s %q, want Pause", cmd, actionNames[got.Action], got.Reason)
		}
	}
	// Deny rules on reading see the files a script reads.
	p = mustPolicy(t, Default, []string{"bash(sed *)", "bash(awk *)"}, []string{"read_file(.env)"}, WithWorkspace(t.TempDir()))
	for _, cmd := range []string{"sed 'r .env' f", `awk 'BEGIN{getline l < ".env"; print l}'`} {
		if got := p.Decide(bashCall(cmd)); got.Action != skip {
			t.Errorf("%q: %s %q, want Skip", cmd, actionNames[got.Action], got.Reason)
		}
	}
}
