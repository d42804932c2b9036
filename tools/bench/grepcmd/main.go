// Command grepcmd runs tackle's grep tool once, the way the model would,
// for timing against ripgrep (see ../grep_vs_rg.sh).
//
//	grepcmd [-q] DIR PATTERN
//
// DIR is the workspace root. The output is the tool result; with -q only
// its last line (the count of matching lines and files) is printed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

func main() {
	quiet := flag.Bool("q", false, "print only the summary line")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: grepcmd [-q] DIR PATTERN")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1), *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "grepcmd:", err)
		os.Exit(1)
	}
}

func run(dir, pattern string, quiet bool) error {
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		return err
	}
	defer ws.Close()
	args, err := json.Marshal(tools.GrepArgs{Pattern: pattern})
	if err != nil {
		return err
	}
	res, err := tools.NewRegistry(ws).Run(context.Background(), chat.ToolCall{Name: "grep", Arguments: string(args)})
	if err != nil {
		return err
	}
	out := res.Content
	if quiet {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		out = lines[len(lines)-1]
	}
	fmt.Println(strings.TrimSpace(out))
	if res.IsError() {
		return fmt.Errorf("grep failed")
	}
	return nil
}
