package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/aymanbagabas/go-udiff"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/themes"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// approvalDialog asks the user about each pending call of a paused run in
// turn and, after the last, hands back one decision per call.
type approvalDialog struct {
	pending   []agent.PendingCall
	idx       int
	decisions []agent.Decision

	// always lists the session rules "approve always" adds for a call;
	// nil when the policy cannot say.
	always func(chat.ToolCall) []string

	// files holds the current content of the files the calls would
	// change, by call ID, once read; canRead says whether they are read.
	files   map[string]fileContent
	canRead bool

	reasoning bool // typing a reason for a denial
	reason    textinput.Model

	scroll int
	// laid out by layout:
	body         []string
	bodyKey      string
	width, rows  int
	bodyRows     int
	footerHeight int
}

// fileContent is a file as read for a diff.
type fileContent struct {
	data    string
	missing bool // the file does not exist: write_file creates it
	err     error
}

func newApprovalDialog(st *themes.Styles, pending []agent.PendingCall, always func(chat.ToolCall) []string) *approvalDialog {
	ti := textinput.New()
	ti.Prompt = ""
	ti.Placeholder = "why not? (the model reads this)"
	ti.CharLimit = 2000
	s := textinput.DefaultDarkStyles()
	s.Focused.Text, s.Focused.Placeholder = st.InputText, st.InputPlaceholder
	s.Blurred.Text, s.Blurred.Placeholder = st.InputText, st.InputPlaceholder
	s.Cursor.Blink = false // a static cursor needs no timer
	ti.SetStyles(s)
	return &approvalDialog{
		pending: pending,
		always:  always,
		files:   map[string]fileContent{},
		reason:  ti,
	}
}

// current is the call being decided.
func (d *approvalDialog) current() agent.PendingCall { return d.pending[d.idx] }

// filesToRead lists the files the pending calls would change, to show
// their diffs in context: path by call ID.
func (d *approvalDialog) filesToRead() map[string]string {
	out := map[string]string{}
	if !d.canRead {
		return out
	}
	for _, p := range d.pending {
		if p.Call.Name != "write_file" && p.Call.Name != "edit_file" {
			continue
		}
		if path, ok := stringArg(p.Call, "path"); ok && path != "" {
			out[p.Call.ID] = path
		}
	}
	return out
}

// fileReadMsg delivers a file read for an approval diff.
type fileReadMsg struct {
	callID string
	file   fileContent
}

func (d *approvalDialog) update(msg tea.Msg) (dialogAction, tea.Cmd) {
	switch msg := msg.(type) {
	case fileReadMsg:
		if _, ok := d.files[msg.callID]; !ok {
			d.files[msg.callID] = msg.file
			d.bodyKey = ""
		}
		return dialogAction{}, nil
	case tea.PasteMsg:
		if d.reasoning {
			var cmd tea.Cmd
			d.reason, cmd = d.reason.Update(msg)
			return dialogAction{}, cmd
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			d.scrollBy(-3)
		case tea.MouseWheelDown:
			d.scrollBy(3)
		}
	case tea.KeyPressMsg:
		if d.reasoning {
			return d.reasonKey(msg)
		}
		return d.key(msg)
	}
	return dialogAction{}, nil
}

func (d *approvalDialog) key(msg tea.KeyPressMsg) (dialogAction, tea.Cmd) {
	switch msg.String() {
	case "y", "Y":
		return d.decide(agent.Approve, ""), nil
	case "a", "A":
		if !d.canAlways() {
			return dialogAction{}, nil // no rule fits: a is not offered
		}
		return d.decide(agent.ApproveAlways, ""), nil
	case "n", "N", "esc":
		return d.decide(agent.Deny, ""), nil
	case "d", "D":
		d.reasoning = true
		d.reason.Reset()
		d.bodyKey = ""
		return dialogAction{}, d.reason.Focus()
	case "ctrl+c":
		return dialogAction{interrupt: true}, nil
	case "up", "k":
		d.scrollBy(-1)
	case "down", "j":
		d.scrollBy(1)
	case "pgup", "ctrl+b":
		d.scrollBy(-max(d.bodyRows-1, 1))
	case "pgdown", "ctrl+f", "space":
		d.scrollBy(max(d.bodyRows-1, 1))
	case "home", "g":
		d.scroll = 0
	case "end", "G":
		d.scrollBy(len(d.body))
	}
	return dialogAction{}, nil
}

