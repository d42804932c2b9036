package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/aymanbagabas/go-udiff"
	"github.com/charmbracelet/x/ansi"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks/approval"
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

	// always lists the rules "approve always" adds for a call: none when
	// no rule covers the whole call; nil when the policy cannot say.
	always func(agent.PendingCall) []string
	// files, when set, saves an "always" rule to a config file: a asks
	// where the rule goes (choosing). home shows paths under it with ~.
	files    RuleFiles
	home     string
	choosing bool
	// heldBack says why "approve these" must hold a call back: it
	// writes a protected path (approval.Policy.HeldBack; "" when it may
	// approve it; nil: no policy to ask). Such a call is asked about on
	// its own.
	heldBack func(chat.ToolCall) string
	// summary says in one line what a call is about, for the list of the
	// calls waiting.
	summary func(chat.ToolCall) string
	// answered marks the calls "approve these" decided.
	answered map[int]bool

	reasoning bool // typing a reason for a denial
	reason    textinput.Model

	// from names the subagent whose calls these are ("" for the
	// run's own); answer takes its decisions instead of a Resume, and
	// done is closed when it stopped waiting (the run ended).
	from   string
	answer func([]agent.Decision)
	done   <-chan struct{}

	scroll int
	// laid out by layout:
	body         []string
	bodyKey      string
	width, rows  int
	bodyRows     int
	footerHeight int
}

func newApprovalDialog(st *themes.Styles, pending []agent.PendingCall, always func(agent.PendingCall) []string, heldBack, summary func(chat.ToolCall) string) *approvalDialog {
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
		pending:  pending,
		always:   always,
		heldBack: heldBack,
		summary:  summary,
		reason:   ti,
	}
}

