// Package tools holds the tools the model calls and what confines them.
//
// A Tool is defined from a typed argument struct with New: the JSON
// Schema the model sees is generated from the struct's json and
// jsonschema tags, and arguments are validated against it (strictly:
// unknown fields, missing required fields and wrong types are refused)
// before the tool runs. Bad arguments, like every failure the model
// should read, come back as an error result that says what was wrong and
// what was expected; a Go error is for failures of the harness itself.
//
// Every tool declares its Kind where it is defined (read, edit, exec,
// network), and its name is a constant (ReadFile, Bash, ...); a file
// tool's arguments also declare the paths a call names and the tool's
// Access to them (PathArgs: it shows what they hold, changes them or
// lists names). Approval, the turn-end checks and the UI learn these from
// the tool, never by matching names. A tool's typed arguments say in one
// line what a call is about (Summarizer).
//
// A Registry holds the tools of one session and implements the agent's
// Toolbox. NewRegistry builds the built-in tools, confined to a
// Workspace:
//
//   - read_file, list_dir, glob and grep only read (KindRead);
//   - write_file and edit_file replace files atomically and keep their
//     mode, and refuse a file that changed since the model last read or
//     wrote it (or that it never read);
//   - bash runs a command in its own process group and session, with no
//     standard input, a timeout, secrets removed from its environment,
//     and its output capped to its head and tail; when it ends, times out
//     or is cancelled, nothing it started in its process group is left
//     running.
//
// Every file access goes through an os.Root opened on the workspace
// root, so "..", absolute paths and symbolic links cannot reach outside
// it, not even a link swapped in after a check. Walks (glob, grep) never
// follow symbolic links, which also keeps them out of link loops.
//
// Registry.Inspect tells what a call would do: its tool's kind and
// access, its typed arguments, the workspace paths it names (as sent, and
// with symbolic links resolved) and, for bash, the command. Registry.Preview works out, by the tool's own
// code and without running it, what the person approving a call is
// shown: the file before and after, the exact command, or a summary.
package tools
