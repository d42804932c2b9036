package approval

import (
	"path"
	"sync"
)

// The command table: what the policy knows about common commands. It is
// data: adding a tool is one entry. An entry says what the command does
// with none of its risky options (its effect), which of its options
// write, delete, send files or run code, and which operands it writes.
//
// How it is used:
//
//   - A final `*` in an allow rule never covers a risky option, a sed
//     script or awk program that writes or runs commands, a word naming a
//     path outside the workspace, or (unless the command's arguments are
//     text, like echo's) a word known only at run time. A pattern word
//     that names the option literally does cover it: `bash(sed -i *)`
//     allows `sed -i s/a/b/ f.go`, `bash(sed *)` does not.
//   - "Approve always" gives a wide rule (`bash(cat *)`,
//     `bash(git status *)`) only for a command whose effect is readsOnly
//     and that uses none of those words; an exact rule (every word) for a
//     command not in the table; and no rule at all for one that writes,
//     deletes, sends files or runs code.
//   - The files a command writes (its write operands and the values of
//     options marked target) are checked against protected paths and
//     edit deny rules.
//
// A command not in the table is unknownEffect: nothing is assumed about
// it, and its words known only at run time or naming paths outside the
// workspace are not covered by a final `*` either.

// Reasons shared by many entries.
const (
	whatWritesTo  = "writes to a file"
	whatRunsCode  = "runs code"
	whatRunsFile  = "runs a program from a file that is not checked"
	whatInPlace   = "edits files in place"
	whatConfig    = "reads options from a file that is not checked"
	whatOtherRepo = "works on another repository or configuration"
)

// gitDiffRisky are the options of git's diff and log family that write
// files or run programs.
var gitDiffRisky = []risky{
	{long: []string{"output"}, effect: writes, target: true, what: whatWritesTo},
	{long: []string{"ext-diff"}, effect: runsCode, what: "runs an external diff program"},
	{long: []string{"textconv"}, effect: runsCode, what: "runs text conversion programs"},
}

func gitRO(extra ...risky) *toolSpec {
	return &toolSpec{effect: readsOnly, risky: append(extra, gitDiffRisky...), args: "nSGL", longArgs: []string{"format", "pretty", "grep", "author", "since", "until"}}
}

// interpreter is a program that runs code it is given: every use runs
// code; the options that take the code itself are risky.
func interpreter(short string, long ...string) *toolSpec {
	return &toolSpec{effect: runsCode, args: short, risky: []risky{{short: short, long: long, effect: runsCode, what: "runs code given on the command line"}}}
}

