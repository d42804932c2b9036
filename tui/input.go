package tui

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/tackle-dev/tackle/themes"
)

// Pastes longer than this many lines or bytes are kept aside and shown in
// the editor as one placeholder, which the sent message expands.
const (
	pasteLines = 12
	pasteBytes = 2000
)

// maxHistory bounds the prompt history kept in memory.
const maxHistory = 500

// input is the prompt editor: a multi-line textarea with prompt history
// and large pastes held as placeholders.
type input struct {
	ta textarea.Model

	history []string // oldest first
	hpos    int      // index into history while walking it; len(history) is the draft
	draft   string   // what was typed before walking the history

	pastes    map[int]string
	nextPaste int

	// virtual: the editor draws its cursor as text (inline mode, where the
	// terminal's cursor stays at the frame's top-left, hidden).
	virtual bool

	width   int // as last set
	viewKey string
	lines   []string    // the editor as last drawn, for View
	cur     *tea.Cursor // and its cursor
}

func newInput(st *themes.Styles, virtual bool) input {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = ""
	ta.Placeholder = "Ask tackle to do something…  (/help for keys and commands)"
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = 8
	ta.MaxContentHeight = 100000
	ta.MaxWidth = 0
	ta.CharLimit = 0
	ta.SetVirtualCursor(virtual)
	km := textarea.DefaultKeyMap()
	km.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j", "shift+enter"))
	km.PageUp = key.NewBinding(key.WithDisabled())
	km.PageDown = key.NewBinding(key.WithDisabled())
	ta.KeyMap = km
	in := input{ta: ta, pastes: map[int]string{}, virtual: virtual}
	in.setStyles(st)
	in.ta.Focus()
	return in
}

func (in *input) setStyles(st *themes.Styles) {
	s := textarea.DefaultDarkStyles()
	for _, state := range []*textarea.StyleState{&s.Focused, &s.Blurred} {
		state.Base = lipgloss.NewStyle()
		state.Text = st.InputText
		state.CursorLine = st.InputText
		state.Placeholder = st.InputPlaceholder
		state.Prompt = st.InputPrompt
		state.EndOfBuffer = lipgloss.NewStyle()
	}
	if in.virtual {
		// In reverse video, which shows on a dark or a light background;
		// steady, as a blinking one would redraw the frame twice a second.
		s.Cursor.Color, s.Cursor.Blink = nil, false
	}
	in.ta.SetStyles(s)
	prompt := st.InputPrompt.Render("›")
	in.ta.SetPromptFunc(2, func(pi textarea.PromptInfo) string {
		if pi.LineNumber == 0 {
			return prompt + " "
		}
		return "  "
	})
}

func (in *input) setSize(width, maxHeight int) {
	width, maxHeight = max(width, 4), max(maxHeight, 1)
	if in.ta.MaxHeight == maxHeight && in.width == width {
		return
	}
	in.ta.MaxHeight = maxHeight
	in.ta.SetWidth(width)
	in.width = width
}

func (in input) value() string { return in.ta.Value() }

func (in input) empty() bool { return in.ta.Value() == "" }

func (in input) height() int { return in.ta.Height() }

// refresh draws the editor into lines, unless nothing it shows changed:
// the view is drawn after every message, and most messages are the
// Worker's.
func (in *input) refresh(theme string) {
	key := fmt.Sprintf("%s|%d|%d|%d|%d|%t|%s", theme, in.ta.Width(), in.ta.Height(), in.ta.Line(), in.ta.Column(), in.ta.Focused(), in.ta.Value())
	if key != in.viewKey {
		in.viewKey = key
		in.lines = strings.Split(in.ta.View(), "\n")
		in.cur = in.ta.Cursor()
	}
}

// update passes a message to the textarea, keeping large pastes aside.
func (in input) update(msg tea.Msg) (input, tea.Cmd) {
	if p, ok := msg.(tea.PasteMsg); ok {
		content := strings.ReplaceAll(p.Content, "\r\n", "\n")
		content = strings.ReplaceAll(content, "\r", "\n")
		if strings.Count(content, "\n") >= pasteLines || len(content) > pasteBytes {
			in.nextPaste++
			in.pastes[in.nextPaste] = content
			in.ta.InsertString(pastePlaceholder(in.nextPaste, content))
			return in, nil
		}
		msg = tea.PasteMsg{Content: content}
	}
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	return in, cmd
}

