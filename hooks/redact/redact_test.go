package redact_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/hooktest"
	"github.com/tackle-dev/tackle/hooks/redact"
	"github.com/tackle-dev/tackle/tools/chat"
)

func TestRedactsBeforeOtherHooksSeeTheResult(t *testing.T) {
	reg := hooks.NewRegistry()
	var seen string
	// Registered first with the default priority: redaction still runs
	// before it.
	reg.PostToolCall(hooktest.Post("observer", func(in *hooks.PostToolInput) hooks.PostToolResult {
		seen = in.Result.Content
		return hooks.PostToolResult{}
	}))
	h, err := redact.Hook([]string{"sk-test-abcdefgh", "short", "sk-test-abcdefgh-longer"}, redact.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	reg.PostToolCall(h)

	in := hooks.PostToolInput{
		Call:   chat.ToolCall{ID: "c", Name: "read_file"},
		Result: chat.ToolResult{Content: "KEY=sk-test-abcdefgh\nOTHER=sk-test-abcdefgh-longer\nshort stays"},
	}
	if res := reg.RunPostToolCall(context.Background(), &in, nil); res.Action != hooks.PostContinue {
		t.Fatalf("result = %+v", res)
	}
	want := "KEY=[REDACTED]\nOTHER=[REDACTED]\nshort stays"
	if in.Result.Content != want || seen != want {
		t.Errorf("content = %q, observer saw %q, want %q", in.Result.Content, seen, want)
	}
	if strings.Contains(seen, "sk-test") {
		t.Error("a later hook saw the secret")
	}
}

func TestNoSecretsLeavesContentAlone(t *testing.T) {
	h, err := redact.Hook(nil, redact.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	in := hooks.PostToolInput{Result: chat.ToolResult{Content: "[REDACTED] is just text"}}
	if _, err := h.Run(context.Background(), &in); err != nil || in.Result.Content != "[REDACTED] is just text" {
		t.Errorf("content = %q, %v", in.Result.Content, err)
	}
}

// The session file is redacted by the same Redactor as tool results: a
// value the hook learned from a result is redacted in the file too.
func TestRedactorSharesWhatItsHookLearned(t *testing.T) {
	r, err := redact.New([]string{"sk-test-abcdefgh"}, redact.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	in := hooks.PostToolInput{Result: chat.ToolResult{Content: "DB_PASSWORD=hunter2-horse\n"}}
	if _, err := r.Hook().Run(context.Background(), &in); err != nil {
		t.Fatal(err)
	}
	got := r.Redact("the model says: use hunter2-horse with sk-test-abcdefgh")
	if want := "the model says: use [REDACTED:dotenv] with [REDACTED]"; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
	if _, err := redact.New(nil, redact.Settings{Disable: []string{"nope"}}); err == nil {
		t.Error("New with an unknown pattern succeeded")
	}
}
