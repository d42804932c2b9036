// Command hookserver is a tackle hook server for tests: it speaks the
// protocol of hooks/process over stdio and does what its environment and
// the requests themselves tell it to. Run as "hookserver once" it is a
// command hook that says continue, for comparison.
//
// Environment:
//
//	HOOKSERVER_LOG          append every line received to this file
//	HOOKSERVER_STARTS       append a line to this file at startup: its pid,
//	                        TACKLE_HOOK_NAME, TACKLE_WORKSPACE and whether
//	                        OPENAI_API_KEY is set
//	HOOKSERVER_HELLO        "" (a hello for every offered event, modes
//	                        observe and intercept, and approve when
//	                        offered), json:OBJECT (this result), exit,
//	                        garbage, hang or error
//	HOOKSERVER_RESTARTS     fail: exit at once on every start but the first
//	HOOKSERVER_CHILD        start a child in the process group that never
//	                        exits, and write its pid to this file
//	HOOKSERVER_NOREAD       1: stop reading stdin after the hello
//	HOOKSERVER_STUBBORN     1: ignore hook.shutdown and the end of stdin
//	HOOKSERVER_DEFAULT_PRE  the action of a pre_tool_call without a
//	                        directive (default "continue")
//	HOOKSERVER_POST_CONTEXT context to add to every post_tool_call result
//	HOOKSERVER_LEAN         1: answer every request but the hello with
//	                        continue, reading nothing but its id (for
//	                        benchmarks: the least a server can do)
//
// A request may carry a directive, a JSON object, in the prompt
// (on_prompt_submit), the last message (pre_llm_request), the tool call's
// "hook" argument (pre_tool_call), the result's content (post_tool_call)
// the final answer (on_turn_end) or the focus (pre_compact):
//
//	{"answer": RESULT, "error": {"code", "message"}, "do": "hang" | "crash" |
//	 "garbage" | "long" | "exit", "stderr": TEXT, "raw": LINE, "tag": NAME,
//	 "after": NAME, "batch": N, "flood": MIB, "spam": N}
//
// "raw" writes LINE to stdout before the answer; "long" writes a line of
// 33 MiB instead of one; "flood" writes MIB mebibytes of lines to stderr
// before the answer; "spam" writes N lines that are not JSON-RPC to
// stdout before it.
//
// "after" holds the answer until the request tagged NAME was answered;
// "batch" holds it until N requests with a batch arrived, and then
// answers them in the reverse order of their arrival. Every answer is
// logged as "answered ID" to HOOKSERVER_LOG.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type directive struct {
	Answer json.RawMessage `json:"answer"`
	Error  json.RawMessage `json:"error"`
	Do     string          `json:"do"`
	Stderr string          `json:"stderr"`
	Raw    string          `json:"raw"`
	Tag    string          `json:"tag"`
	After  string          `json:"after"`
	Batch  int             `json:"batch"`
	Flood  int             `json:"flood"`
	Spam   int             `json:"spam"`
}

var (
	outMu sync.Mutex
	out   = bufio.NewWriter(os.Stdout)

	parkMu   sync.Mutex
	answered = map[string]bool{}
	parked   = map[string][]func(){}
	batch    []func()
)

func main() {
	switch {
	case len(os.Args) > 1 && os.Args[1] == "child":
		forever()
	case len(os.Args) > 1 && os.Args[1] == "once":
		// A command hook: one input on stdin, the answer on stdout.
		io.Copy(io.Discard, os.Stdin)
		fmt.Println(`{"action":"continue"}`)
		return
	}
	_, key := os.LookupEnv("OPENAI_API_KEY")
	appendTo(os.Getenv("HOOKSERVER_STARTS"), fmt.Sprintf("start pid=%d name=%s workspace=%s key=%v\n",
		os.Getpid(), os.Getenv("TACKLE_HOOK_NAME"), os.Getenv("TACKLE_WORKSPACE"), key))
	if os.Getenv("HOOKSERVER_RESTARTS") == "fail" && countLines(os.Getenv("HOOKSERVER_STARTS")) > 1 {
		fmt.Fprintln(os.Stderr, "hookserver: failing on restart")
		os.Exit(5)
	}
	if f := os.Getenv("HOOKSERVER_CHILD"); f != "" {
		child := exec.Command(os.Args[0], "child")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		appendTo(f, fmt.Sprintf("%d\n", child.Process.Pid))
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			appendTo(os.Getenv("HOOKSERVER_LOG"), string(line))
			handle(line)
		}
		if err != nil {
			break
		}
	}
	if os.Getenv("HOOKSERVER_STUBBORN") == "1" {
		forever()
	}
}

// forever blocks until the process is killed.
func forever() {
	for {
		time.Sleep(time.Hour)
	}
}

