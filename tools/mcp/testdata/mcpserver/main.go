// Command mcpserver is the MCP server tackle's tests talk to, built from
// the official Go SDK. It serves over stdio, or over streamable HTTP with
// -http ADDR (the address it listens on is printed on stdout). Its tools:
//
//   - echo (read-only): returns its text, and logs that it was called
//     (notifications/message, level info);
//   - slow: waits until it is cancelled (then writes "cancelled" to
//     $MCPSERVER_CANCELLED) or for "seconds";
//   - fail: an error result;
//   - structured: structured content {"n", "squares"};
//   - image: an image of 2,048 bytes and a text resource;
//   - crash: writes to stderr and exits 3 mid-call;
//   - grow: adds the tool "added" and says so (tools/list_changed)
//     before it answers, as the TypeScript SDK's servers do;
//   - env: the names of the variables of its environment, one a line;
//   - roots: the roots the client gives (roots/list), one a line;
//   - read_text: "text" both as text content and as structured content
//     {"content": text}, as the reference filesystem server answers;
//   - read_media: a PNG image of "bytes" bytes both as image content and
//     inside its structured content, as the filesystem server's
//     read_media_file answers;
//   - progress: reports progress 1 of 2 ("halfway"), then waits for a
//     line on $MCPSERVER_PROGRESS_GATE (at once without it), reports 2
//     of 2 and answers "progressed";
//   - ask: asks the client to sample its model (kind "sampling") or
//     the user for input (kind "elicitation");
//   - long_task: a tool that requires task augmentation
//     (execution.taskSupport "required", written into its tools/list
//     entry over stdio).
//
// Its resources: note://greeting (text) and note://logo (a PNG), and the
// template note://{name}; its prompts: review (argument "file",
// required; "focus", optional). $MCPSERVER_INSTRUCTIONS are its
// instructions (initialize's result).
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
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
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
		srv := newServer(nil) // one server: a tool one session adds, all see
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
	out := &stdout{}
	if err := newServer(out).Run(context.Background(), &mcp.IOTransport{Reader: os.Stdin, Writer: out}); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
	}
}

// stdout is the server's stdout over stdio. The SDK writes each message
// whole, so that a tool can send a message of its own between them
// (notify), and long_task's entry in a tools/list answer gets the
// execution field the SDK's types do not have.
type stdout struct{ mu sync.Mutex }

func (o *stdout) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	line := p
	if bytes.Contains(p, []byte(`"tools":[`)) {
		line = bytes.Replace(p, []byte(`"name":"long_task"`), []byte(`"execution":{"taskSupport":"required"},"name":"long_task"`), 1)
	}
	if _, err := os.Stdout.Write(line); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (o *stdout) Close() error { return os.Stdout.Close() }

