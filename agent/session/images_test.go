package session

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// pngBytes is a PNG header and some bytes: enough for the sniffer.
func pngBytes(extra string) []byte {
	return append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), extra...)
}

// An image the user attached is kept by its file: the session file holds
// its path, digest and type and not its bytes, and a load reads the file
// again; a file that changed or is gone is left out, saying so.
func TestAttachedImagesAreKeptByTheirFile(t *testing.T) {
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(shot, pngBytes("the screenshot's pixels"), 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := tools.ReadImage(shot)
	if err != nil {
		t.Fatal(err)
	}
	record := func(t *testing.T) string {
		t.Helper()
		_, w := newSession(t)
		r := NewRecorder(w, func(err error) { t.Error(err) })
		r.Message(agent.AddedMessage{Message: chat.Message{Role: chat.RoleSystem, Content: "You are tackle."}})
		r.Message(agent.AddedMessage{Message: chat.Message{Role: chat.RoleUser, Content: "what is wrong here?", Images: []chat.Image{img}}, Prompt: true})
		r.Close()
		return w.Path()
	}
	path := record(t)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), base64.StdEncoding.EncodeToString(img.Data)[:20]) || !strings.Contains(string(raw), `"sha256":"`+img.SHA256+`"`) || !strings.Contains(string(raw), `"path":"`+shot+`"`) {
		t.Fatalf("the session file:\n%s", raw)
	}
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if msgs := l.Messages(); len(msgs) != 2 || !reflect.DeepEqual(msgs[1].Images, []chat.Image{img}) || len(l.Warnings) != 0 {
		t.Errorf("loaded: %+v %q", msgs, l.Warnings)
	}

	// The file changed.
	if err := os.WriteFile(shot, pngBytes("other pixels"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	msgs := l.Messages()
	if len(msgs[1].Images) != 0 || !strings.Contains(msgs[1].Content, "what is wrong here?\n[the image "+shot+" was attached here; it is left out: the file changed since it was attached]") ||
		len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "the image "+shot+" is left out of the conversation: the file changed") {
		t.Errorf("changed: %q %q", msgs[1].Content, l.Warnings)
	}

	// The file is gone.
	if err := os.Remove(shot); err != nil {
		t.Fatal(err)
	}
	l, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if msgs := l.Messages(); len(msgs[1].Images) != 0 || !strings.Contains(msgs[1].Content, "it cannot be read now") || len(l.Warnings) != 1 {
		t.Errorf("gone: %q %q", msgs[1].Content, l.Warnings)
	}
}
