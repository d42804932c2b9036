package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// BenchmarkLongSession is what a long session costs the built binary: a
// session of 150 turns and 10,351 records (13 read_file calls a turn with
// 2.2 KB results, their hook decisions and usage: 4.5 MB) continued with
// -c, against a new session, both with tackle --yes -p.
//
//   - first-request-ms: from the start of the process to the first model
//     request reaching the server: with -c it loads the session, rebuilds
//     the conversation and sends all of it (the request body encodes
//     every message once);
//   - turn-ms: tackle's own time per turn of a run of 10 tool-call turns
//     (read_file), measured at the server from the end of one response to
//     the arrival of the next request (the reply read and recorded, the
//     hooks, the tool, the next body built and sent): on top of the 150
//     earlier turns it must stay what it is in a new session.
//
// The server is a minimal one (turnServer): it reads each request's body
// and answers at once, so that its own time (the scripted server decodes
// every 4 MB body) is not in tackle's.
//
//	go test -run '^$' -bench LongSession -benchtime 1x ./app/e2e
//
// Set TACKLE_BENCH_RUNS to change the number of runs (default 7).
func BenchmarkLongSession(b *testing.B) {
	runs := 7
	if n, err := fmt.Sscan(os.Getenv("TACKLE_BENCH_RUNS"), &runs); n != 1 || err != nil {
		runs = 7
	}
	srv := newTurnServer(b)
	dir := benchDir(b)
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	state := filepath.Join(home, "state")
	for _, d := range []string{home, ws} {
		if err := os.Mkdir(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(ws)
	if err != nil {
		b.Fatal(err)
	}
	path, records := writeLongSession(b, filepath.Join(state, "tackle", "sessions"), root, 150, 13)
	pristine, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(records), "session-records")
	b.ReportMetric(float64(len(pristine))/(1<<20), "session-MiB")

	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_STATE_HOME=" + state,
		"OPENAI_BASE_URL=" + srv.url, "OPENAI_API_KEY=sk-bench", "TACKLE_MODEL=bench"}
	// run runs tackle on a turns-call task, continuing the long session
	// (restored first) when cont, and returns the server's times.
	run := func(cont bool, turns int) []served {
		if cont {
			if err := os.WriteFile(path, pristine, 0o600); err != nil {
				b.Fatal(err)
			}
		}
		args := []string{"--yes", "-p", "read a.txt again"}
		if cont {
			args = append([]string{"-c"}, args...)
		}
		srv.start(turns)
		cmd := exec.Command(tackleBin, args...)
		cmd.Dir, cmd.Env = ws, env
		begin := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Read it.") {
			b.Fatalf("tackle %v: %v\n%s", args, err, out)
		}
		got := srv.take()
		for i := range got {
			got[i].arrived -= begin.Sub(srv.epoch)
			got[i].answered -= begin.Sub(srv.epoch)
		}
		return got
	}
	for range b.N {
		var first [2][]time.Duration // [new, continued]
		var gaps [2][]time.Duration
		for i := range runs + 1 {
			for c, cont := range []bool{false, true} {
				reqs := run(cont, 10)
				if i == 0 {
					continue // warms the page cache and the window's cache up
				}
				if len(reqs) != 11 {
					b.Fatalf("%d requests, want 11", len(reqs))
				}
				first[c] = append(first[c], reqs[0].arrived)
				// From the second turn on: the first is the resumed
				// conversation's first body.
				for j := 2; j < len(reqs); j++ {
					gaps[c] = append(gaps[c], reqs[j].arrived-reqs[j-1].answered)
				}
			}
		}
		b.ReportMetric(ms(medianDuration(first[0])), "new-first-request-ms")
		b.ReportMetric(ms(medianDuration(first[1])), "resume-first-request-ms")
		b.ReportMetric(ms(medianDuration(gaps[0])), "new-turn-ms")
		b.ReportMetric(ms(medianDuration(gaps[1])), "turn-after-150-ms")
	}
}