// notify sends a notification of method at once.
func (o *stdout) notify(method string) {
	o.Write([]byte(`{"jsonrpc":"2.0","method":"` + method + `"}` + "\n"))
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

type mediaIn struct {
	Bytes int `json:"bytes" jsonschema:"the image's size"`
}

type askIn struct {
	Kind string `json:"kind" jsonschema:"sampling or elicitation"`
}

type none struct{}

// anyObject is the input schema of the tools added without a typed
// handler.
var anyObject = json.RawMessage(`{"type":"object"}`)

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// png is an image of n bytes: PNG's signature, then zeros.
func png(n int) []byte {
	b := make([]byte, max(n, 8))
	copy(b, "\x89PNG\r\n\x1a\n")
	return b
}

// newServer makes the server; out is its stdout over stdio, nil over
// HTTP.
func newServer(out *stdout) *mcp.Server {
	opts := &mcp.ServerOptions{Instructions: os.Getenv("MCPSERVER_INSTRUCTIONS")}
	if v := os.Getenv("MCPSERVER_PROTOCOL"); v != "" {
		opts.SupportedProtocolVersions = []string{v}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpserver", Version: "1.0.0"}, opts)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Say the text back.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			if mib, _ := strconv.Atoi(os.Getenv("MCPSERVER_FLOOD_MIB")); mib > 0 {
				line := strings.Repeat("stderr flood ", 1<<10/13) + "\n"
				for range mib << 20 / len(line) {
					os.Stderr.WriteString(line)
				}
			}
			req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "mcpserver", Data: "echo called with " + in.Text})
			return text("echo: " + in.Text), nil, nil
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
			return text("waited"), nil, nil
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
					return text("I was added"), nil, nil
				})
			// The SDK says so 10 ms later, after the answer; the
			// TypeScript SDK's servers say it at once.
			if out != nil {
				out.notify("notifications/tools/list_changed")
			}
			return text("grown"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "The names of the server's environment variables."},
		func(ctx context.Context, req *mcp.CallToolRequest, in none) (*mcp.CallToolResult, any, error) {
			var names []string
			for _, kv := range os.Environ() {
				name, _, _ := strings.Cut(kv, "=")
				names = append(names, name)
			}
			slices.Sort(names)
			return text(strings.Join(names, "\n")), nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "roots", Description: "The client's roots.", InputSchema: anyObject},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			roots, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil
			}
			var lines []string
			for _, r := range roots.Roots {
				lines = append(lines, r.URI+" "+r.Name)
			}
			return text(strings.Join(lines, "\n")), nil
		})
	s.AddTool(&mcp.Tool{Name: "read_text", Description: "A file's text, as the filesystem server reads it.", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in echoIn
			json.Unmarshal(req.Params.Arguments, &in)
			return &mcp.CallToolResult{
				Content:           []mcp.Content{&mcp.TextContent{Text: in.Text}},
				StructuredContent: map[string]any{"content": in.Text},
			}, nil
		})
	s.AddTool(&mcp.Tool{Name: "read_media", Description: "An image, as the filesystem server's read_media_file reads it.", InputSchema: json.RawMessage(`{"type":"object","properties":{"bytes":{"type":"integer"}}}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in mediaIn
			json.Unmarshal(req.Params.Arguments, &in)
			data := png(in.Bytes)
			return &mcp.CallToolResult{
				Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: data}},
				StructuredContent: map[string]any{"content": []any{map[string]any{
					"type": "image", "data": base64.StdEncoding.EncodeToString(data), "mimeType": "image/png",
				}}},
			}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Report progress."},
		func(ctx context.Context, req *mcp.CallToolRequest, in none) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			report := func(n float64, msg string) {
				if tok != nil {
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: n, Total: 2, Message: msg})
				}
			}
			report(1, "halfway")
			if gate := os.Getenv("MCPSERVER_PROGRESS_GATE"); gate != "" {
				f, err := os.Open(gate)
				if err != nil {
					return nil, nil, err
				}
				bufio.NewReader(f).ReadString('\n')
				f.Close()
			}
			report(2, "done")
			return text("progressed"), nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "ask", Description: "Ask the client for a sample of its model or the user's input.", InputSchema: json.RawMessage(`{"type":"object","properties":{"kind":{"type":"string"}}}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in askIn
			json.Unmarshal(req.Params.Arguments, &in)
			if len(req.Params.InputResponses) > 0 {
				return text("the client answered"), nil
			}
			if in.Kind == "elicitation" {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
					Message:         "What is your name?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`),
				}}}, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"sample": &mcp.CreateMessageParams{
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hi."}}},
				MaxTokens: 10,
			}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "long_task", Description: "A long task (task-augmented calls only).", InputSchema: anyObject},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("ran without a task"), nil
		})
	s.AddResource(&mcp.Resource{URI: "note://greeting", Name: "greeting", Title: "A greeting", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "Hello from the resource."}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "note://logo", Name: "logo", MIMEType: "image/png"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: png(100)}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "note://{name}", Name: "note", Description: "A note by name"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			name := strings.TrimPrefix(req.Params.URI, "note://")
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "A note called " + name + "."}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "review", Title: "Review a file", Description: "Ask for a careful review of a file.", Arguments: []*mcp.PromptArgument{
		{Name: "file", Description: "the file to review", Required: true},
		{Name: "focus", Description: "what to look at"},
	}}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		msg := "Review " + req.Params.Arguments["file"] + " carefully"
		if f := req.Params.Arguments["focus"]; f != "" {
			msg += ", looking at " + f
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: msg + "."}}}}, nil
	})
	return s
}
