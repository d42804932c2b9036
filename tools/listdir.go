package tools

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// maxListEntries caps list_dir's output.
const maxListEntries = 1000

// ListDir is the name of the list_dir tool.
const ListDir = "list_dir"

//go:embed descriptions/list_dir.md
var listDirDescription string

// ListDirArgs are the arguments of list_dir.
type ListDirArgs struct {
	Path string `json:"path,omitempty" jsonschema:"The directory to list, relative to the workspace root. Default: the workspace root."`
}

// Summary gives the directory it lists, if not the root.
func (a ListDirArgs) Summary() string { return a.Path }

// Paths returns the directory the call lists.
func (a ListDirArgs) Paths() []string { return []string{cmp.Or(a.Path, ".")} }

// Access: list_dir shows names, not what the files hold.
func (ListDirArgs) Access() Access { return ListsNames }

// listDirTool is list_dir: it lists a directory of the workspace.
type listDirTool struct{ ws *Workspace }

func (l listDirTool) tool() *Tool {
	return New(ListDir, listDirDescription, KindRead, l.run, summaryOnly[ListDirArgs])
}

func (l listDirTool) run(ctx context.Context, a ListDirArgs) (Result, error) {
	path := cmp.Or(a.Path, ".")
	rel, err := l.ws.Resolve(path)
	if err != nil {
		return l.ws.failPath(path, err), nil
	}
	d, err := l.ws.root.Open(rel)
	if err != nil {
		return l.ws.failPath(path, err), nil
	}
	defer d.Close()
	fi, err := d.Stat()
	if err != nil {
		return l.ws.failPath(path, err), nil
	}
	shown := display(rel)
	if !fi.IsDir() {
		return Fail("%s is a file, not a directory. Use read_file to read it.", shown), nil
	}
	entries, err := d.ReadDir(-1)
	if err != nil {
		return Fail("Cannot list %s: %v.", shown, err), nil
	}
	if len(entries) == 0 {
		return OK(fmt.Sprintf("%s is empty.", shown)), nil
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })

	var b strings.Builder
	header := shown
	if header != "." {
		header += "/"
	}
	fmt.Fprintf(&b, "%s (%s):\n", header, plural(len(entries), "entry"))
	for i, e := range entries {
		if i == maxListEntries {
			fmt.Fprintf(&b, "[%d more entries not shown. Use glob with a pattern to narrow the listing.]\n", len(entries)-i)
			break
		}
		name := e.Name()
		switch t := e.Type(); {
		case t.IsDir():
			fmt.Fprintf(&b, "%s/\n", name)
		case t&fs.ModeSymlink != 0:
			target, err := l.ws.root.Readlink(filepath.Join(rel, name))
			if err != nil {
				target = "?"
			}
			fmt.Fprintf(&b, "%s -> %s\n", name, target)
		case t.IsRegular():
			size := "?"
			if info, err := e.Info(); err == nil {
				size = humanSize(info.Size())
			}
			fmt.Fprintf(&b, "%s  %s\n", name, size)
		default:
			fmt.Fprintf(&b, "%s  (%s)\n", name, fileKind(t))
		}
	}
	return OK(b.String()), nil
}

// fileKind names a special file type.
func fileKind(t fs.FileMode) string {
	switch {
	case t&fs.ModeNamedPipe != 0:
		return "named pipe"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeDevice != 0:
		return "device"
	default:
		return "special file"
	}
}