// stale reports whether the dialog asks for a subagent that stopped
// waiting.
func (d *approvalDialog) stale() bool {
	if d.done == nil {
		return false
	}
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// waiting are the indexes of the calls not decided yet, the current one
// first.
func (d *approvalDialog) waiting() []int {
	var out []int
	for i := d.idx; i < len(d.pending); i++ {
		if !d.answered[i] {
			out = append(out, i)
		}
	}
	return out
}

// batchable are the waiting calls "approve these" approves: all but those
// the policy holds back (those that write a protected path).
func (d *approvalDialog) batchable() []int {
	var out []int
	for _, i := range d.waiting() {
		if d.heldBack == nil || d.heldBack(d.pending[i].Call) == "" {
			out = append(out, i)
		}
	}
	return out
}

// approveBatch approves every waiting call but the protected ones, which
// are then asked about one by one.
func (d *approvalDialog) approveBatch() dialogAction {
	batch := d.batchable()
	if len(d.waiting()) < 2 || len(batch) == 0 {
		return dialogAction{}
	}
	if d.answered == nil {
		d.answered = map[int]bool{}
	}
	var act dialogAction
	for _, i := range batch {
		d.decisions = append(d.decisions, agent.Decision{CallID: d.pending[i].Call.ID, Verdict: agent.Approve})
		d.answered[i] = true
		act.batch = append(act.batch, d.decisions[len(d.decisions)-1])
	}
	return d.next(act)
}

// next moves to the next call waiting; after the last, act carries every
// decision and closes the dialog.
func (d *approvalDialog) next(act dialogAction) dialogAction {
	if w := d.waiting(); len(w) > 0 {
		d.idx, d.scroll, d.bodyKey = w[0], 0, ""
		return act
	}
	act.close = true
	act.decisions = slices.Clone(d.decisions)
	return act
}

// current is the call being decided.
func (d *approvalDialog) current() agent.PendingCall { return d.pending[d.idx] }

func (d *approvalDialog) update(msg tea.Msg) (dialogAction, tea.Cmd) {
	switch msg := msg.(type) {
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
		switch {
		case d.reasoning:
			return d.reasonKey(msg)
		case d.choosing:
			return d.chooseKey(msg)
		}
		return d.key(msg)
	}
	return dialogAction{}, nil
}

func (d *approvalDialog) key(msg tea.KeyPressMsg) (dialogAction, tea.Cmd) {
	k := dialogKeys()
	switch {
	case key.Matches(msg, k.approve):
		return d.decide(agent.Approve, ""), nil
	case key.Matches(msg, k.approveAll):
		return d.approveBatch(), nil
	case key.Matches(msg, k.always):
		if !d.canAlways() {
			return dialogAction{}, nil // no rule fits: a is not offered
		}
		if d.files != nil {
			d.choosing = true // where does the rule go?
			return dialogAction{}, nil
		}
		return d.decide(agent.ApproveAlways, ""), nil
	case key.Matches(msg, k.deny):
		return d.decide(agent.Deny, ""), nil
	case key.Matches(msg, k.denyWhy):
		d.reasoning = true
		d.reason.Reset()
		d.bodyKey = ""
		return dialogAction{}, d.reason.Focus()
	case key.Matches(msg, k.abort):
		return dialogAction{interrupt: true}, nil
	case key.Matches(msg, k.up):
		d.scrollBy(-1)
	case key.Matches(msg, k.down):
		d.scrollBy(1)
	case key.Matches(msg, k.pageUp):
		d.scrollBy(-max(d.bodyRows-1, 1))
	case key.Matches(msg, k.pageDown):
		d.scrollBy(max(d.bodyRows-1, 1))
	case key.Matches(msg, k.top):
		d.scroll = 0
	case key.Matches(msg, k.bottom):
		d.scrollBy(len(d.body))
	}
	return dialogAction{}, nil
}

func (d *approvalDialog) reasonKey(msg tea.KeyPressMsg) (dialogAction, tea.Cmd) {
	k := dialogKeys()
	switch {
	case key.Matches(msg, k.sendReason):
		reason := strings.TrimSpace(d.reason.Value())
		d.reasoning = false
		d.reason.Blur()
		return d.decide(agent.Deny, reason), nil
	case key.Matches(msg, k.back):
		d.reasoning = false
		d.reason.Blur()
		d.bodyKey = ""
		return dialogAction{}, nil
	case key.Matches(msg, k.abort):
		return dialogAction{interrupt: true}, nil
	}
	var cmd tea.Cmd
	d.reason, cmd = d.reason.Update(msg)
	return dialogAction{}, cmd
}

// chooseKey answers where an "always" rule goes: this session, the
// user's config file or the project's. The call is approved "always"
// whichever: a saved rule is a session rule too, from now on.
func (d *approvalDialog) chooseKey(msg tea.KeyPressMsg) (dialogAction, tea.Cmd) {
	k := dialogKeys()
	save := func(project bool) dialogAction {
		rules := d.always(d.current())
		d.choosing = false
		act := d.decide(agent.ApproveAlways, "")
		act.save = &ruleSave{project: project, rules: rules}
		return act
	}
	switch {
	case key.Matches(msg, k.forSession):
		d.choosing = false
		return d.decide(agent.ApproveAlways, ""), nil
	case key.Matches(msg, k.saveUser):
		if _, ok := ruleTarget(d.files, false, d.home); ok {
			return save(false), nil
		}
	case key.Matches(msg, k.saveProject):
		if _, ok := ruleTarget(d.files, true, d.home); ok {
			return save(true), nil
		}
	case key.Matches(msg, k.back):
		d.choosing = false
	case key.Matches(msg, k.abort):
		return dialogAction{interrupt: true}, nil
	}
	return dialogAction{}, nil
}

// decide records the answer for the current call and moves on; after the
// last call the action carries every decision.
func (d *approvalDialog) decide(v agent.Verdict, reason string) dialogAction {
	p := d.current()
	d.decisions = append(d.decisions, agent.Decision{CallID: p.Call.ID, Verdict: v, Reason: reason})
	act := dialogAction{decided: &d.decisions[len(d.decisions)-1]}
	if d.answered == nil {
		d.answered = map[int]bool{}
	}
	d.answered[d.idx] = true
	return d.next(act)
}

func (d *approvalDialog) scrollBy(n int) {
	d.scroll = min(max(d.scroll+n, 0), max(len(d.body)-d.bodyRows, 0))
}

// layout prepares the dialog for a box of width columns and at most rows
// rows.
func (d *approvalDialog) layout(st *themes.Styles, width, rows int) {
	inner := max(width-4, 8) // border and padding
	key := fmt.Sprintf("%d/%d", d.idx, inner)
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
	title := st.ModalTitle.Render("Allow " + toolLabel(p.Call.Name) + "?")
	if len(d.pending) > 1 {
		title += st.ModalHint.Render(fmt.Sprintf("  (%d of %d)", d.idx+1, len(d.pending)))
	}
	if d.from != "" {
		// The model wrote the task's description: one row, every hidden
		// character shown.
		title += st.ModalHint.Render("  asked by ") + visibleStyled(markBreaks(d.from), st.ModalHint, st.ControlChar)
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
	k := dialogKeys()
	if d.reasoning {
		send, back := k.sendReason.Help(), k.back.Help()
		return []string{
			st.ModalKey.Render("reason ") + d.reason.View(),
			st.ModalHint.Render(send.Key + " " + send.Desc + " · " + back.Key + " " + back.Desc),
		}
	}
	if d.choosing {
		return d.chooser(st, inner)
	}
	parts := []string{hintAs(st, k.approve, "approve")}
	switch {
	case d.always == nil:
		parts = append(parts, hintAs(st, k.always, "always"))
	case d.canAlways():
		parts = append(parts, hintAs(st, k.always, "always allow "+strings.Join(d.always(d.current()), ", ")))
	default:
		// The call deletes, writes, runs code or reaches outside the
		// workspace: no session rule is as narrow as it, so it is
		// approved once.
		parts[0] = hintAs(st, k.approve, "approve once")
	}
	if w, b := len(d.waiting()), len(d.batchable()); w > 1 && b > 0 {
		what := fmt.Sprintf("approve these %d", b)
		if b < w {
			what = fmt.Sprintf("approve %d of these %d (not the protected)", b, w)
		}
		parts = append(parts, hintAs(st, k.approveAll, what))
	}
	parts = append(parts, hint(st, k.deny), hintAs(st, k.denyWhy, "deny with reason"))
	return flowParts(parts, "   ", inner)
}

// chooser is the footer that asks where an "always" rule goes, naming
// the rule and each file.
func (d *approvalDialog) chooser(st *themes.Styles, inner int) []string {
	k := dialogKeys()
	rules := strings.Join(d.always(d.current()), ", ")
	head := prefixed(st.ModalKey.Render, "approve, and always allow "+plainText(rules, st.ControlChar)+":", inner, "", "")
	parts := []string{hint(st, k.forSession)}
	for _, t := range []struct {
		b       key.Binding
		project bool
		what    string
	}{{k.saveUser, false, "your config"}, {k.saveProject, true, "the project's config"}} {
		where, ok := ruleTarget(d.files, t.project, d.home)
		if ok {
			parts = append(parts, hintAs(st, t.b, "and save it in "+where))
		} else {
			parts = append(parts, st.ModalHint.Render("("+t.what+": "+where+")"))
		}
	}
	parts = append(parts, hint(st, k.back))
	return append(head, flowParts(parts, "   ", inner)...)
}

// canAlways reports whether "approve always" is offered for the current
// call: the policy has rules that cover it (or there is no policy to
// ask).
func (d *approvalDialog) canAlways() bool {
	return d.always == nil || len(d.always(d.current())) > 0
}

// renderBody draws what the call would do, as its tool previewed it: the
// hook's reason, then the change, the command or the summary, with every
// control character visible.
func (d *approvalDialog) renderBody(st *themes.Styles, inner int) []string {
	p := d.current()
	out := d.waitingList(st, inner)
	reason := p.Reason
	if p.Hook == approval.HookName && p.Preview != nil && p.Preview.Command != nil {
		reason = withoutCommand(reason, p.Call.Name, p.Preview.Command.Line)
	}
	if p.Hook != "" && reason != "" {
		reason = joinNonEmpty(": ", p.Hook, reason)
	}
	if reason != "" {
		out = append(out, prefixed(st.ModalReason.Render, plainText(reason, st.ControlChar), inner, "", "")...)
	}
	out = append(out, "")
	pv := p.Preview
	switch {
	case pv == nil:
		out = append(out, st.Warn.Render("no preview: the tool cannot say what this call will do"))
		out = append(out, argsBody(st, p.Call, inner)...)
	case pv.Change != nil:
		out = append(out, changeBody(st, pv, inner)...)
	case pv.Command != nil:
		out = append(out, commandBody(st, pv, inner)...)
	default:
		out = append(out, summaryBody(st, pv, inner)...)
	}
	return out
}

// withoutCommand is the approval policy's reason for asking about a
// command without its opening words ("bash wants to run: CMD", the
// command on one line and cut), which would repeat the command the
// dialog shows whole: what is left says why it asks ("rm is not covered
// by an allow rule"), "" when nothing is. A reason of another shape is
// left as it is.
func withoutCommand(reason, tool, command string) string {
	rest, ok := strings.CutPrefix(reason, tool+" wants to run: ")
	if !ok {
		return reason
	}
	one := chat.OneLine(command, 0)
	n := commonPrefix(rest, one)
	if n == len(one) {
		rest = rest[n:]
	} else {
		// Cut to a length the policy chose: a start of the command and
		// chat.Quote's note of how much more there was.
		cut := -1
		for i := n; i >= 0 && cut < 0; i-- {
			if strings.HasPrefix(rest[i:], fmt.Sprintf("… (%d more bytes)", len(one)-i)) {
				cut = i
			}
		}
		if cut < 0 {
			return reason
		}
		rest = rest[cut+len(fmt.Sprintf("… (%d more bytes)", len(one)-cut)):]
	}
	if rest == "" {
		return ""
	}
	if after, ok := strings.CutPrefix(rest, " — "); ok {
		return after
	}
	return reason
}

// waitingList lists the calls waiting when there are several: one line
// each, every control character visible, the current one marked and the
// protected ones named.
func (d *approvalDialog) waitingList(st *themes.Styles, inner int) []string {
	w := d.waiting()
	if len(w) < 2 {
		return nil
	}
	out := []string{st.ModalHint.Render(fmt.Sprintf("%d calls wait for approval:", len(w)))}
	for _, i := range w {
		c := d.pending[i].Call
		mark := "  "
		if i == d.idx {
			mark = "› "
		}
		what := c.Arguments
		if d.summary != nil {
			what = d.summary(c)
		}
		line := mark + st.ToolName.Render(toolLabel(c.Name)) + " " + visibleStyled(markBreaks(what), st.ToolArgs, st.ControlChar)
		if d.heldBack != nil && d.heldBack(c) != "" {
			line += st.Warn.Render("  (protected: asked on its own)")
		}
		out = append(out, ansi.Truncate(line, inner, "…"))
	}
	return append(out, "")
}

// problemLines is the reason a preview is not exactly what will happen.
func problemLines(st *themes.Styles, pv *tools.Preview, inner int) []string {
	if pv.Problem == "" {
		return nil
	}
	return prefixed(st.Warn.Render, plainText(pv.Problem, st.ControlChar), inner, "", "")
}

// commandBody is the command a call runs: every line of it, and its
// timeout when the call set one.
func commandBody(st *themes.Styles, pv *tools.Preview, inner int) []string {
	c := pv.Command
	out := problemLines(st, pv, inner)
	out = append(out, wrapWords(st.Accent.Render("$ "), "  ", c.Line, st.ToolArgs, st.ControlChar, inner)...)
	switch {
	case c.OutsideSandbox:
		out = append(out, "", st.Warn.Render("outside the sandbox: ")+st.Muted.Render("it runs with all your rights (writes anywhere, reads your secrets, reaches the network)"))
	case c.Network:
		out = append(out, "", st.Warn.Render("with network: ")+st.Muted.Render("it may reach any host"))
	}
	if c.Asked > 0 {
		timeout := c.Timeout.String()
		if c.Asked != c.Timeout {
			timeout += fmt.Sprintf(" (it asked for %s, over the limit)", c.Asked)
		}
		out = append(out, "", st.Muted.Render("timeout: ")+timeout)
	}
	return out
}

// changeBody is the file a call changes: a diff of its content before and
// after, or of the text the call names when the change could not be
// worked out.
func changeBody(st *themes.Styles, pv *tools.Preview, inner int) []string {
	c := pv.Change
	head := st.DiffHeader.Render(c.Action+" ") + visible(c.Path, st.ControlChar)
	if c.Created && pv.Problem == "" {
		n := strings.Count(strings.TrimSuffix(c.New, "\n"), "\n") + 1
		head += st.ModalHint.Render(fmt.Sprintf("  (new file, %d %s)", n, plural(n, "line", "lines")))
	}
	out := append([]string{head}, problemLines(st, pv, inner)...)
	switch {
	case pv.Problem == "" && !c.Created && c.Old == c.New:
		return append(out, st.ModalHint.Render("the file already has exactly this content"))
	case pv.Problem == "" && c.ReplaceAll:
		out = append(out, st.Warn.Render(fmt.Sprintf("replaces all %d occurrences", c.Replaced)))
	}
	return append(out, diffLines(st, c.Path, c.Old, c.New, inner)...)
}

// summaryBody is a call that changes nothing the tool can show: its
// summary, or its arguments one by one.
func summaryBody(st *themes.Styles, pv *tools.Preview, inner int) []string {
	out := problemLines(st, pv, inner)
	if len(pv.Args) == 0 {
		return append(out, wrapWords("", "  ", pv.Summary, st.ToolArgs, st.ControlChar, inner)...)
	}
	for _, a := range pv.Args {
		out = append(out, wrapWords(st.Muted.Render(a.Name+": "), "  ", a.Value, lipgloss.NewStyle(), st.ControlChar, inner)...)
	}
	return out
}

// argsBody shows a call's arguments as indented JSON, or as sent when they
// are not JSON.
func argsBody(st *themes.Styles, call chat.ToolCall, inner int) []string {
	text := call.Arguments
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(call.Arguments), "", "  ") == nil {
		text = buf.String()
	}
	return wrapWords("", "  ", text, st.ToolArgs, st.ControlChar, inner)
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
	return styledDiff(st, d, inner)
}

// styledDiff colours a unified diff, wrapped at inner cells with every
// control character visible; the file header lines are left out (the
// caller names the file).
func styledDiff(st *themes.Styles, d string, inner int) []string {
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
		vl := visibleCode(l, 1, style, st.ControlChar)
		out = append(out, wrapHard("", " ", vl, inner)...)
	}
	return out
}

