package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// pictureTools is a toolbox whose "picture" returns an image (as an MCP
// tool's image content does) and whose "steps" reports its progress
// twice before it answers.
type pictureTools struct{}

var pngBytes = []byte("\x89PNG\r\n\x1a\nimage")

func (pictureTools) Specs() []chat.ToolSpec {
	obj := json.RawMessage(`{"type":"object"}`)
	return []chat.ToolSpec{{Name: "picture", Description: "A picture.", Parameters: obj}, {Name: "steps", Description: "Steps.", Parameters: obj}}
}

func (pictureTools) Run(ctx context.Context, call chat.ToolCall) (chat.ToolResult, error) {
	if call.Name == "steps" {
		report, _ := tools.ProgressReporter(ctx)
		report(tools.Progress{Done: 1, Total: 2, Message: "halfway"})
		report(tools.Progress{Done: 2, Total: 2})
		return chat.ToolResult{Status: chat.StatusOK, Content: "stepped"}, nil
	}
	return chat.ToolResult{Status: chat.StatusOK, Content: "[image: image/png, 13 bytes]", Attached: &chat.Attachments{Images: []chat.Image{{MIMEType: "image/png", Data: pngBytes}}}}, nil
}

func pictureHarness(t *testing.T, script llmtest.Script) *harness {
	return newHarness(t, script, func(c *agent.Config) { c.Tools = pictureTools{} })
}

// An image a tool returns reaches the model as an image_url part of a
// user message after the results, while the result describes it.
func TestToolImagesReachTheModel(t *testing.T) {
	h := pictureHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_pic", "picture", `{}`)),
		llmtest.Text("A PNG."),
	))
	if _, err := h.worker.Run(context.Background(), "look"); err != nil {
		t.Fatal(err)
	}
	msgs := h.request(t, 1)
	if got := toolMessage(t, msgs, "call_pic"); got.Content != "[image: image/png, 13 bytes]" || len(got.Images) != 0 {
		t.Errorf("the result = %+v", got)
	}
	last := msgs[len(msgs)-1]
	if last.Role != chat.RoleUser || !strings.Contains(last.Content, "call_pic (picture): 1 image") ||
		len(last.Images) != 1 || last.Images[0].MIMEType != "image/png" || string(last.Images[0].Data) != string(pngBytes) {
		t.Errorf("the message after the results = %+v", last)
	}
	if raw := string(h.srv.Requests()[1].Raw); !strings.Contains(raw, `"type":"image_url"`) || !strings.Contains(raw, `"url":"data:image/png;base64,`) {
		t.Errorf("the request body has no image_url part: %.400s", raw)
	}
}

// A server that refuses images (llama.cpp without a vision projector
// answers 400) is asked again without them; the model then gets the
// results' descriptions only, for the rest of the conversation, and the
// user is told once.
func TestToolImagesRefusedFallBack(t *testing.T) {
	script := llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "picture", `{}`)),
		llmtest.ToolCalls(llmtest.Call("call_2", "picture", `{}`)),
		llmtest.Text("Two pictures."),
	)
	script.NoImages = true
	h := pictureHarness(t, script)
	out, err := h.worker.Run(context.Background(), "look twice")
	if err != nil || out.Text != "Two pictures." {
		t.Fatalf("%+v, %v", out, err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 (the second sent again without images)", len(reqs))
	}
	images := func(r llmtest.Request) int {
		n := 0
		for _, m := range r.Messages {
			n += len(m.Images)
		}
		return n
	}
	if images(reqs[1]) != 1 || images(reqs[2]) != 0 || images(reqs[3]) != 0 {
		t.Errorf("images per request: %d %d %d", images(reqs[1]), images(reqs[2]), images(reqs[3]))
	}
	if last := reqs[2].Messages[len(reqs[2].Messages)-1]; !strings.Contains(last.Content, "1 image left out: the model does not take images") {
		t.Errorf("the message whose image was left out: %q", last.Content)
	}
	// The second call's image is not even offered.
	if last := reqs[3].Messages[len(reqs[3].Messages)-1]; last.Role != chat.RoleTool {
		t.Errorf("the last message of the third request is %+v, want the second result", last)
	}
	var warnings []string
	h.events.mu.Lock()
	for _, e := range h.events.all {
		if w, ok := e.(agent.Warning); ok {
			warnings = append(warnings, w.Message)
		}
	}
	h.events.mu.Unlock()
	if len(warnings) != 1 || !strings.Contains(warnings[0], "refused a request with images") {
		t.Errorf("warnings: %q", warnings)
	}
}