func pastePlaceholder(n int, content string) string {
	lines := strings.Count(strings.TrimRight(content, "\n"), "\n") + 1
	return fmt.Sprintf("[paste #%d: %d lines, %d bytes]", n, lines, len(content))
}

var placeholderRE = regexp.MustCompile(`\[paste #(\d+): \d+ lines, \d+ bytes\]`)

// expand replaces the paste placeholders in s with what was pasted.
func (in input) expand(s string) string {
	if len(in.pastes) == 0 {
		return s
	}
	return placeholderRE.ReplaceAllStringFunc(s, func(ph string) string {
		m := placeholderRE.FindStringSubmatch(ph)
		n, _ := strconv.Atoi(m[1])
		if content, ok := in.pastes[n]; ok && ph == pastePlaceholder(n, content) {
			return content
		}
		return ph
	})
}

// continueLine turns a \ that ends the text, where the cursor is, into a
// line break (as a shell does), and reports whether it did: enter then
// continues the message instead of sending it.
func (in *input) continueLine() bool {
	v := in.ta.Value()
	if !strings.HasSuffix(v, "\\") || in.ta.Line() != in.ta.LineCount()-1 {
		return false
	}
	last := v[strings.LastIndexByte(v, '\n')+1:]
	if in.ta.Column() != len([]rune(last)) {
		return false // the cursor is not after the backslash
	}
	in.setValue(strings.TrimSuffix(v, "\\") + "\n")
	return true
}

// submit takes the editor's text, with pastes expanded, records it in the
// history and empties the editor. shown is the text as typed, a large
// paste as its placeholder (what the transcript shows). added reports
// that the text is new to the history (not a repeat of the last entry).
func (in *input) submit() (text, shown string, added bool) {
	raw := in.ta.Value()
	text, shown = in.expand(raw), raw
	if strings.TrimSpace(raw) != "" && (len(in.history) == 0 || in.history[len(in.history)-1] != text) {
		in.history = append(in.history, text)
		if len(in.history) > maxHistory {
			in.history = in.history[len(in.history)-maxHistory:]
		}
		added = true
	}
	in.hpos = len(in.history)
	in.draft = ""
	in.reset()
	return text, shown, added
}

// loadHistory starts the history with earlier prompts, oldest first.
func (in *input) loadHistory(prompts []string) {
	in.history = slices.Clone(prompts[max(len(prompts)-maxHistory, 0):])
	in.hpos = len(in.history)
}

func (in *input) reset() {
	in.ta.Reset()
	clear(in.pastes)
}

// setValue replaces the editor's text, cursor at the end.
func (in *input) setValue(s string) {
	in.ta.Reset()
	in.ta.InsertString(s)
}

// atFirstLine reports whether the cursor is on the first visual line, where
// Up walks back through the history.
func (in input) atFirstLine() bool {
	return in.ta.Line() == 0 && in.ta.LineInfo().RowOffset == 0
}

// atLastLine reports whether the cursor is on the last visual line.
func (in input) atLastLine() bool {
	li := in.ta.LineInfo()
	return in.ta.Line() == in.ta.LineCount()-1 && li.RowOffset >= li.Height-1
}

// historyPrev shows the previous prompt; it reports false at the oldest.
func (in *input) historyPrev() bool {
	if in.hpos == 0 || len(in.history) == 0 {
		return false
	}
	if in.hpos >= len(in.history) {
		in.hpos = len(in.history)
		in.draft = in.ta.Value()
	}
	in.hpos--
	in.setValue(in.history[in.hpos])
	return true
}

// historyNext shows the next prompt, and then the draft.
func (in *input) historyNext() bool {
	if in.hpos >= len(in.history) {
		return false
	}
	in.hpos++
	if in.hpos == len(in.history) {
		in.setValue(in.draft)
	} else {
		in.setValue(in.history[in.hpos])
	}
	return true
}

func (in *input) focus() { in.ta.Focus() }
func (in *input) blur()  { in.ta.Blur() }

// cursor is the terminal cursor inside the editor as last drawn, or nil.
func (in input) cursor() *tea.Cursor {
	if in.cur == nil {
		return nil
	}
	c := *in.cur
	return &c
}
