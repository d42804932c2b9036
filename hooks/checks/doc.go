// Package checks holds tackle's turn-end checks: built-in hooks that note
// which files a run changed and, when the model ends its turn, run gofmt,
// go vet, the configured Go linters and the configured check commands on
// them. What is left goes back to the model as one retry message
// (on_turn_end ContinueWithMessages); the agent's retry budget decides how
// many rounds a run gets and ends a run that makes no progress as capped.
//
//	c, err := checks.Register(reg, checks.Config{
//		Workspace: ws.Dir(),
//		Tools:     toolbox, // *tools.Registry
//		Report:    func(e checks.Event) { w.Emit(toAgentEvent(e)) },
//	})
//
// # Which files
//
// A file counts as changed in a run when a successful call of a file tool
// (write_file, edit_file: any tool that is not read-only and names paths)
// wrote it, or when a bash command changed it: before each bash call that
// is about to run, the workspace's checkable files (.go files and the
// files some command matches) are stat'd, and again after it; a file that
// is new or whose size or modification time differs is changed. The walk
// skips .git and node_modules, does not follow symbolic links and honours
// nothing else (a vendored or ignored file the model changed is still
// changed). It costs one stat per checkable file; see docs/benchmarks.md.
// The set is forgotten when the next run starts (on_prompt_submit), so a
// run that finished, was capped or was aborted leaves nothing behind; a
// paused run keeps it across Resume.
//
// # What runs, and what never does
//
// gofmt is the real gofmt of the go command's installation (next to go,
// else GOROOT/bin, else PATH). It reads each file on stdin, so it never
// opens a path itself; the formatted text is written back through an
// os.Root of the workspace (a temporary file in the same directory,
// synced, given the old mode, renamed over the file — and only if the
// file did not change meanwhile). Files under testdata/ are not checked
// (they are often broken on purpose); files under vendor/ are formatted
// but not vetted.
//
// go vet runs once per package, from the root of the module that owns it
// (the nearest go.mod at or above the file, but not above the workspace
// root), so that a package that does not load cannot hide the findings of
// another. A file outside any module is vetted with the files of its
// directory that declare the same package. go vet compiles the package
// but never runs it; //go:generate lines are not run; cgo preambles are
// compiled by the C compiler with the flags go allows by default. The
// environment is chosen so that a check cannot download or rewrite
// anything:
//
//   - GOTOOLCHAIN=local: no toolchain switch, whatever go.mod says;
//   - GOFLAGS: the user's (from the environment and the go env file)
//     without -mod, plus -mod=readonly (-mod=vendor when the module has
//     vendor/modules.txt): go.mod and go.sum are never rewritten;
//   - GOPROXY=off: a dependency missing from the module cache is an error
//     at once, reported to the user with a hint (go mod download), not a
//     network fetch or a hang;
//   - GOWORK: a go.work between the module and the workspace root, else
//     off (a go.work above the workspace is not the project's);
//   - GO111MODULE=on; GOENV is left alone (GOCACHE and the user's other
//     settings stay); API keys, tokens and other secrets are removed, as
//     for the bash tool.
//
// Every process runs in its own process group with a timeout (VetTimeout
// for go vet and linters, per command for commands) and the group is
// killed on timeout or cancellation. Nothing runs for a file outside the
// workspace, and no program of the project runs except the configured
// commands (which come from the user's config).
//
// # What is reported
//
// Tools print "file:line:col: message"; paths are made relative to the
// workspace. Diagnostics about files that did not change in the run are
// dropped — except go vet's type-check errors ("vet: ..." lines) in the
// changed packages, which stop the whole package from being vetted. The
// rest are de-duplicated, sorted and listed up to MaxDiagnostics, "… and
// N more" after that, in one user message that says what was checked and
// asks for a fix. The message has no timings or counters, so the same
// findings twice give the same message and the retry budget stops the
// run. A check that cannot run (a timeout, a missing dependency, a
// go.mod that needs a newer go) is not the model's to fix: it is reported
// to the user (Finished with StatusError, and the turn's Reason) and the
// turn may end. A linter or command that is not installed is reported
// once per session (Warning) and skipped.
package checks