var toolTable = sync.OnceValue(func() map[string]*toolSpec {
	ro := &toolSpec{effect: readsOnly}
	text := &toolSpec{effect: readsOnly, text: true}
	writer := &toolSpec{effect: writes, operands: opAll}
	deleter := &toolSpec{effect: deletes, operands: opAll}
	copier := &toolSpec{effect: writes, operands: opLast, args: "tSm", longArgs: []string{"target-directory", "suffix", "mode", "owner", "group"}}
	runs := &toolSpec{effect: runsCode}
	// listed reads the files a list in another file names, which no word
	// of the command shows (wc --files0-from=F, sha256sum -c F).
	listed := risky{long: []string{"files0-from"}, effect: unknownEffect, what: "reads the files a list names"}
	lister := &toolSpec{effect: readsOnly, risky: []risky{listed}, longArgs: []string{"files0-from"}}
	checksum := &toolSpec{effect: readsOnly, risky: []risky{{short: "c", long: []string{"check"}, effect: unknownEffect, what: "reads the files a checksum list names"}}}
	grep := &toolSpec{effect: readsOnly, pattern: true, args: "efABCmd", longArgs: []string{"regexp", "file", "include", "exclude", "exclude-dir", "max-count", "context", "after-context", "before-context", "label"}}

	t := map[string]*toolSpec{
		// Commands that only read and print.
		"cd": ro, "pushd": ro, "popd": ro, // where they go is checked for the whole program (movesAway)
		"ls": ro, "cat": ro, "head": {effect: readsOnly, args: "nc"}, "tail": {effect: readsOnly, args: "nc"},
		"wc": lister, "pwd": ro, "stat": ro, "du": lister, "df": ro, "nl": ro, "cut": {effect: readsOnly, args: "dfcb"},
		"tr": text, "column": ro, "basename": text, "dirname": text, "realpath": ro, "readlink": ro,
		"whoami": text, "id": text, "uname": text, "which": text, "type": text, "printenv": text,
		"echo": text, "true": text, "false": text, "sleep": text, "seq": text,
		// Builtins that take a variable's name (vars.go): a final `*` never
		// covers a name with an array subscript or one that changes how
		// later commands run.
		"printf": {effect: readsOnly, text: true, args: "v", check: optNameCheck("v", false)},
		"test":   {effect: readsOnly, text: true, check: testCheck}, "[": {effect: readsOnly, text: true, check: testCheck},
		"read":      {effect: readsOnly, text: true, args: "adinNptu", check: optNameCheck("a", true)},
		"mapfile":   {effect: readsOnly, text: true, args: "CcdnOsu", check: optNameCheck("", true), risky: []risky{{short: "C", effect: runsCode, what: "runs a callback command"}}},
		"readarray": {effect: readsOnly, text: true, args: "CcdnOsu", check: optNameCheck("", true), risky: []risky{{short: "C", effect: runsCode, what: "runs a callback command"}}},
		"unset":     {effect: readsOnly, text: true, check: optNameCheck("", true)},
		"getopts":   {effect: readsOnly, text: true, check: getoptsCheck},
		"wait":      {effect: readsOnly, text: true, args: "p", check: optNameCheck("p", false)},
		"md5sum":    checksum, "sha1sum": checksum, "sha256sum": checksum, "sha512sum": checksum, "b2sum": checksum,
		"cksum": checksum, "base64": ro, "od": ro, "hexdump": ro, "strings": ro, "cmp": ro, "comm": ro,
		"diff": ro, "grep": grep, "egrep": grep, "fgrep": grep, "jq": {effect: readsOnly, pattern: true, args: "fL", longArgs: []string{"arg", "argjson", "slurpfile", "rawfile", "indent"}, check: jqCheck},
		"rg": {effect: readsOnly, pattern: true, args: "efgtTABCmM", risky: []risky{
			{long: []string{"pre"}, effect: runsCode, target: false, what: "runs a preprocessor program"},
			{long: []string{"hostname-bin"}, effect: runsCode, what: "runs a program for the hostname of hyperlinks"},
		}, longArgs: []string{"pre", "pre-glob", "glob", "type", "max-count", "hostname-bin"}},
		"tree": {effect: readsOnly, args: "LPIo", risky: []risky{{short: "o", effect: writes, target: true, what: whatWritesTo}}},
		"file": {effect: readsOnly, args: "mfF", risky: []risky{{short: "C", long: []string{"compile"}, effect: writes, what: "writes a compiled magic file"}}},
		"date": {effect: readsOnly, args: "dfr", risky: []risky{{short: "s", long: []string{"set"}, effect: writes, what: "sets the system clock"}}},
		"sort": {effect: readsOnly, args: "ktST", risky: []risky{
			{short: "o", long: []string{"output"}, effect: writes, target: true, what: whatWritesTo},
			{long: []string{"compress-program"}, effect: runsCode, what: "runs a compression program"},
			listed,
		}, longArgs: []string{"files0-from"}},
		"uniq": {effect: readsOnly, args: "fsw", operands: opSecond},
		"xxd":  {effect: readsOnly, args: "cglos", operands: opSecond},
		"yq":   {effect: readsOnly, risky: []risky{{short: "i", long: []string{"inplace"}, effect: writes, what: whatInPlace}}},
		"gofmt": {effect: readsOnly, goFlags: true, args: "r", risky: []risky{
			{short: "w", effect: writes, what: "rewrites files"},
			{short: "cpuprofile", effect: writes, target: true, what: whatWritesTo},
		}},

		// Scripted text tools.
		"sed": {effect: readsOnly, args: "efl", longArgs: []string{"expression", "file", "line-length"}, operands: opScripted, check: sedCheck, risky: []risky{
			{short: "i", long: []string{"in-place"}, effect: writes, what: whatInPlace},
			{short: "f", long: []string{"file"}, effect: runsCode, what: "runs a sed script from a file that is not checked"},
		}},
		"awk": awkSpec(), "gawk": awkSpec(), "mawk": awkSpec(), "nawk": awkSpec(),

		// find: its actions run commands, delete or write files.
		"find": {effect: readsOnly, words: map[string]risky{
			"-exec": {effect: runsCode, what: whatRunsCode}, "-execdir": {effect: runsCode, what: whatRunsCode},
			"-ok": {effect: runsCode, what: whatRunsCode}, "-okdir": {effect: runsCode, what: whatRunsCode},
			"-delete":  {effect: deletes, what: "deletes the files it finds"},
			"-fprint":  {effect: writes, target: true, what: whatWritesTo},
			"-fprint0": {effect: writes, target: true, what: whatWritesTo},
			"-fprintf": {effect: writes, target: true, what: whatWritesTo},
			"-fls":     {effect: writes, target: true, what: whatWritesTo},
		}},

		// Archives and downloads.
		"tar": {effect: readsOnly, args: "fCbgFHIKLNTVX", longFlags: []string{"list", "gzip", "verbose", "to-stdout"}, longArgs: []string{"file", "directory", "exclude", "files-from", "format", "transform", "owner", "group", "mode"}, check: tarCheck, risky: []risky{
			{short: "xcruA", long: []string{"extract", "get", "create", "append", "update", "catenate", "concatenate", "delete"}, effect: writes, what: "writes files"},
			{short: "C", long: []string{"directory"}, effect: writes, target: true, what: "works in another directory"},
			{long: []string{"to-command"}, effect: runsCode, what: "runs a command for each file"},
			{short: "I", long: []string{"use-compress-program"}, effect: runsCode, what: "runs a compression program"},
			{long: []string{"checkpoint-action"}, effect: runsCode, what: "runs a checkpoint action"},
			{short: "F", long: []string{"info-script", "new-volume-script"}, effect: runsCode, what: "runs a volume script"},
			{long: []string{"rsh-command"}, effect: runsCode, what: "runs a remote shell"},
			{long: []string{"index-file"}, effect: writes, target: true, what: whatWritesTo},
			{short: "g", long: []string{"listed-incremental"}, effect: writes, target: true, what: "writes a snapshot file"},
			{long: []string{"remove-files"}, effect: deletes, what: "deletes the files it archives"},
		}},
		"curl": {effect: unknownEffect, args: "AbdeEFHmoOrTuwxXYyzcDKQ", longArgs: []string{"data", "data-binary", "data-raw", "data-urlencode", "form", "header", "user-agent", "request", "url", "user", "referer", "max-time", "connect-timeout"}, check: curlCheck, risky: []risky{
			{short: "o", long: []string{"output"}, effect: writes, target: true, what: whatWritesTo},
			{short: "O", long: []string{"remote-name", "remote-name-all"}, effect: writes, what: "saves the download to a file"},
			{short: "J", long: []string{"remote-header-name"}, effect: writes, what: "saves the download under a name the server picks"},
			{long: []string{"output-dir"}, effect: writes, target: true, what: "saves downloads to a directory"},
			{short: "D", long: []string{"dump-header"}, effect: writes, target: true, what: whatWritesTo},
			{short: "c", long: []string{"cookie-jar"}, effect: writes, target: true, what: whatWritesTo},
			{long: []string{"trace", "trace-ascii", "stderr", "libcurl", "etag-save", "hsts", "alt-svc"}, effect: writes, target: true, what: whatWritesTo},
			{short: "K", long: []string{"config"}, effect: runsCode, what: whatConfig},
			{short: "T", long: []string{"upload-file"}, effect: sends, what: "uploads a local file"},
		}},
		"wget": {effect: writes, args: "OPoaeiUTtwQlAR", longArgs: []string{"user-agent", "header", "tries", "timeout", "post-data"}, risky: []risky{
			{short: "O", long: []string{"output-document"}, effect: writes, target: true, what: whatWritesTo},
			{short: "P", long: []string{"directory-prefix"}, effect: writes, target: true, what: "saves to a directory"},
			{short: "o", long: []string{"output-file"}, effect: writes, target: true, what: whatWritesTo},
			{short: "a", long: []string{"append-output"}, effect: writes, target: true, what: whatWritesTo},
			{short: "e", long: []string{"execute"}, effect: runsCode, what: "runs a wgetrc command"},
			{short: "i", long: []string{"input-file"}, effect: readsOnly, what: "reads URLs from a file"},
			{long: []string{"config"}, effect: runsCode, what: whatConfig},
			{long: []string{"use-askpass"}, effect: runsCode, what: "runs a password program"},
			{long: []string{"post-file", "body-file"}, effect: sends, what: "uploads a local file"},
			{long: []string{"save-cookies"}, effect: writes, target: true, what: whatWritesTo},
		}},

		// Commands that write or delete files.
		"touch": writer, "mkdir": writer, "tee": writer, "truncate": {effect: writes, operands: opAll, args: "sr"},
		"chmod": writer, "chown": writer, "chgrp": writer, "patch": {effect: writes, args: "opiBdDFrVYz", risky: []risky{{short: "o", long: []string{"output"}, effect: writes, target: true, what: whatWritesTo}}},
		"cp": copier, "ln": copier, "install": copier,
		"mv": {effect: writes, operands: opLast, args: "tS", longArgs: []string{"target-directory", "suffix"}},
		"rm": deleter, "rmdir": deleter, "unlink": deleter, "shred": deleter,
		"dd": {effect: readsOnly, text: false, words: map[string]risky{
			"of=": {effect: writes, target: true, what: "writes to a file"},
		}},
		"rsync": {effect: writes, operands: opLast, args: "eTB", risky: []risky{
			{short: "e", long: []string{"rsh"}, effect: runsCode, what: "runs a remote shell program"},
			{long: []string{"rsync-path"}, effect: runsCode, what: "runs a program on the other side"},
		}},
		"scp": {effect: writes, operands: opLast, args: "cFiJloPS", risky: []risky{
			{short: "S", effect: runsCode, what: "runs a program as ssh"},
			{short: "o", effect: runsCode, what: "sets ssh options, which can run commands"},
			{short: "F", effect: runsCode, what: whatConfig},
		}},
		"unzip": writer, "zip": writer, "gzip": writer, "gunzip": writer, "bzip2": writer, "xz": writer, "unxz": writer, "zstd": writer,

		// Build tools and interpreters: they run code.
		"make": runs, "gmake": runs, "cmake": runs, "ninja": runs, "just": runs, "task": runs,
		"npx": runs, "bunx": runs, "pnpx": runs, "ssh": runs, "docker": runs, "podman": runs,
		"vim": runs, "vi": runs, "nvim": runs, "emacs": runs, "nano": runs, "crontab": runs, "at": runs,
		"xdg-open": runs, "open": runs,
		"python": interpreter("cmW", "command"), "python2": interpreter("cmW"), "python3": interpreter("cmW"), "pypy": interpreter("cmW"), "pypy3": interpreter("cmW"),
		"node":   {effect: runsCode, args: "erp", risky: []risky{{short: "epr", long: []string{"eval", "print", "require", "import", "loader", "experimental-loader"}, effect: runsCode, what: "runs code given on the command line"}}},
		"nodejs": interpreter("ep", "eval", "print"),
		"perl":   {effect: runsCode, args: "eEmMiIx", risky: []risky{{short: "eEmM", effect: runsCode, what: "runs code given on the command line"}, {short: "i", effect: writes, what: whatInPlace}}},
		"ruby":   {effect: runsCode, args: "erI", risky: []risky{{short: "er", effect: runsCode, what: "runs code given on the command line"}, {short: "i", effect: writes, what: whatInPlace}}},
		"php":    interpreter("rBREFdS"),
		"lua":    interpreter("el"), "luajit": interpreter("el"),
		"Rscript": interpreter("e"), "julia": interpreter("eE", "eval", "print"), "tclsh": runs, "osascript": interpreter("e"),
		"deno": {effect: runsCode, subs: map[string]*toolSpec{"eval": {effect: runsCode, guardName: whatRunsCode}}, subDefault: runsCode,
			risky: []risky{{long: []string{"eval"}, effect: runsCode, what: whatRunsCode}}},
		"bun": {effect: runsCode, subs: map[string]*toolSpec{}, subDefault: runsCode,
			risky: []risky{{short: "e", long: []string{"eval", "print"}, effect: runsCode, what: "runs code given on the command line"}}},

		// env runs a command (wrappers.go checks it on its own); a final `*`
		// never covers a variable it sets that changes how the command
		// runs (PATH, LD_PRELOAD, GIT_CONFIG_* …) or where it runs.
		"env": {effect: readsOnly, args: "uCSPa", longArgs: []string{"unset", "chdir", "split-string", "argv0"}, check: envCheck, risky: []risky{
			{short: "C", long: []string{"chdir"}, effect: runsCode, what: "runs the command in another directory"},
			{short: "S", long: []string{"split-string"}, effect: runsCode, what: "runs a command from a string"},
			{short: "P", effect: runsCode, what: "looks the command up on another PATH"},
		}},

		// Tools with subcommands.
		"git":   gitSpec(),
		"go":    goSpec(),
		"cargo": {effect: runsCode, subDefault: runsCode, subs: map[string]*toolSpec{"tree": ro, "metadata": ro, "search": ro}},
		"npm":   {effect: runsCode, subDefault: runsCode, subs: map[string]*toolSpec{"ls": ro, "list": ro, "view": ro, "outdated": ro}},
		"yarn":  {effect: runsCode, subDefault: runsCode, subs: map[string]*toolSpec{"list": ro, "info": ro}},
		"pnpm":  {effect: runsCode, subDefault: runsCode, subs: map[string]*toolSpec{"ls": ro, "list": ro}},
		"pip":   {effect: runsCode, subDefault: runsCode, subs: map[string]*toolSpec{"list": ro, "show": ro, "freeze": ro}},
		"pip3":  {effect: runsCode, subDefault: runsCode, subs: map[string]*toolSpec{"list": ro, "show": ro, "freeze": ro}},
		// tackle itself: a run is an agent of its own (it runs code), and
		// revoking a rule rewrites tackle's configuration, which may drop a
		// deny rule.
		"tackle": {effect: runsCode, subDefault: runsCode, subs: map[string]*toolSpec{
			"permissions": {effect: readsOnly, check: tacklePermissionsCheck},
		}},
	}
	return t
})

