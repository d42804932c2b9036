package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// dialogBox is the dialog's box on the screen, between its corners.
func dialogBox(t *testing.T, screen string) string {
	t.Helper()
	i, j := strings.Index(screen, "╭"), strings.LastIndex(screen, "╯")
	if i < 0 || j < i {
		t.Fatalf("no dialog on the screen:\n%s", screen)
	}
	return screen[i:j]
}

// The approval dialog does not repeat the command in the policy's reason
// ("approval: bash wants to run: …", flattened and cut, five rows at 60
// columns): the command shows once, whole; the reason keeps only why it
// asks.
func TestApprovalReasonDoesNotRepeatTheCommand(t *testing.T) {
	long := "rm -rf build && echo " + strings.Repeat("removed ", 40)
	tests := []struct {
		name string
		args tools.BashArgs
		want string // the reason line, "" for none
	}{
		{"not allowed", tools.BashArgs{Command: "rm -rf build && echo removed"}, ""},
		{"several lines", tools.BashArgs{Command: "go build ./...\nrm -rf build"}, ""},
		{"cut by the policy", tools.BashArgs{Command: long}, ""},
		{"a way out of the sandbox", tools.BashArgs{Command: "curl -sO https://example.com/x", Network: true}, "approval: it asks to reach the network"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.send(tea.WindowSizeMsg{Width: 60, Height: 40})
			pol := approval.New(approval.Default, h.tools, approval.WithSandbox(true))
			args, _ := jsonMarshal(tt.args)
			call := chat.ToolCall{ID: "c1", Name: tools.Bash, Arguments: string(args)}
			d := pol.Decide(call)
			if d.Action != hooks.ToolPause {
				t.Fatalf("the policy does not ask: %+v", d)
			}
			h.agent.outcomes = []fakeOutcome{{out: agent.Outcome{Status: agent.StatusPaused, Pending: []agent.PendingCall{{Call: call, Hook: approval.HookName, Reason: d.Reason}}}}}
			h.typeText("go").keys("enter")
			box := dialogBox(t, h.screen())
			if strings.Contains(box, "wants to run") {
				t.Errorf("the reason repeats the command:\n%s", box)
			}
			if tt.want == "" && strings.Contains(box, "approval") || !strings.Contains(box, tt.want) {
				t.Errorf("the reason is not %q:\n%s", tt.want, box)
			}
			first, _, _ := strings.Cut(tt.args.Command, "\n")
			if n := strings.Count(box, first[:12]); n != 1 {
				t.Errorf("the command shows %d times:\n%s", n, box)
			}
		})
	}
}

func TestWithoutCommand(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct{ reason, command, want string }{
		{"bash wants to run: ls", "ls", ""},
		{"bash wants to run: a b — it asks to reach the network; asking in every mode", "a\n  b", "it asks to reach the network; asking in every mode"},
		{"bash wants to run: " + long[:200] + "… (100 more bytes) — rm is not covered", long, "rm is not covered"},
		// Another shape is left as it is.
		{"bash wants to run: ls — x", "cat", "bash wants to run: ls — x"},
		{"bash wants to run: ls; asked again", "ls", "bash wants to run: ls; asked again"},
		{`hook "h" changed the arguments; asked again: bash wants to run`, "ls", `hook "h" changed the arguments; asked again: bash wants to run`},
	}
	for _, tt := range tests {
		if got := withoutCommand(tt.reason, "bash", tt.command); got != tt.want {
			t.Errorf("withoutCommand(%q, %q) = %q, want %q", tt.reason, tt.command, got, tt.want)
		}
	}
}

