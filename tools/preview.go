package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// maxPreviewSize bounds the size of a file a preview shows the change of.
const maxPreviewSize = 4 << 20

// Preview is what a call would do, worked out by its tool without running
// it, for the person who approves the call: the approval dialog shows
// what will run, not a guess of its own. A tool that changes a file gives
// Change, bash gives Command, a tool that only reads gives its Summary.
type Preview struct {
	// Summary says in one line what the call is about (Tool.Summary).
	Summary string
	// Change is the file the call would write, before and after.
	Change *FileChange
	// Command is the command the call would run.
	Command *CommandRun
	// Args are the call's arguments by name, for a tool that gives no
	// preview of its own.
	Args []Arg
	// Problem says why the preview is not exactly what will happen: the
	// call will fail as it stands (old_string is not in the file, a path
	// outside the workspace), or its effect could not be worked out (the
	// file is too large to compare). Empty when the preview is exact.
	Problem string
	// Refused, when set, is the error result the call gets if it runs as
	// it stands: its tool's own words for the model (the file was never
	// read or changed since, old_string is not in it, the path leaves the
	// workspace, the arguments do not fit). Problem then says it to the
	// person. Nobody needs to be asked about such a call: the Worker
	// answers it with this result instead of pausing (agent.Previewer).
	Refused string
}

// FileChange is a file a call would write. When the change could not be
// worked out (Preview.Problem), Old and New are the text the call names,
// e.g. edit_file's old_string and new_string.
type FileChange struct {
	// Action is what the call does to the file: "edit" or "write".
	Action string
	// Path is the file, relative to the workspace root with forward
	// slashes and symbolic links resolved, or as the call names it when it
	// cannot be resolved.
	Path string
	// Old and New are the file's content before and after.
	Old, New string
	// Created says the file does not exist yet.
	Created bool
	// Replaced is how many occurrences an edit replaces, and ReplaceAll
	// whether the call asked to replace every one.
	Replaced   int
	ReplaceAll bool
}

// CommandRun is a command a call would run.
type CommandRun struct {
	// Line is the program, exactly as the shell gets it.
	Line string
	// Timeout is how long it may run; Asked is the timeout the call asked
	// for (zero when none), which the limit may have cut.
	Timeout time.Duration
	Asked   time.Duration
	// Network and OutsideSandbox are the ways out of the sandbox the call
	// asks for: network access, or no sandbox at all.
	Network, OutsideSandbox bool
}

// Arg is one argument of a call: its name and its value (a string as it
// is, another value as JSON).
type Arg struct {
	Name, Value string
}

// willFail is the Problem of a call its tool will refuse: what names the
// action ("edit"), why is the tool's reason.
func willFail(what, why string) string {
	return fmt.Sprintf("the %s will fail: %s", what, why)
}

// refuse marks p as the preview of a call its tool will refuse with res:
// what names the action ("edit").
func (p *Preview) refuse(what string, res Result) {
	p.Problem = willFail(what, res.Content)
	p.Refused = res.Content
}

// summaryOnly is the preview of a call that changes nothing: its summary.
func summaryOnly[A Summarizer](a A) Preview {
	return Preview{Summary: a.Summary()}
}

// Preview works out what a call with arguments would do, without running
// it (see Preview). Arguments the tool would refuse give a Problem.
func (t *Tool) Preview(arguments string) Preview {
	args, err := t.decode([]byte(arguments))
	if err != nil {
		p := Preview{Summary: t.Summary(arguments), Problem: "the call will fail: its arguments do not fit the tool", Refused: err.Error()}
		var ae *ArgsError
		if errors.As(err, &ae) {
			p.Problem = fmt.Sprintf("the call will fail: %s", strings.Join(ae.Problems, "; "))
		}
		return p
	}
	if t.preview != nil {
		return t.preview(args)
	}
	return Preview{Summary: t.Summary(arguments), Args: t.args.list(args)}
}

// list gives the fields of decoded arguments that are set, in schema
// order.
func (as *argSchema) list(args any) []Arg {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil
	}
	var set map[string]json.RawMessage
	if err := json.Unmarshal(raw, &set); err != nil {
		return []Arg{{Name: "arguments", Value: string(raw)}}
	}
	var out []Arg
	for _, f := range as.fields {
		v, ok := set[f.name]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v)
		}
		out = append(out, Arg{Name: f.name, Value: s})
	}
	return out
}