func awkSpec() *toolSpec {
	return &toolSpec{effect: readsOnly, args: "vFfeEiloWdpD", longArgs: []string{"assign", "field-separator", "file", "source", "exec", "include", "load"}, check: awkCheck, risky: []risky{
		{short: "fE", long: []string{"file", "exec"}, effect: runsCode, what: "runs an awk program from a file that is not checked"},
		{short: "i", long: []string{"include"}, effect: runsCode, what: "includes an awk source file that is not checked"},
		{short: "l", long: []string{"load"}, effect: runsCode, what: "loads an extension library"},
		{short: "W", effect: runsCode, what: "sets implementation options, which can run a program file"},
		{short: "oOpd", long: []string{"pretty-print", "profile", "dump-variables"}, effect: writes, what: whatWritesTo},
		{short: "D", long: []string{"debug"}, effect: runsCode, what: "starts the debugger"},
	}}
}

func gitSpec() *toolSpec {
	w := &toolSpec{effect: writes}
	g := &toolSpec{
		effect:         writes,
		subDefault:     runsCode, // an alias or git-<name> program
		globalArgs:     "Cc",
		globalLongArgs: []string{"git-dir", "work-tree", "namespace", "config-env", "super-prefix", "list-cmds"},
		risky: []risky{
			{short: "c", long: []string{"config-env"}, effect: runsCode, what: "sets git configuration, which can run commands"},
			{short: "C", long: []string{"git-dir"}, effect: runsCode, what: "works on another repository, whose configuration can make git run commands"},
			{long: []string{"work-tree"}, effect: writes, what: whatOtherRepo},
			{long: []string{"exec-path"}, effect: runsCode, what: "runs git programs from another directory"},
		},
		subs: map[string]*toolSpec{
			"status": gitRO(), "log": gitRO(), "show": gitRO(), "diff": gitRO(), "whatchanged": gitRO(),
			"range-diff": gitRO(), "diff-tree": gitRO(), "diff-files": gitRO(), "diff-index": gitRO(),
			"blame": gitRO(), "shortlog": gitRO(), "describe": gitRO(), "rev-parse": gitRO(), "rev-list": gitRO(),
			"ls-files": gitRO(), "ls-tree": gitRO(), "cat-file": gitRO(risky{long: []string{"filters"}, effect: runsCode, what: "runs the filter programs of the configuration"}), "show-ref": gitRO(), "for-each-ref": gitRO(),
			"merge-base": gitRO(), "name-rev": gitRO(), "count-objects": gitRO(), "cherry": gitRO(),
			"check-ignore": gitRO(), "check-attr": gitRO(), "var": gitRO(), "version": gitRO(),
			"help":         gitRO(risky{short: "wmi", long: []string{"web", "man", "info"}, effect: runsCode, what: "runs a documentation viewer"}),
			"grep":         gitRO(risky{short: "O", long: []string{"open-files-in-pager"}, effect: runsCode, what: "runs a pager program"}),
			"format-patch": {effect: writes, args: "o", risky: append([]risky{{short: "o", long: []string{"output-directory"}, effect: writes, target: true, what: "writes patches to a directory"}}, gitDiffRisky...)},
			"config":       {effect: readsOnly, check: gitConfigCheck, args: "f", longArgs: []string{"file", "blob", "type", "default", "value", "comment"}},
			"add":          w, "commit": w, "checkout": w, "switch": w, "restore": w,
			"reset": w, "merge": w, "pull": w, "push": {effect: writes, risky: []risky{{long: []string{"receive-pack", "exec"}, effect: runsCode, what: "runs a program on the remote"}}},
			"fetch": {effect: writes, risky: []risky{{long: []string{"upload-pack"}, effect: runsCode, what: "runs a program for the remote"}}},
			"clone": {effect: writes, args: "bcou", risky: []risky{
				{short: "u", long: []string{"upload-pack"}, effect: runsCode, what: "runs a program for the remote"},
				{short: "c", long: []string{"config", "template"}, effect: runsCode, what: "sets configuration or hooks of the new repository"},
			}},
			"ls-remote": {effect: unknownEffect, risky: []risky{{long: []string{"upload-pack"}, effect: runsCode, what: "runs a program for the remote"}}},
			"rebase":    {effect: writes, args: "x", risky: []risky{{short: "x", long: []string{"exec"}, effect: runsCode, what: "runs a command after each commit"}}},
			"archive": {effect: writes, args: "o", risky: []risky{
				{short: "o", long: []string{"output"}, effect: writes, target: true, what: whatWritesTo},
				{long: []string{"exec"}, effect: runsCode, what: "runs a program on the remote"},
			}},
			"difftool":      {effect: runsCode, args: "tx", risky: []risky{{short: "tx", long: []string{"tool", "extcmd"}, effect: runsCode, what: "runs a diff program"}}},
			"mergetool":     {effect: runsCode, args: "t", risky: []risky{{short: "t", long: []string{"tool"}, effect: runsCode, what: "runs a merge program"}}},
			"submodule":     {effect: writes, check: gitSubmoduleCheck},
			"bisect":        {effect: writes, check: gitBisectCheck},
			"filter-branch": {effect: runsCode, guardName: "runs shell commands on every commit"},
			"filter-repo":   {effect: runsCode, guardName: "runs code on every commit"},
			"stash":         w, "tag": w, "branch": w, "rm": {effect: deletes}, "mv": w,
			"clean": {effect: deletes}, "am": w, "apply": w, "cherry-pick": w, "revert": w,
			"worktree": w, "gc": w, "prune": w, "notes": w, "init": w, "remote": w,
			"send-email": {effect: sends}, "daemon": {effect: runsCode},
		},
	}
	return g
}

