package app

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		p = filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestProjectFiles: which project files need trust and what the question
// shows: a Claude Code settings file's hooks (they run code) and its
// permissions (an allow rule lets calls run without asking), nothing
// else of it; a file with neither is not asked about.
func TestProjectFiles(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".tackle/config.json":         `{"mode": "plan"}`,
		".claude/settings.json":       `{"permissions": {"allow": ["Bash"]}, "model": "opus"}`,
		".claude/settings.local.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "make test"}]}]}, "permissions": {}}`,
	})
	files, err := projectFiles(root, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || !strings.HasSuffix(files[0].path, ".tackle/config.json") || !strings.HasSuffix(files[1].path, ".claude/settings.json") || !strings.HasSuffix(files[2].path, "settings.local.json") {
		t.Fatalf("files %+v", files)
	}
	if want := "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash\"\n    ]\n  }\n}\n"; files[1].shows != want {
		t.Errorf("shows %q, want %q", files[1].shows, want)
	}
	if !strings.Contains(files[2].shows, `"command": "make test"`) || strings.Contains(files[2].shows, "permissions") {
		t.Errorf("shows %q", files[2].shows)
	}
	writeFiles(t, root, map[string]string{".claude/settings.json": `{"model": "opus", "permissions": null}`})
	if files, _ := projectFiles(root, ""); len(files) != 2 {
		t.Errorf("a settings file that runs and allows nothing is asked about: %+v", files)
	}
	// The workspace is the home directory: ~/.claude/settings.json is the
	// user's, switched on by claude_hooks.user.
	writeFiles(t, root, map[string]string{".claude/settings.json": `{"hooks": {"Stop": []}}`})
	if files, _ := projectFiles(root, root); len(files) != 2 {
		t.Errorf("the user's own settings counted as the project's: %+v", files)
	}
}

// TestProjectConfigRefusesUserOnlyFields: a trusted project config that
// sets what only the user may set is refused, naming the fields, not
// silently ignored; a broken Claude settings file fails only when
// trusted.
func TestProjectConfigRefusesUserOnlyFields(t *testing.T) {
	var p projectLayer
	err := p.add(projectFile{path: "/p/.tackle/config.json", contents: []byte(`{"claude_hooks": {"user": true}, "checks": {"enabled": false}}`)})
	if err == nil || !strings.Contains(err.Error(), "claude_hooks.user") || !strings.Contains(err.Error(), "checks") {
		t.Errorf("got %v", err)
	}
	// Settings read from the user's config alone were ignored in a
	// project's without a word.
	err = p.add(projectFile{path: "/p/.tackle/config.json", contents: []byte(`{"keys": {"quit": ["ctrl+q"]}, "prices": {"m": {"input": 1, "output": 2}}, "context_window": 8000}`)})
	if err == nil || !strings.Contains(err.Error(), "keys, prices, context_window") {
		t.Errorf("keys, prices, context_window: got %v", err)
	}
	// A hook server from a repository would start a process for the
	// session: not from a project config (yet), trusted or not.
	err = p.add(projectFile{path: "/p/.tackle/config.json", contents: []byte(`{"hook_servers": [{"name": "s", "command": ["./s"]}]}`)})
	if err == nil || !strings.Contains(err.Error(), "cannot set hook_servers") {
		t.Errorf("hook_servers: got %v", err)
	}
	// picoclaw's hooks may come from a trusted project config, whose
	// whole contents the trust question shows.
	if err := p.add(projectFile{path: "/p/.tackle/config.json", contents: []byte(`{"picoclaw_hooks": {"processes": {"g": {"enabled": true, "command": ["./g.py"], "intercept": ["approve_tool"]}}}}`)}); err != nil {
		t.Errorf("picoclaw_hooks: %v", err)
	} else if st := (Settings{Project: p}); len(st.picoclaw()) != 1 || st.picoclaw()[0].Path != "/p/.tackle/config.json" {
		t.Errorf("the project's picoclaw hooks: %+v", st.picoclaw())
	}
	root := t.TempDir()
	writeFiles(t, root, map[string]string{".claude/settings.json": `{"hooks": `})
	files, err := projectFiles(root, "")
	if err != nil || len(files) != 1 {
		t.Fatalf("a broken settings file: %v %+v", err, files)
	}
	if err := p.add(files[0]); err == nil {
		t.Error("a broken settings file was trusted without an error")
	}
}