func handle(line []byte) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		fmt.Fprintf(os.Stderr, "hookserver: bad line %q\n", line)
		return
	}
	switch m.Method {
	case "hook.hello":
		hello(m)
		if os.Getenv("HOOKSERVER_NOREAD") == "1" {
			forever()
		}
	case "hook.event":
	case "hook.shutdown":
		if os.Getenv("HOOKSERVER_STUBBORN") != "1" {
			out.Flush()
			os.Exit(0)
		}
	default:
		if os.Getenv("HOOKSERVER_LEAN") == "1" {
			writeLine([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"action":"continue"}}`))
			return
		}
		request(m)
	}
}

func hello(m message) {
	var p struct {
		Events  []string `json:"events"`
		Approve bool     `json:"approve"`
	}
	json.Unmarshal(m.Params, &p)
	switch h := os.Getenv("HOOKSERVER_HELLO"); {
	case h == "":
		modes := []string{"observe", "intercept"}
		if p.Approve {
			modes = append(modes, "approve")
		}
		res, _ := json.Marshal(map[string]any{"version": 1, "name": "testserver", "modes": modes, "events": p.Events})
		respond(m.ID, res, nil)
	case strings.HasPrefix(h, "json:"):
		respond(m.ID, json.RawMessage(strings.TrimPrefix(h, "json:")), nil)
	case h == "exit":
		fmt.Fprintln(os.Stderr, "hookserver: cannot start: config missing")
		os.Exit(4)
	case h == "garbage":
		writeLine([]byte("hello there, I am not JSON-RPC"))
	case h == "error":
		respond(m.ID, nil, json.RawMessage(`{"code":-32000,"message":"not today"}`))
	case h == "hang":
	}
}

func request(m message) {
	d := directiveOf(m.Method, m.Params)
	for i := range d.Spam {
		writeLine(fmt.Appendf(nil, "DEBUG: line %d of my log", i))
	}
	if d.Flood > 0 {
		line := strings.Repeat("stderr flood ", 1<<10/13) + "\n"
		for range d.Flood << 20 / len(line) {
			os.Stderr.WriteString(line)
		}
	}
	if d.Stderr != "" {
		fmt.Fprintln(os.Stderr, d.Stderr)
	}
	if d.Raw != "" {
		writeLine([]byte(d.Raw))
	}
	switch d.Do {
	case "hang":
		return
	case "crash":
		fmt.Fprintln(os.Stderr, "hookserver: crashing on", m.Method)
		os.Exit(3)
	case "exit":
		os.Exit(0)
	case "garbage":
		writeLine([]byte("DEBUG: handling " + m.Method))
		return
	case "long":
		writeLine([]byte(`{"jsonrpc":"2.0","id":0,"result":"` + strings.Repeat("x", 33<<20) + `"}`))
		return
	}
	answer := func() {
		appendTo(os.Getenv("HOOKSERVER_LOG"), fmt.Sprintf("answered %s\n", m.ID))
		if d.Error != nil {
			respond(m.ID, nil, d.Error)
		} else {
			respond(m.ID, d.Answer, nil)
		}
		parkMu.Lock()
		var release []func()
		if d.Tag != "" {
			answered[d.Tag] = true
			release, parked[d.Tag] = parked[d.Tag], nil
		}
		parkMu.Unlock()
		for _, f := range release {
			f()
		}
	}
	parkMu.Lock()
	if d.Batch > 0 {
		batch = append(batch, answer)
		if len(batch) < d.Batch {
			parkMu.Unlock()
			return
		}
		all := batch
		batch = nil
		parkMu.Unlock()
		for i := len(all) - 1; i >= 0; i-- {
			all[i]()
		}
		return
	}
	if d.After != "" && !answered[d.After] {
		parked[d.After] = append(parked[d.After], answer)
		parkMu.Unlock()
		return
	}
	parkMu.Unlock()
	answer()
}

// directiveOf finds the request's directive, or makes the default one.
func directiveOf(method string, params json.RawMessage) directive {
	var p struct {
		Prompt   string `json:"prompt"`
		Final    string `json:"final"`
		Focus    string `json:"focus"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
		ToolCall struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"tool_call"`
		Result struct {
			Content string `json:"content"`
		} `json:"result"`
	}
	json.Unmarshal(params, &p)
	var text string
	switch method {
	case "hook.on_prompt_submit":
		text = p.Prompt
	case "hook.pre_llm_request":
		if n := len(p.Messages); n > 0 {
			text = p.Messages[n-1].Content
		}
	case "hook.pre_tool_call":
		var args struct {
			Hook json.RawMessage `json:"hook"`
		}
		json.Unmarshal(p.ToolCall.Arguments, &args)
		text = string(args.Hook)
	case "hook.post_tool_call":
		text = p.Result.Content
	case "hook.on_turn_end":
		text = p.Final
	case "hook.pre_compact":
		text = p.Focus
	}
	var d directive
	if strings.HasPrefix(strings.TrimSpace(text), "{") && json.Unmarshal([]byte(text), &d) == nil && (d.Answer != nil || d.Error != nil || d.Do != "" || d.After != "" || d.Tag != "" || d.Batch > 0 || d.Stderr != "" || d.Raw != "" || d.Flood > 0 || d.Spam > 0) {
		if d.Answer == nil && d.Error == nil {
			d.Answer = defaultAnswer(method)
		}
		return d
	}
	return directive{Answer: defaultAnswer(method)}
}

func defaultAnswer(method string) json.RawMessage {
	switch method {
	case "hook.on_turn_end":
		return json.RawMessage(`{"action":"finish"}`)
	case "hook.on_abort":
		return json.RawMessage(`{}`)
	case "hook.pre_tool_call":
		if a := os.Getenv("HOOKSERVER_DEFAULT_PRE"); a != "" {
			b, _ := json.Marshal(map[string]string{"action": a})
			return b
		}
	case "hook.post_tool_call":
		if c := os.Getenv("HOOKSERVER_POST_CONTEXT"); c != "" {
			b, _ := json.Marshal(map[string]string{"action": "continue", "context": c})
			return b
		}
	}
	return json.RawMessage(`{"action":"continue"}`)
}

func respond(id, result, rpcErr json.RawMessage) {
	m := map[string]any{"jsonrpc": "2.0", "id": id}
	if rpcErr != nil {
		m["error"] = rpcErr
	} else {
		m["result"] = result
	}
	b, _ := json.Marshal(m)
	writeLine(b)
}

func writeLine(b []byte) {
	outMu.Lock()
	defer outMu.Unlock()
	out.Write(b)
	out.WriteByte('\n')
	out.Flush()
}

func appendTo(path, s string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer f.Close()
	f.WriteString(s)
}

func countLines(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "\n")
}