// goWrites are the flags of the go command (cmd/go: build, test, vet …)
// and of gofmt that write a file they name: profiles, traces and debug
// output. Even "read-only" go list, go vet and gofmt take them.
var goWrites = []string{
	"cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "coverprofile", "outputdir",
	"debug-actiongraph", "debug-runtime-trace", "debug-trace", "pkgdir", "modfile",
}

func goSpec() *toolSpec {
	build := []risky{
		{short: "o", effect: writes, target: true, what: "writes the built program to a file"},
		{short: "toolexec", effect: runsCode, what: "runs a program for every build step"},
		{short: "exec", effect: runsCode, what: "runs the program through another program"},
		{short: "vettool", effect: runsCode, what: "runs another vet program"},
		{short: "fixtool", effect: runsCode, what: "runs another fix program"},
		{short: "overlay", effect: runsCode, what: "builds files other than the ones on disk"},
		{short: "export", effect: runsCode, what: "builds the packages"},
		{short: "compiled", effect: runsCode, what: "builds the packages"},
		{short: "fix", effect: writes, what: "applies fixes to the source files"},
		{short: "http", effect: runsCode, what: "downloads and runs a documentation server"},
	}
	for _, f := range []string{"gcflags", "ldflags", "asmflags", "gccgoflags"} {
		build = append(build, risky{short: f, effect: runsCode, what: "passes flags to the compiler or linker, which can write files and run programs"})
	}
	for _, f := range goWrites {
		build = append(build, risky{short: f, effect: writes, target: true, what: whatWritesTo})
	}
	goTool := func(e effect) *toolSpec {
		return &toolSpec{effect: e, goFlags: true, risky: build, args: "opCf", check: goModCheck, longArgs: []string{"mod", "tags", "run", "bench", "reuse", "pgo"}}
	}
	return &toolSpec{
		effect:     runsCode,
		goFlags:    true,
		subDefault: runsCode,
		globalArgs: "C",
		risky:      []risky{{short: "C", effect: writes, what: "works in another directory"}},
		subs: map[string]*toolSpec{
			"version": goTool(readsOnly), "list": goTool(readsOnly), "doc": goTool(readsOnly), "vet": goTool(readsOnly),
			"env": {effect: readsOnly, goFlags: true, risky: []risky{
				{short: "w", effect: writes, what: "changes the go environment file"},
				{short: "u", effect: writes, what: "changes the go environment file"},
			}},
			"build": goTool(writes), "install": goTool(writes), "mod": goTool(writes), "get": goTool(writes),
			"fmt": goTool(writes), "fix": goTool(writes), "work": goTool(writes), "clean": goTool(deletes),
			"test": goTool(runsCode), "run": goTool(runsCode), "generate": goTool(runsCode), "tool": goTool(runsCode),
		},
	}
}

// lookupTool returns the table entry for a command name: by the name as
// written, or by its base name for an absolute path (/usr/bin/sed).
func lookupTool(name string) *toolSpec {
	t := toolTable()
	if s, ok := t[name]; ok {
		return s
	}
	if path.IsAbs(name) {
		return t[path.Base(name)]
	}
	return nil
}