func (d *approvalDialog) reasonKey(msg tea.KeyPressMsg) (dialogAction, tea.Cmd) {
	switch msg.String() {
	case "enter":
		reason := strings.TrimSpace(d.reason.Value())
		d.reasoning = false
		d.reason.Blur()
		return d.decide(agent.Deny, reason), nil
	case "esc":
		d.reasoning = false
		d.reason.Blur()
		d.bodyKey = ""
		return dialogAction{}, nil
	case "ctrl+c":
		return dialogAction{interrupt: true}, nil
	}
	var cmd tea.Cmd
	d.reason, cmd = d.reason.Update(msg)
	return dialogAction{}, cmd
}

// decide records the answer for the current call and moves on; after the
// last call the action carries every decision.
func (d *approvalDialog) decide(v agent.Verdict, reason string) dialogAction {
	p := d.current()
	d.decisions = append(d.decisions, agent.Decision{CallID: p.Call.ID, Verdict: v, Reason: reason})
	act := dialogAction{decided: &d.decisions[len(d.decisions)-1]}
	if d.idx+1 < len(d.pending) {
		d.idx++
		d.scroll = 0
		d.bodyKey = ""
		return act
	}
	act.close = true
	act.decisions = slices.Clone(d.decisions)
	return act
}

func (d *approvalDialog) scrollBy(n int) {
	d.scroll = min(max(d.scroll+n, 0), max(len(d.body)-d.bodyRows, 0))
}

// layout prepares the dialog for a box of width columns and at most rows
// rows.
func (d *approvalDialog) layout(st *themes.Styles, width, rows int) {
	inner := max(width-4, 8) // border and padding
	key := fmt.Sprintf("%d/%d/%d", d.idx, inner, len(d.files))
	if key != d.bodyKey || d.width != width {
		d.body = d.renderBody(st, inner)
		d.bodyKey = key
	}
	d.width, d.rows = width, rows
	d.reason.SetWidth(max(inner-10, 4))
	d.footerHeight = len(d.footer(st, inner))
	// title, blank, body, blank, footer, borders
	d.bodyRows = max(rows-2-2-d.footerHeight-1, 1)
	d.scrollBy(0)
}

func (d *approvalDialog) view(st *themes.Styles) string {
	inner := max(d.width-4, 8)
	p := d.current()
	title := st.ModalTitle.Render("Allow " + p.Call.Name + "?")
	if len(d.pending) > 1 {
		title += st.ModalHint.Render(fmt.Sprintf("  (%d of %d)", d.idx+1, len(d.pending)))
	}
	lines := []string{ansi.Truncate(title, inner, "…")}

	body := d.body
	end := min(d.scroll+d.bodyRows, len(body))
	lines = append(lines, body[d.scroll:end]...)
	var more []string
	if d.scroll > 0 {
		more = append(more, fmt.Sprintf("↑ %d more", d.scroll))
	}
	if end < len(body) {
		n := len(body) - end
		more = append(more, fmt.Sprintf("↓ %d more %s (pgdn)", n, plural(n, "line", "lines")))
	}
	lines = append(lines, st.ModalHint.Render(strings.Join(more, "  ")))
	lines = append(lines, d.footer(st, inner)...)
	return box(st.ModalBorder, lines, d.width)
}

// footer is the key help, or the reason editor.
func (d *approvalDialog) footer(st *themes.Styles, inner int) []string {
	if d.reasoning {
		return []string{
			st.ModalKey.Render("reason ") + d.reason.View(),
			st.ModalHint.Render("enter deny with this reason · esc back"),
		}
	}
	k := func(key, what string) string { return st.ModalKey.Render(key) + " " + st.ModalHint.Render(what) }
	parts := []string{k("y", "approve")}
	switch {
	case d.always == nil:
		parts = append(parts, k("a", "always"))
	case d.canAlways():
		parts = append(parts, k("a", "always allow "+strings.Join(d.always(d.current().Call), ", ")))
	default:
		// The call deletes, writes, runs code or reaches outside the
		// workspace: no session rule is as narrow as it, so it is
		// approved once.
		parts[0] = k("y", "approve once")
	}
	parts = append(parts, k("n", "deny"), k("d", "deny with reason"), k("esc", "deny"))
	return flowParts(parts, "   ", inner)
}