// wrapWords draws raw text (a command, an argument) at width cells
// behind a first-row prefix and a hanging indent, every hidden character
// shown as an escape (visibleStyled, base for the text, esc for the
// escapes): a row breaks after the blanks before a word, inside a word
// only when the word is wider than a row, and no character is lost (the
// blanks at a break end their row).
func wrapWords(first, rest, raw string, base, esc lipgloss.Style, width int) []string {
	inner := max(width-max(ansi.StringWidth(first), ansi.StringWidth(rest)), 1)
	var out []string
	for _, line := range strings.Split(raw, "\n") {
		for _, piece := range breakWords(line, inner) {
			prefix := rest
			if len(out) == 0 {
				prefix = first
			}
			out = append(out, prefix+visibleStyled(piece, base, esc))
		}
	}
	return out
}

// breakWords cuts s into rows of at most width cells as visible shows
// them (an escape is as wide as its text), each ending after the blanks
// before a word that does not fit; a word wider than a row is cut where
// the row ends, and a row holds at least one character.
func breakWords(s string, width int) []string {
	var out []string
	for {
		// fit: the bytes that fit; brk: where the last word that fits
		// starts, after another (a row of blanks alone would look like
		// an empty line of the command).
		fit, cells, brk := 0, 0, 0
		word := false
		for fit < len(s) {
			r, size := decodeRune(s[fit:])
			w := shownWidth(r)
			if cells+w > width {
				break
			}
			if word && s[fit] != ' ' && s[fit-1] == ' ' {
				brk = fit
			}
			word = word || r != ' '
			cells += w
			fit += size
		}
		switch {
		case fit == len(s):
			return append(out, s)
		case word && s[fit] != ' ' && s[fit-1] == ' ':
			brk = fit // the word that does not fit starts the next row
		case brk == 0:
			brk = fit // a word wider than a row, or blanks: cut where the row ends
		}
		if brk == 0 {
			_, brk = decodeRune(s) // narrower than one character
		}
		out = append(out, s[:brk])
		if s = s[brk:]; s == "" {
			return out
		}
	}
}

// shownWidth is how many cells visible shows r in (-1: a byte that is
// not UTF-8, shown as \xNN).
func shownWidth(r rune) int {
	switch {
	case r < 0:
		return 4
	case hidden(r):
		return len(escapeRune(r))
	}
	return ansi.StringWidth(string(r))
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
