package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// described is a tool call as the editor shows it.
type described struct {
	title     string
	kind      sdk.ToolKind
	locations []sdk.ToolCallLocation
	// content is the file change a call would make (a diff), or what is
	// known of what it would do.
	content  []sdk.ToolCallContent
	rawInput any
	// diff: content is the call's file change.
	diff bool
}

// maxTitle bounds a call's title.
const maxTitle = 200

// describe says what a call is: its title (the tool and its one-line
// summary, hidden characters shown as escapes), its kind, the files it
// names (absolute), and for a file change its diff against the file as
// it is now (the tool's own preview, as the approval dialog shows it);
// for a command, the exact command.
func (s *session) describe(call chat.ToolCall) described {
	d := described{
		title: escape(chat.OneLine(call.Name+" "+s.Tools.Summary(call), maxTitle)),
		kind:  sdk.ToolKindOther,
	}
	if json.Valid([]byte(call.Arguments)) {
		d.rawInput = json.RawMessage(call.Arguments)
	}
	info, err := s.Tools.Inspect(call)
	if err == nil {
		d.kind = toolKind(call.Name, info.Kind)
		for _, p := range info.Paths {
			if refused(info.Refused, p) {
				continue
			}
			d.locations = append(d.locations, sdk.ToolCallLocation{Path: filepath.Join(s.Root, filepath.FromSlash(p))})
		}
	}
	if err != nil || (info.Kind != tools.KindEdit && info.Kind != tools.KindExec) {
		return d
	}
	pv := s.Tools.Preview(call)
	switch {
	case pv.Change != nil && pv.Problem == "":
		var old *string
		if !pv.Change.Created {
			old = sdk.Ptr(pv.Change.Old)
		}
		d.content = []sdk.ToolCallContent{{Diff: &sdk.ToolCallContentDiff{
			Type: "diff", Path: filepath.Join(s.Root, filepath.FromSlash(pv.Change.Path)), OldText: old, NewText: pv.Change.New,
		}}}
		d.diff = true
	case pv.Command != nil:
		text := "```sh\n" + escapeBlock(pv.Command.Line) + "\n```"
		if pv.Command.Network {
			text += "\nwith network access"
		}
		if pv.Command.OutsideSandbox {
			text += "\noutside the sandbox"
		}
		d.content = []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))}
	case pv.Problem != "":
		d.content = []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(escape(pv.Problem)))}
	}
	return d
}

// update is the call as a tool_call_update (the permission request's
// form).
func (d described) update(id string) sdk.ToolCallUpdate {
	return sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId(id), Title: sdk.Ptr(d.title), Kind: sdk.Ptr(d.kind),
		Locations: d.locations, Content: d.content, RawInput: d.rawInput,
	}
}

func refused(list []string, p string) bool {
	for _, r := range list {
		if r == p {
			return true
		}
	}
	return false
}

// toolKind is the editor's kind of a tool: by name for tackle's own
// (the search tools, the plan and subagents), else by what it declares.
func toolKind(name string, k tools.Kind) sdk.ToolKind {
	switch name {
	case tools.ListDir, tools.Glob, tools.Grep:
		return sdk.ToolKindSearch
	case tools.Todo, tools.Task:
		return sdk.ToolKindThink
	}
	switch k {
	case tools.KindRead:
		return sdk.ToolKindRead
	case tools.KindEdit:
		return sdk.ToolKindEdit
	case tools.KindExec:
		return sdk.ToolKindExecute
	case tools.KindNetwork:
		return sdk.ToolKindFetch
	}
	return sdk.ToolKindOther
}

// escape shows every character that would not show for itself as an
// escape: control characters (line breaks too), escape sequences, bidi
// overrides and other format characters, and spaces other than the
// plain one. What the editor shows of a call is then what runs.
func escape(s string) string { return escapeExcept(s, "") }

// escapeBlock is escape keeping line breaks and tabs, for a command
// shown as a block.
func escapeBlock(s string) string {
	return strings.ReplaceAll(escapeExcept(s, "\n\t"), "```", "`\\u0060`")
}

func escapeExcept(s, keep string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case strings.ContainsRune(keep, r):
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune(r)
		case r == unicode.ReplacementChar, unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.IsSpace(r),
			unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
			if r <= 0xffff {
				fmt.Fprintf(&b, "\\u%04x", r)
			} else {
				fmt.Fprintf(&b, "\\U%08x", r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