func medianDuration(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

// writeLongSession writes a session of workspace root into the store dir:
// the system prompt, then turns turns of calls read_file calls each (the
// prompt; per call the reply, two hook decisions, the 2.2 KB result and
// the usage; the answer, its usage and the outcome). It returns the file
// and its number of records.
func writeLongSession(b *testing.B, dir, root string, turns, calls int) (string, int) {
	b.Helper()
	w, err := session.Open(dir).Create(session.Header{Workspace: root, Model: "bench", Started: time.Now().Add(-time.Hour)})
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	add := func(r session.Record) {
		n++
		if err := w.Append(r); err != nil {
			b.Fatal(err)
		}
	}
	msg := func(m chat.Message, prompt bool) {
		add(session.Record{Kind: session.KindMessage, Message: &m, Prompt: prompt})
	}
	usage := &chat.Usage{PromptTokens: 12000, CompletionTokens: 300, TotalTokens: 12300}
	result := strings.Repeat("func handler(w http.ResponseWriter, r *http.Request) {}\n", 40)
	msg(chat.Message{Role: chat.RoleSystem, Content: "You are tackle, a coding assistant."}, false)
	for t := range turns {
		msg(chat.UserMessage(fmt.Sprintf("step %d: make the handler return 404 for unknown paths", t)), true)
		for c := range calls {
			id := fmt.Sprintf("call_%d_%d", t, c)
			msg(chat.Message{Role: chat.RoleAssistant, Content: "Reading the handler.",
				ToolCalls: []chat.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path": "server/handler.go"}`}}}, false)
			for _, d := range []hooks.Decision{
				{Event: hooks.PreToolCall, Hook: "approval", Result: "continue", CallID: id, Duration: 3 * time.Microsecond},
				{Event: hooks.PostToolCall, Hook: "redact-secrets", Result: "continue", CallID: id, Duration: 9 * time.Microsecond},
			} {
				add(session.Record{Kind: session.KindDecision, Decision: &d})
			}
			msg(chat.Message{Role: chat.RoleTool, ToolCallID: id, Content: result}, false)
			add(session.Record{Kind: session.KindUsage, Usage: usage})
		}
		msg(chat.Message{Role: chat.RoleAssistant, Content: "The handler now returns 404 for unknown paths."}, false)
		add(session.Record{Kind: session.KindUsage, Usage: usage})
		add(session.Record{Kind: session.KindOutcome, Outcome: &session.Outcome{Status: "finished"}})
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return w.Path(), n
}

// turnServer is the least an OpenAI-compatible server does: it reads a
// request's body and streams its answer at once (a read_file call for
// the first turns of a run, then "Read it."), noting when each request
// arrived and when its answer was written. Its other routes are not found,
// as on OpenAI's API.
type turnServer struct {
	url   string
	epoch time.Time

	mu    sync.Mutex
	calls int // read_file calls left in this run
	log   []served
}

// served is one request: when it arrived (its headers read) and when its
// answer was written, since the server's epoch.
type served struct {
	arrived, answered time.Duration
}

func newTurnServer(b *testing.B) *turnServer {
	s := &turnServer{epoch: time.Now()}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.complete)
	mux.HandleFunc("/", http.NotFound)
	hs := &http.Server{Handler: mux}
	go hs.Serve(ln)
	b.Cleanup(func() { hs.Close() })
	s.url = "http://" + ln.Addr().String() + "/v1"
	return s
}

// start begins a run of calls tool-call turns.
func (s *turnServer) start(calls int) {
	s.mu.Lock()
	s.calls, s.log = calls, nil
	s.mu.Unlock()
}

// take returns the requests of the run.
func (s *turnServer) take() []served {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log
}

func (s *turnServer) complete(w http.ResponseWriter, r *http.Request) {
	arrived := time.Since(s.epoch)
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		return
	}
	s.mu.Lock()
	call := s.calls > 0
	s.calls--
	n := len(s.log)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "bench",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	if call {
		chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_new_%d", n),
			"type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path": "a.txt"}`}}}}, nil)
		chunk(map[string]any{}, "tool_calls")
	} else {
		chunk(map[string]any{"role": "assistant", "content": "Read it."}, nil)
		chunk(map[string]any{}, "stop")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	s.mu.Lock()
	s.log = append(s.log, served{arrived: arrived, answered: time.Since(s.epoch)})
	s.mu.Unlock()
}