// canAlways reports whether "approve always" is offered for the current
// call: the policy has a session rule for it (or there is no policy to
// ask).
func (d *approvalDialog) canAlways() bool {
	return d.always == nil || len(d.always(d.current().Call)) > 0
}

// renderBody draws what the call would do: the hook's reason and the full
// arguments, with every control character visible.
func (d *approvalDialog) renderBody(st *themes.Styles, inner int) []string {
	p := d.current()
	var out []string
	reason := p.Reason
	if p.Hook != "" {
		reason = joinNonEmpty(": ", p.Hook, reason)
	}
	if reason != "" {
		out = append(out, prefixed(st.ModalReason.Render, plainText(reason, st.ControlChar), inner, "", "")...)
	}
	out = append(out, "")
	esc := st.ControlChar
	switch p.Call.Name {
	case "bash":
		out = append(out, d.bashBody(st, inner, esc)...)
	case "edit_file":
		out = append(out, d.editBody(st, inner)...)
	case "write_file":
		out = append(out, d.writeBody(st, inner)...)
	default:
		out = append(out, argsBody(st, p.Call, inner)...)
	}
	return out
}

func (d *approvalDialog) bashBody(st *themes.Styles, inner int, esc lipgloss.Style) []string {
	call := d.current().Call
	args, ok := objectArgs(call)
	cmd, isStr := args["command"].(string)
	if !ok || !isStr {
		return argsBody(st, call, inner)
	}
	var out []string
	for i, l := range visibleLines(cmd, st.ToolArgs, esc) {
		prefix := "  "
		if i == 0 {
			prefix = "$ "
		}
		out = append(out, wrapHard(st.Accent.Render(prefix), "  ", l, inner)...)
	}
	for _, k := range sortedKeys(args) {
		if k != "command" {
			out = append(out, "")
			out = append(out, wrapHard(st.Muted.Render(k+": "), "  ", visible(jsonText(args[k]), esc), inner)...)
		}
	}
	return out
}

func (d *approvalDialog) editBody(st *themes.Styles, inner int) []string {
	call := d.current().Call
	args, ok := objectArgs(call)
	path, _ := args["path"].(string)
	oldS, ok1 := args["old_string"].(string)
	newS, ok2 := args["new_string"].(string)
	if !ok || !ok1 || !ok2 {
		return argsBody(st, call, inner)
	}
	all, _ := args["replace_all"].(bool)
	out := []string{st.DiffHeader.Render("edit ") + visible(path, st.ControlChar)}
	f, read := d.files[call.ID]
	if !read && d.filesToRead()[call.ID] != "" {
		return append(out, st.ModalHint.Render("reading the file…"))
	}
	if read && f.err == nil && !f.missing {
		updated, n := previewEdit(f.data, oldS, newS, all)
		switch {
		case n == 0:
			out = append(out, st.Warn.Render("old_string is not in the file: the edit will fail"))
		case n > 1 && !all:
			out = append(out, st.Warn.Render(fmt.Sprintf("old_string occurs %d times: the edit will fail", n)))
		default:
			if all {
				out = append(out, st.Warn.Render(fmt.Sprintf("replaces all %d occurrences", n)))
			}
			return append(out, diffLines(st, path, f.data, updated, inner)...)
		}
	} else if all {
		out = append(out, st.Warn.Render("replaces every occurrence"))
	}
	return append(out, diffLines(st, path, oldS, newS, inner)...)
}

// previewEdit applies an edit_file call to content as the tool does
// (including its fallback to CRLF line endings) and says how many times
// old occurs.
func previewEdit(content, old, repl string, all bool) (string, int) {
	old, repl, n := tools.MatchEdit(content, old, repl)
	if n == 0 || old == "" || n > 1 && !all {
		return content, n
	}
	count := 1
	if all {
		count = -1
	}
	return strings.Replace(content, old, repl, count), n
}

