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
// A Registry holds the tools of one session and implements the agent's
// Toolbox. NewRegistry builds the built-in tools, confined to a
// Workspace:
//
//   - read_file, list_dir, glob and grep only read (Tool.ReadOnly);
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
// For an approval policy, Registry.Inspect tells what a call would do:
// whether its tool is read-only, the workspace paths it names (symbolic
// links resolved) and, for bash, the command.
package tools
