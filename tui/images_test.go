package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tackle-dev/tackle/tools"
)

const pngHead = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"

func TestPastedImagePath(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/shot.png":                     "@/tmp/shot.png ",
		"'/tmp/Screen Shot 1.PNG'":          `@"/tmp/Screen Shot 1.PNG" `,
		`"/tmp/Screen Shot 1.jpg"`:          `@"/tmp/Screen Shot 1.jpg" `,
		`/tmp/Screen\ Shot\ 1.webp`:         `@"/tmp/Screen Shot 1.webp" `,
		"file:///tmp/a%20b.gif\n":           `@"/tmp/a b.gif" `,
		"~/Desktop/x.jpeg":                  "@~/Desktop/x.jpeg ",
		"shot.png":                          "", // a relative path: typed text, not a dropped file
		"/tmp/notes.txt":                    "",
		"/tmp/a.png\n/tmp/b.png":            "",
		`/tmp/a".png`:                       "",
		"look at /tmp/shot.png and tell me": "",
	} {
		got, ok := pastedImagePath(in)
		if ok != (want != "") || got != want {
			t.Errorf("pastedImagePath(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// @shot.png sends the image as an image_url part of the prompt (the
// real Worker against the scripted server); a dropped screenshot's path,
// pasted, is attached from outside the workspace.
func TestFlowImageMention(t *testing.T) {
	f := newFlow(t, "tui_answer.json")
	if err := os.WriteFile(filepath.Join(f.workspace, "shot.png"), []byte(pngHead+"pixels"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.submit("what is in @shot.png")
	f.p.waitText(t, "attached the image shot.png (image/png")
	f.p.waitText(t, "That is all.")
	reqs := f.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	raw := string(reqs[0].Raw)
	if !strings.Contains(raw, `"image_url":{"url":"data:image/png;base64,`) || !strings.Contains(raw, "[image 1: shot.png (image/png, 22 bytes), attached below]") {
		t.Errorf("the request: %.600s", raw)
	}
}

func TestFlowPastedImagePath(t *testing.T) {
	f := newFlow(t, "tui_answer.json")
	shot := filepath.Join(t.TempDir(), "Screen Shot.png")
	if err := os.WriteFile(shot, []byte(pngHead+"pixels"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.tm.Send(tea.PasteMsg{Content: "'" + shot + "'"})
	f.p.waitText(t, `@"`+shot+`"`)
	f.tm.Type("what is this?")
	f.tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	f.p.waitText(t, "That is all.")
	if raw := string(f.srv.Requests()[0].Raw); !strings.Contains(raw, `"image_url":{"url":"data:image/png;base64,`) {
		t.Errorf("the request: %.600s", raw)
	}
	// A text file outside the workspace is not attached.
	notes := filepath.Join(filepath.Dir(shot), "notes.txt")
	os.WriteFile(notes, []byte("secret notes"), 0o644)
	m := f.quit()
	if _, err := m.opts.Mentions.Attach(notes); err == nil || !strings.Contains(err.Error(), "only an image is attached from there") {
		t.Errorf("a text file outside the workspace: %v", err)
	}
}

// TestMentionOfASymlinkOutsideTheWorkspace (red team): a model can plant
// symbolic links in the workspace; an @mention of one that leads outside
// (to a key, or to an image) attaches nothing, as text or as an image,
// named relatively or by the link's absolute path, unless the target is
// an image named by an absolute path (a dropped screenshot's).
func TestMentionOfASymlinkOutsideTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	key := filepath.Join(outside, "id_ed25519")
	secretImg := filepath.Join(outside, "notes.png")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(key, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nSECRET\n"), 0o600))
	must(os.WriteFile(secretImg, []byte(pngHead+"SECRET"), 0o600))
	must(os.Symlink(key, filepath.Join(ws, "shot.png")))
	must(os.Symlink(key, filepath.Join(ws, "key.txt")))
	must(os.Symlink(secretImg, filepath.Join(ws, "pic.png")))
	must(os.Symlink(outside, filepath.Join(ws, "linkdir")))
	w, err := tools.OpenWorkspace(ws)
	must(err)
	t.Cleanup(func() { w.Close() })
	m := WorkspaceMentions{WS: w}
	for _, p := range []string{
		"shot.png", "key.txt", "pic.png", "linkdir/id_ed25519", "linkdir/notes.png",
		"./shot.png", "linkdir/../linkdir/notes.png", `"pic.png"`,
		filepath.Join(ws, "shot.png"), filepath.Join(ws, "key.txt"), filepath.Join(ws, "linkdir", "id_ed25519"),
	} {
		f, err := m.Attach(p)
		if err == nil {
			t.Errorf("Attach(%q) attached %q (image %v)", p, f.Text, f.Image != nil)
		}
		if strings.Contains(f.Text, "SECRET") || f.Image != nil {
			t.Errorf("Attach(%q) read the target: %+v", p, f)
		}
	}
}

// TestMentionByAbsolutePathJudgesTheLinkTarget (red team): an image
// named by its absolute path (outside the workspace) is judged by Refuse
// where its symbolic links lead, as Refuse's contract says: a link the
// model planted (in the workspace, or in /tmp) to an image a rule denies
// attaches nothing.
func TestMentionByAbsolutePathJudgesTheLinkTarget(t *testing.T) {
	ws, outside, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	private := filepath.Join(outside, "private")
	must(os.MkdirAll(private, 0o755))
	scan := filepath.Join(private, "passport.png")
	must(os.WriteFile(scan, []byte(pngHead+"SECRET"), 0o600))
	must(os.Symlink(scan, filepath.Join(ws, "shot.png")))
	must(os.Symlink(scan, filepath.Join(tmp, "Screen Shot.png")))
	must(os.Symlink(private, filepath.Join(tmp, "dir")))
	w, err := tools.OpenWorkspace(ws)
	must(err)
	t.Cleanup(func() { w.Close() })
	realPrivate, err := filepath.EvalSymlinks(private)
	must(err)
	m := WorkspaceMentions{WS: w, Refuse: func(p string) string {
		if filepath.IsAbs(p) && (p == realPrivate || strings.HasPrefix(p, realPrivate+string(filepath.Separator))) {
			return "an approval rule denies reading it"
		}
		return ""
	}}
	for _, p := range []string{scan, filepath.Join(ws, "shot.png"), filepath.Join(tmp, "Screen Shot.png"), filepath.Join(tmp, "dir", "passport.png")} {
		if f, err := m.Attach(p); err == nil || f.Image != nil {
			t.Errorf("Attach(%q) attached the denied image: %v", p, err)
		}
	}
	// An image outside that no rule denies is attached, by its path.
	other := filepath.Join(tmp, "ok.png")
	must(os.WriteFile(other, []byte(pngHead+"pixels"), 0o644))
	if f, err := m.Attach(other); err != nil || f.Image == nil {
		t.Errorf("Attach(%q) = %+v, %v", other, f, err)
	}
}