// A long command wraps between words in the approval dialog (it split
// words mid-word: "r" at the end of a row, "emoved" on the next), and
// every character stays.
func TestApprovalCommandWrapsBetweenWords(t *testing.T) {
	cmd := "rm -rf build && echo " + strings.Repeat("removed ", 12) + "'two  spaces' " + strings.Repeat("x", 40)
	h := ask(t, bashCall("c1", cmd))
	h.send(tea.WindowSizeMsg{Width: 60, Height: 40})
	box := dialogBox(t, h.screen())
	var rows []string
	for _, l := range strings.Split(box, "\n") {
		l = strings.TrimSuffix(strings.TrimPrefix(l, "│ "), "│")
		if strings.HasPrefix(l, "$ ") || len(rows) > 0 && strings.HasPrefix(l, "  ") && strings.TrimSpace(l) != "" {
			rows = append(rows, l[2:])
			continue
		}
		if len(rows) > 0 {
			break
		}
	}
	if len(rows) < 3 {
		t.Fatalf("the command is not wrapped:\n%s", box)
	}
	// (The screen does not tell the blanks ending a row from the box's
	// padding: breakWords' test sees those.)
	if got, want := strings.Fields(strings.Join(rows, " ")), strings.Fields(cmd); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("a word is split, or lost:\n%q\n%q", got, want)
	}
}

