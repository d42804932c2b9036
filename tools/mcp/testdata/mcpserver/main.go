// Command mcpserver is the MCP server tackle's tests talk to, built from
// the official Go SDK. It serves over stdio, or over streamable HTTP with
// -http ADDR (the address it listens on is printed on stdout). Its tools:
//
//   - echo (read-only): returns its text;
//   - slow: waits until it is cancelled (then writes "cancelled" to
//     $MCPSERVER_CANCELLED) or for "seconds";
//   - fail: an error result;
//   - structured: structured content {"n", "squares"};
//   - image: an image of 2,048 bytes and a text resource;
//   - crash: writes to stderr and exits 3 mid-call;
//   - grow: adds the tool "added" (tools/list_changed).
//
// The environment shapes it: MCPSERVER_STARTS is a file it appends its
// pid to at each start; MCPSERVER_CHILD makes it start a child (sleep)
// and write that child's pid to the file named; MCPSERVER_DELAY waits
// that long (a Go duration) before it answers anything;
// MCPSERVER_FAIL exits at once with that message on stderr;
// MCPSERVER_SLOW_STARTED is a file slow writes "started" to when it
// begins; MCPSERVER_TOKEN makes the HTTP server take only requests with
// "Authorization: Bearer TOKEN"; MCPSERVER_FLOOD_MIB makes echo write
// that many mebibytes to stderr before it answers.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP on this address")
	flag.Parse()
	if msg := os.Getenv("MCPSERVER_FAIL"); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(1)
	}
	if f := os.Getenv("MCPSERVER_STARTS"); f != "" {
		appendLine(f, strconv.Itoa(os.Getpid()))
	}
	if f := os.Getenv("MCPSERVER_CHILD"); f != "" {
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			fatal(err)
		}
		appendLine(f, strconv.Itoa(c.Process.Pid))
	}
	if d, err := time.ParseDuration(os.Getenv("MCPSERVER_DELAY")); err == nil {
		time.Sleep(d) // a server slow to start, as the test asks
	}
	if *httpAddr != "" {
		ln, err := net.Listen("tcp", *httpAddr)
		if err != nil {
			fatal(err)
		}
		fmt.Println("http://" + ln.Addr().String())
		srv := newServer() // one server: a tool one session adds, all see
		var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
		if tok := os.Getenv("MCPSERVER_TOKEN"); tok != "" {
			next := h
			h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer "+tok {
					http.Error(w, "unauthorized", http.StatusUnauthorized)
					return
				}
				next.ServeHTTP(w, r)
			})
		}
		fatal(http.Serve(ln, h))
	}
	if err := newServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mcpserver:", err)
	os.Exit(1)
}

func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fatal(err)
	}
	fmt.Fprintln(f, line)
	f.Close()
}

type echoIn struct {
	Text string `json:"text" jsonschema:"what to say back"`
}

type slowIn struct {
	Seconds float64 `json:"seconds,omitempty" jsonschema:"how long to wait (default: until cancelled)"`
}

type structuredIn struct {
	N int `json:"n" jsonschema:"how many squares"`
}

type structuredOut struct {
	N       int   `json:"n"`
	Squares []int `json:"squares"`
}

type none struct{}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpserver", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Say the text back.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			if mib, _ := strconv.Atoi(os.Getenv("MCPSERVER_FLOOD_MIB")); mib > 0 {
				line := strings.Repeat("stderr flood ", 1<<10/13) + "\n"
				for range mib << 20 / len(line) {
					os.Stderr.WriteString(line)
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Wait."},
		func(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
			if f := os.Getenv("MCPSERVER_SLOW_STARTED"); f != "" {
				appendLine(f, "started")
			}
			limit := 5 * time.Minute
			if in.Seconds > 0 {
				limit = time.Duration(in.Seconds * float64(time.Second))
			}
			select {
			case <-ctx.Done():
				if f := os.Getenv("MCPSERVER_CANCELLED"); f != "" {
					appendLine(f, "cancelled")
				}
				return nil, nil, ctx.Err()
			case <-time.After(limit):
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "waited"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Fail."},
		func(ctx context.Context, req *mcp.CallToolRequest, in none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the widget is broken"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "structured", Description: "Squares.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, in structuredIn) (*mcp.CallToolResult, structuredOut, error) {
			out := structuredOut{N: in.N, Squares: []int{}}
			for i := 1; i <= in.N; i++ {
				out.Squares = append(out.Squares, i*i)
			}
			return nil, out, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "image", Description: "A picture."},
		func(ctx context.Context, req *mcp.CallToolRequest, in none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "a note"}},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Crash."},
		func(ctx context.Context, req *mcp.CallToolRequest, in none) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "mcpserver: crashing as asked")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "Add a tool."},
		func(ctx context.Context, req *mcp.CallToolRequest, in none) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: "added", Description: "Added later."},
				func(ctx context.Context, req *mcp.CallToolRequest, in none) (*mcp.CallToolResult, any, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "I was added"}}}, nil, nil
				})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grown"}}}, nil, nil
		})
	return s
}