func (d *approvalDialog) writeBody(st *themes.Styles, inner int) []string {
	call := d.current().Call
	args, ok := objectArgs(call)
	path, _ := args["path"].(string)
	content, isStr := args["content"].(string)
	if !ok || !isStr {
		return argsBody(st, call, inner)
	}
	head := st.DiffHeader.Render("write ") + visible(path, st.ControlChar)
	f, read := d.files[call.ID]
	switch {
	case !read && d.filesToRead()[call.ID] != "":
		return []string{head, st.ModalHint.Render("reading the current file…")}
	case read && f.err != nil:
		out := []string{head, st.Warn.Render("cannot read the current file: " + f.err.Error())}
		return append(out, diffLines(st, path, "", content, inner)...)
	case read && !f.missing:
		if f.data == content {
			return []string{head, st.ModalHint.Render("the file already has exactly this content")}
		}
		return append([]string{head}, diffLines(st, path, f.data, content, inner)...)
	}
	n := strings.Count(strings.TrimSuffix(content, "\n"), "\n") + 1
	out := []string{head + st.ModalHint.Render(fmt.Sprintf("  (new file, %d %s)", n, plural(n, "line", "lines")))}
	return append(out, diffLines(st, path, "", content, inner)...)
}

// argsBody shows a call's arguments as indented JSON, or as sent when they
// are not JSON.
func argsBody(st *themes.Styles, call chat.ToolCall, inner int) []string {
	text := call.Arguments
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(call.Arguments), "", "  ") == nil {
		text = buf.String()
	}
	var out []string
	for _, l := range visibleLines(text, st.ToolArgs, st.ControlChar) {
		out = append(out, wrapHard("", "  ", l, inner)...)
	}
	return out
}

// diffLines is a coloured unified diff of old and new, with every control
// character visible.
func diffLines(st *themes.Styles, path, oldS, newS string, inner int) []string {
	if !strings.HasSuffix(oldS, "\n") && oldS != "" || !strings.HasSuffix(newS, "\n") && newS != "" {
		// Compare whole lines; the diff must not hide a missing newline.
		oldS, newS = oldS+"\n", newS+"\n"
	}
	d := udiff.Unified("a/"+path, "b/"+path, oldS, newS)
	if d == "" {
		return []string{st.ModalHint.Render("no change")}
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(d, "\n"), "\n") {
		style := st.DiffContext
		switch {
		case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"):
			continue // the header above names the file
		case strings.HasPrefix(l, "@@"):
			style = st.DiffHeader
		case strings.HasPrefix(l, "+"):
			style = st.DiffAdd
		case strings.HasPrefix(l, "-"):
			style = st.DiffRemove
		}
		vl := visibleCode(l, 1, style, st.ControlChar, st.Subtle)
		out = append(out, wrapHard("", " ", vl, inner)...)
	}
	return out
}

// wrapHard breaks a styled line at exactly width cells, keeping every
// character (spaces too) and carrying styles across the breaks.
func wrapHard(first, rest, s string, width int) []string {
	pw := max(ansi.StringWidth(first), ansi.StringWidth(rest))
	inner := max(width-pw, 1)
	wrapped := ansi.Hardwrap(s, inner, true)
	var buf strings.Builder
	w := lipgloss.NewWrapWriter(&buf)
	_, _ = w.Write([]byte(wrapped))
	_ = w.Close()
	lines := strings.Split(buf.String(), "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return lines
}

// box draws lines in a bordered box of the given outer width.
func box(style lipgloss.Style, lines []string, width int) string {
	inner := max(width-style.GetHorizontalFrameSize(), 1)
	for i, l := range lines {
		if ansi.StringWidth(l) > inner {
			lines[i] = ansi.Truncate(l, inner, "…")
		}
	}
	return style.Width(width).Render(strings.Join(lines, "\n"))
}

// flowParts lays parts out left to right, starting a new line when one would
// not fit.
func flowParts(parts []string, sep string, width int) []string {
	var out []string
	line := ""
	for _, p := range parts {
		switch {
		case line == "":
			line = p
		case ansi.StringWidth(line)+len(sep)+ansi.StringWidth(p) <= width:
			line += sep + p
		default:
			out = append(out, line)
			line = p
		}
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// objectArgs decodes a call's arguments as a JSON object.
func objectArgs(call chat.ToolCall) (map[string]any, bool) {
	var args map[string]any
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil || args == nil {
		return nil, false
	}
	return args, true
}

func stringArg(call chat.ToolCall, key string) (string, bool) {
	args, ok := objectArgs(call)
	if !ok {
		return "", false
	}
	s, ok := args[key].(string)
	return s, ok
}

func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
