package e2e

// Images in, through the built binary: --image reaches the request as an
// image_url part, the session keeps the file's reference (not its
// bytes), -c reads the file again and says when it changed, and a server
// that refuses images is named with the model.

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/app"
)

// pngFile writes a small PNG (its header is what the sniffer reads).
func pngFile(t *testing.T, path, pixels string) []byte {
	t.Helper()
	b := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + pixels)
	mustWrite(t, path, string(b))
	return b
}

func TestE2EImageFlag(t *testing.T) {
	e := &e2e{
		t:         t,
		srv:       llmtest.NewServer(t, llmtest.NewScript(llmtest.Text("A red square."), llmtest.Text("Still red."), llmtest.Text("No image now."))),
		workspace: t.TempDir(),
		home:      t.TempDir(),
	}
	shot := filepath.Join(t.TempDir(), "shot.dat") // the bytes say PNG, not the name
	data := pngFile(t, shot, "red square")
	r := e.run("--image", shot, "-p", "what is this?")
	if r.code != app.ExitOK || r.stdout != "A red square.\n" {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	b64 := base64.StdEncoding.EncodeToString(data)
	if raw := string(e.requests()[0].Raw); !strings.Contains(raw, `{"text":"what is this?","type":"text"},{"image_url":{"url":"data:image/png;base64,`+b64+`"},"type":"image_url"}`) {
		t.Errorf("the request: %.800s", raw)
	}
	files := e.sessionFiles()
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	rec := mustRead(t, files[0])
	if strings.Contains(rec, b64[:16]) || !strings.Contains(rec, `"path":"`+shot+`"`) || !strings.Contains(rec, `"sha256":"`) {
		t.Errorf("the session keeps the image's bytes or no reference:\n%s", rec)
	}

	// -c reads the file again: the same bytes go with the old prompt.
	r = e.run("-c", "-p", "and now?")
	if r.code != app.ExitOK || !strings.Contains(string(e.requests()[1].Raw), b64) {
		t.Errorf("-c: exit %d; the request lacks the image", r.code)
	}
	// Changed: left out, and said so.
	pngFile(t, shot, "blue square")
	r = e.run("-c", "-p", "and now?")
	if r.code != app.ExitOK || !strings.Contains(r.stderr, "the image "+shot+" is left out of the conversation: the file changed since it was attached") {
		t.Errorf("-c after a change: exit %d, stderr %q", r.code, r.stderr)
	}
	if raw := string(e.requests()[2].Raw); strings.Contains(raw, "image_url") || !strings.Contains(raw, "[the image "+shot+" was attached here; it is left out: the file changed since it was attached]") {
		t.Errorf("the request after the change: %.800s", raw)
	}
}

func TestE2EImageFlagRefusals(t *testing.T) {
	e := newE2E(t, "plain.json")
	text := filepath.Join(t.TempDir(), "fake.png")
	mustWrite(t, text, "#!/bin/sh\necho not an image\n")
	r := e.run("--image", text, "-p", "look")
	if r.code != app.ExitUsage || !strings.Contains(r.stderr, "not a PNG, JPEG, GIF or WebP image") || len(e.requests()) != 0 {
		t.Errorf("a script named .png: exit %d, stderr %q", r.code, r.stderr)
	}
	r = e.run("--image", filepath.Join(t.TempDir(), "missing.png"), "-p", "look")
	if r.code != app.ExitUsage || !strings.Contains(r.stderr, "missing.png") {
		t.Errorf("a missing file: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A server that refuses images (llama.cpp without a vision projector
// answers 400): the run goes on without the image, and stderr names the
// model and says it may not accept images.
func TestE2EImageRefusedByTheServer(t *testing.T) {
	script := llmtest.NewScript(llmtest.Text("I see no image."))
	script.NoImages = true
	e := &e2e{t: t, srv: llmtest.NewServer(t, script), workspace: t.TempDir(), home: t.TempDir()}
	shot := filepath.Join(e.workspace, "shot.png")
	pngFile(t, shot, "pixels")
	r := e.run("--image", shot, "-p", "what is this?")
	if r.code != app.ExitOK || !strings.Contains(r.stderr, "400") || !strings.Contains(r.stderr, "the model e2e-model may not accept images") ||
		!strings.Contains(r.stderr, "it did not see the images you attached") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if len(e.requests()) != 2 || strings.Contains(string(e.requests()[1].Raw), "image_url") {
		t.Errorf("requests: %d", len(e.requests()))
	}
}