func TestBreakWords(t *testing.T) {
	tests := []struct {
		s     string
		width int
		want  []string
	}{
		{"rm -rf build && echo removed", 12, []string{"rm -rf ", "build && ", "echo removed"}},
		{"go test ./... -run TestVeryLongNameThatDoesNotFit", 12, []string{"go test ", "./... -run ", "TestVeryLong", "NameThatDoes", "NotFit"}},
		{"a  b    c   dddddddddddddddddddddddddd e", 12, []string{"a  b    c   ", "dddddddddddd", "dddddddddddd", "dd e"}},
		{"abc" + strings.Repeat(" ", 20) + "d", 12, []string{"abc         ", "           d"}},
		// An escape is as wide as it is shown: \t takes two cells.
		{"a\tb c\td", 5, []string{"a\tb ", "c\td"}},
		// A word that fills its row and one too wide for the next row
		// after the blank: never a row of blanks alone.
		{"a\tb c\td", 4, []string{"a\tb", " c\t", "d"}},
		{"wide 日本語", 6, []string{"wide ", "日本語"}},
		{"日本", 1, []string{"日", "本"}},
		{"", 5, []string{""}},
	}
	for _, tt := range tests {
		got := breakWords(tt.s, tt.width)
		if strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
			t.Errorf("breakWords(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}

// A tab in a diff shows as the spaces to its tab stop: an arrow (→) was
// copied with the text when the user selected it.
func TestDiffTabsCopyAsSpaces(t *testing.T) {
	args := `{"path":"main.go","old_string":"func a() {\n\treturn 1\n}\n","new_string":"func a() {\n\tif x {\n\t\treturn 2\n\t}\n}\n"}`
	h := ask(t, chat.ToolCall{ID: "e1", Name: "edit_file", Arguments: args})
	box := dialogBox(t, h.screen())
	if strings.Contains(box, "→") {
		t.Errorf("a tab shows as an arrow:\n%s", box)
	}
	for _, want := range []string{"│ -    return 1", "│ +    if x {", "│ +        return 2"} {
		if !strings.Contains(box, want) {
			t.Errorf("the diff lacks %q:\n%s", want, box)
		}
	}
}

// Inline code is not padded: the non-breaking spaces around it were
// copied with the text.
func TestInlineCodeIsNotPadded(t *testing.T) {
	h := newHarness(t)
	h.events(agent.TextDelta{Text: "Run `go test ./...` and then `make`."}, agent.AssistantMessage{Message: chat.Message{Content: "Run `go test ./...` and then `make`."}})
	s := h.screen()
	if strings.ContainsRune(s, '\u00a0') {
		t.Errorf("inline code is padded with non-breaking spaces: %q", s)
	}
	if !strings.Contains(s, "Run go test ./... and then make.") {
		t.Errorf("the answer:\n%s", s)
	}
}

// A resumed session shows its context use as the live session did ("ctx
// 0%"), not the last request's tokens as if the window were not known
// ("(ctx 90)").
func TestResumedSessionShowsContextUse(t *testing.T) {
	usage := &chat.Usage{PromptTokens: 90, CompletionTokens: 10, TotalTokens: 100}
	live := newHarness(t)
	live.events(agent.UsageReport{Request: *usage, Context: 100, Window: 128000})
	msg := func(m chat.Message) *chat.Message { return &m }
	resumed := newHarness(t, func(o *Options) {
		o.Resumed = &Resumed{ID: "s1", Agent: &fakeAgent{}, Records: []session.Record{
			{Kind: session.KindMessage, Prompt: true, Message: msg(chat.UserMessage("hi"))},
			{Kind: session.KindUsage, Usage: usage, Context: 100, Window: 128000},
			{Kind: session.KindMessage, Message: msg(chat.Message{Role: chat.RoleAssistant, Content: "Hello."})},
		}}
	})
	status := func(h *harness) string {
		lines := strings.Split(h.screen(), "\n")
		return lines[len(lines)-1]
	}
	for _, h := range []*harness{live, resumed} {
		if s := status(h); !strings.Contains(s, "100 tok · ctx 0%") || strings.Contains(s, "(ctx") {
			t.Errorf("the status line: %q", s)
		}
	}
}

// On a screen wider than a dialog, the dialog stands in the middle (at
// 200 columns it stood at the left, 120 wide).
func TestDialogIsCentred(t *testing.T) {
	for _, inline := range []bool{false, true} {
		h := newHarness(t, func(o *Options) { o.Inline = inline })
		h.agent.outcomes = []fakeOutcome{paused(bashCall("c1", "make"))}
		h.send(tea.WindowSizeMsg{Width: 200, Height: 40})
		h.typeText("go").keys("enter")
		var top, bottom string
		for _, l := range strings.Split(h.screen(), "\n") {
			if strings.Contains(l, "╭") {
				top = l
			}
			if strings.Contains(l, "╰") {
				bottom = l
			}
		}
		for _, l := range []string{top, bottom} {
			left := len(l) - len(strings.TrimLeft(l, " "))
			if w := ansi.StringWidth(strings.TrimSpace(l)); left != 40 || w != 120 {
				t.Errorf("inline %v: the box's edge at column %d, %d wide, want 40 and 120: %q", inline, left, w, l)
			}
		}
		// Narrower than a dialog, it takes the width.
		h.send(tea.WindowSizeMsg{Width: 80, Height: 40})
		if box := dialogBox(t, h.screen()); !strings.HasPrefix(box, "╭") || !strings.Contains(h.screen(), "\n╰") {
			t.Errorf("inline %v: at 80 columns:\n%s", inline, h.screen())
		}
	}
}

// Leaving a full-screen session after /new (or /resume) writes the whole
// session to the terminal: what came before /new too, first (only what
// came after was written).
func TestScrollbackKeepsWhatCameBeforeNew(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.NewAgent = func() Agent { return &fakeAgent{} } })
	h.typeText("first question").keys("enter")
	h.events(agent.TextDelta{Text: "First answer."}, agent.AssistantMessage{Message: chat.Message{Content: "First answer."}})
	h.typeText("/new").keys("enter")
	h.typeText("second question").keys("enter")
	h.events(agent.TextDelta{Text: "Second answer."}, agent.AssistantMessage{Message: chat.Message{Content: "Second answer."}})
	if s := h.screen(); strings.Contains(s, "First answer.") {
		t.Fatalf("/new did not clear the screen:\n%s", s)
	}
	h.typeText("/theme light").keys("enter")
	out := ansi.Strip(strings.Join(h.m.scrollback(), "\n"))
	i, j, k := strings.Index(out, "› first question"), strings.Index(out, "First answer."), strings.Index(out, "· new conversation")
	l := strings.Index(out, "Second answer.")
	if i < 0 || j < i || k < j || l < k {
		t.Errorf("the transcript written on exit:\n%s", out)
	}
	if n := strings.Count(out, "First answer."); n != 1 {
		t.Errorf("the first answer is written %d times:\n%s", n, out)
	}
}
