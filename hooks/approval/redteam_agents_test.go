package approval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/tools/chat"
)

// TestAgentAndCommandDirsAreProtected (red team): a model writing a
// custom agent or command of its own (whose tools and allowed-tools would
// run without asking once trusted) asks in yolo and under edit_file(**)
// — named directly, in another case, through a symbolic link in the
// workspace, or by bash (ln, cp, mv, tee, a redirect, after a cd).
func TestAgentAndCommandDirsAreProtected(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".tackle/agents", ".claude/agents", ".claude/commands", "docs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"ta": ".tackle/agents", "cl": ".claude", "docs/up": ".."} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "evil.md"), []byte("---\nname: x\ntools: bash\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{Yolo, AcceptEdits} {
		p := mustPolicy(t, mode, []string{"write_file(**)", "edit_file(**)", "bash(cp *)", "bash(mv *)", "bash(ln *)", "bash(tee *)", "bash(cat *)", "bash(mkdir *)"}, nil, WithWorkspace(root))
		for _, c := range []string{"write_file docs/x.md", "bash cp evil.md docs/"} {
			if got := p.Decide(callOf(c)); got.Action != cont {
				t.Errorf("%s: %s, a plain write, was not allowed: %q", mode, c, got.Reason)
			}
		}
		for _, c := range []string{
			"write_file .tackle/agents/x.md",
			"write_file .claude/agents/x.md",
			"write_file .claude/commands/x.md",
			"write_file .CLAUDE/agents/x.md",
			"write_file ta/x.md",
			"write_file cl/agents/x.md",
			"write_file docs/up/.claude/agents/x.md",
			"write_file ./docs/../.tackle/agents/x.md",
			"bash cp evil.md .claude/agents/",
			"bash cp evil.md ta/x.md",
			"bash mv evil.md cl/commands/x.md",
			"bash ln -s ../../evil.md .claude/agents/x.md",
			"bash ln -s docs .tackle2 && ln -sfn docs .claude",
			"bash tee .tackle/agents/x.md < evil.md",
			"bash cat evil.md > cl/agents/x.md",
			"bash cd .claude && cat ../evil.md > agents/x.md",
			"bash cd docs/up && cp evil.md .claude/agents/",
			"bash mkdir -p .claude/agents2 && cp evil.md .claude/agents2/",
		} {
			got := p.Decide(callOf(c))
			if got.Action == cont {
				t.Errorf("%s: %s was allowed: %q", mode, c, got.Reason)
			}
		}
	}
}

func callOf(s string) chat.ToolCall {
	tool, arg, _ := strings.Cut(s, " ")
	if tool == "bash" {
		return bashCall(arg)
	}
	return fileCall(tool, arg)
}

// TestReadAllowedTakesAbsolutePaths (red team): the UI judges an image
// @mentioned from outside the workspace with ReadAllowed on its absolute
// path (links resolved): a deny rule on reading an absolute directory
// covers it.
func TestReadAllowedTakesAbsolutePaths(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	p := mustPolicy(t, Default, nil, []string{"read_file(" + filepath.ToSlash(outside) + "/private/**)"}, WithWorkspace(root))
	if p.ReadAllowed(filepath.Join(outside, "private", "scan.png")) {
		t.Error("a denied absolute path is allowed")
	}
	if !p.ReadAllowed(filepath.Join(outside, "public.png")) {
		t.Error("an absolute path no rule denies is refused")
	}
}