// TestProjectAgentsNeedTrust: each of a project's agent files is a file
// to trust (shown whole), used only once trusted; an untrusted one is left
// out, saying so; the user's own ~/.claude/agents is not the project's.
func TestProjectAgentsNeedTrust(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{
		".tackle/agents/reviewer.md": "---\ndescription: Reviews.\ntools: [bash]\n---\nRun anything.\n",
		".claude/agents/finder.md":   "---\nname: finder\ndescription: Finds.\ntools: Read, Grep\n---\n",
		".claude/agents/notes.txt":   "not an agent",
	})
	files, err := projectFiles(root, "")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, strings.TrimPrefix(f.path, root+"/"))
	}
	if strings.Join(paths, " ") != ".claude/agents/finder.md .tackle/agents/reviewer.md" || !strings.Contains(files[1].shows, "Run anything.") {
		t.Fatalf("files %v", paths)
	}
	if files, _ := projectFiles(root, root); len(files) != 1 {
		t.Errorf("the user's own ~/.claude/agents counted as the project's: %d files", len(files))
	}

	env := environ{"HOME=" + t.TempDir(), "XDG_STATE_HOME=" + state}
	var stderr strings.Builder
	p, err := openProject(root, false, env, nil, &stderr)
	if err != nil || len(p.agents) != 0 || !strings.Contains(stderr.String(), "not using "+filepath.Join(root, ".tackle", "agents", "reviewer.md")) {
		t.Fatalf("untrusted: %+v %v\n%s", p.agents, err, stderr.String())
	}
	p, err = openProject(root, true, env, nil, &stderr)
	if err != nil || len(p.agents) != 2 || p.agents[0].Name != "finder" || p.agents[0].Tools[0] != "read_file" || p.agents[1].Name != "reviewer" {
		t.Fatalf("trusted: %+v %v", p.agents, err)
	}
	// A change asks again.
	writeFiles(t, root, map[string]string{".tackle/agents/reviewer.md": "---\ndescription: Reviews.\ntools: [bash, write_file]\n---\nRun anything.\n"})
	stderr.Reset()
	p, err = openProject(root, false, env, nil, &stderr)
	if err != nil || len(p.agents) != 1 || p.agents[0].Name != "finder" {
		t.Errorf("changed: %+v %v\n%s", p.agents, err, stderr.String())
	}
}

// A project's command files are trusted one by one like its agents; a
// file that does not parse is left out with a warning, not a reason to
// stop; a change asks again; the user's own ~/.claude/commands is not
// the project's.
func TestProjectCommandsNeedTrust(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{
		".tackle/commands/ship.md":            "---\nallowed-tools: bash(git push *)\n---\nShip $1.\n",
		".claude/commands/frontend/button.md": "---\nallowed-tools: Bash(npm test:*)\n---\nMake a button.\n",
		".tackle/commands/Bad Name.md":        "x",
	})
	if files, _ := projectFiles(root, root); len(files) != 2 {
		t.Errorf("the user's own ~/.claude/commands counted as the project's: %d files", len(files))
	}
	env := environ{"HOME=" + t.TempDir(), "XDG_STATE_HOME=" + state}
	var stderr strings.Builder
	p, err := openProject(root, false, env, nil, &stderr)
	if err != nil || len(p.commands) != 0 || !strings.Contains(stderr.String(), "not using "+filepath.Join(root, ".tackle", "commands", "ship.md")) {
		t.Fatalf("untrusted: %+v %v\n%s", p.commands, err, stderr.String())
	}
	p, err = openProject(root, true, env, nil, &stderr)
	if err != nil || len(p.commands) != 2 || len(p.commandErrs) != 1 {
		t.Fatalf("trusted: %+v %v %v", p.commands, p.commandErrs, err)
	}
	if c := p.commands[0]; c.Name != "frontend:button" || c.Allowed[0].String() != "bash(npm test *)" || c.Scope != "project" {
		t.Errorf("the Claude Code command: %+v", c)
	}
	writeFiles(t, root, map[string]string{".tackle/commands/ship.md": "---\nallowed-tools: bash(git push --force *)\n---\nShip $1.\n"})
	stderr.Reset()
	p, err = openProject(root, false, env, nil, &stderr)
	if err != nil || len(p.commands) != 1 || p.commands[0].Name != "frontend:button" {
		t.Errorf("changed: %+v %v\n%s", p.commands, err, stderr.String())
	}
}

// A cloned repository decides what its files are: an agent or command
// file, a config or a Claude settings file that is a FIFO (the open
// would block) or a link to /dev/zero (the read would never end) makes
// projectFiles fail naming it, at once, before any trust question —
// before, the start hung or filled the memory.
func TestProjectFilesThatAreNoFiles(t *testing.T) {
	for _, rel := range []string{".tackle/agents/a.md", ".claude/agents/a.md", ".tackle/config.json", ".claude/settings.json", ".mcp.json"} {
		for _, kind := range []string{"fifo", "zero"} {
			root := t.TempDir()
			p := filepath.Join(root, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			var err error
			if kind == "fifo" {
				err = syscall.Mkfifo(p, 0o600)
			} else {
				err = os.Symlink("/dev/zero", p)
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := projectFiles(root, ""); err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s as a %s: %v, want it refused as no regular file", rel, kind, err)
			}
		}
	}
}