// A tool's progress reaches the event stream between the call's start
// and its result.
func TestToolProgressEvents(t *testing.T) {
	h := pictureHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_s", "steps", `{}`)),
		llmtest.Text("Done."),
	))
	if _, err := h.worker.Run(context.Background(), "step"); err != nil {
		t.Fatal(err)
	}
	var got []string
	h.events.mu.Lock()
	for _, e := range h.events.all {
		switch e := e.(type) {
		case agent.ToolCallStarted:
			got = append(got, "started")
		case agent.ToolCallProgress:
			got = append(got, e.Call.ID+" "+e.Message)
		case agent.ToolCallFinished:
			got = append(got, "finished")
		}
	}
	h.events.mu.Unlock()
	if want := []string{"started", "call_s halfway", "call_s ", "finished"}; !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

// SystemNotes are added to each request's system prompt as they are at
// that request, and are not part of the conversation.
func TestSystemNotes(t *testing.T) {
	var mu sync.Mutex
	notes := ""
	h := newHarness(t, llmtest.NewScript(
		llmtest.ToolCalls(llmtest.Call("call_1", "upper", `{"text":"a"}`)),
		llmtest.Text("Done."),
	), func(c *agent.Config) {
		c.SystemNotes = func() string {
			mu.Lock()
			defer mu.Unlock()
			n := notes
			notes = "# Instructions of the MCP servers\n\nUse echo."
			return n
		}
	})
	go func() {
		for range h.tools.started {
		}
	}()
	if _, err := h.worker.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got := h.request(t, 0)[0].Content; got != "You are a test." {
		t.Errorf("the first system prompt: %q", got)
	}
	if got := h.request(t, 1)[0].Content; got != "You are a test.\n\n# Instructions of the MCP servers\n\nUse echo." {
		t.Errorf("the second system prompt: %q", got)
	}
	if got := h.worker.Messages()[0].Content; got != "You are a test." {
		t.Errorf("the conversation's system prompt: %q", got)
	}
}

// An image the user attached to a prompt goes in the prompt's message as
// an image_url part after its text.
func TestAttachedImagesReachTheModel(t *testing.T) {
	h := pictureHarness(t, llmtest.NewScript(llmtest.Text("A cat.")))
	img := chat.Image{MIMEType: "image/png", Data: pngBytes, Path: "/tmp/shot.png", SHA256: "abc"}
	if _, err := h.worker.Run(context.Background(), "what is this?", img); err != nil {
		t.Fatal(err)
	}
	msgs := h.request(t, 0)
	last := msgs[len(msgs)-1]
	if last.Role != chat.RoleUser || last.Content != "what is this?" || len(last.Images) != 1 || string(last.Images[0].Data) != string(pngBytes) {
		t.Errorf("the prompt = %+v", last)
	}
	if raw := string(h.srv.Requests()[0].Raw); !strings.Contains(raw, `{"text":"what is this?","type":"text"},{"image_url":{"url":"data:image/png;base64,`) {
		t.Errorf("the request body: %.400s", raw)
	}
}

// A server that refuses the user's image: the warning names the model
// and says it may not accept images, and the model is asked without it.
func TestAttachedImagesRefused(t *testing.T) {
	script := llmtest.NewScript(llmtest.Text("I see no image."))
	script.NoImages = true
	h := pictureHarness(t, script)
	img := chat.Image{MIMEType: "image/png", Data: pngBytes, Path: "/tmp/shot.png", SHA256: "abc"}
	if _, err := h.worker.Run(context.Background(), "what is this?", img); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if last := reqs[1].Messages[len(reqs[1].Messages)-1]; !strings.Contains(last.Content, "what is this?\n[1 image the user attached left out: the model does not take images.]") {
		t.Errorf("the prompt sent again: %q", last.Content)
	}
	var warnings []string
	h.events.mu.Lock()
	for _, e := range h.events.all {
		if w, ok := e.(agent.Warning); ok {
			warnings = append(warnings, w.Message)
		}
	}
	h.events.mu.Unlock()
	if len(warnings) != 1 || !strings.Contains(warnings[0], "400") || !strings.Contains(warnings[0], "the model "+reqs[0].Model+" may not accept images") ||
		!strings.Contains(warnings[0], "it did not see the images you attached") {
		t.Errorf("warnings: %q", warnings)
	}
}
