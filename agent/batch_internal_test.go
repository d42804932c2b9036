package agent

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools/chat"
)

// holdTools has one tool, "hold", whose calls run until the test releases
// them one by one. It records the order calls start in and the most that
// ran at once.
type holdTools struct {
	mu       sync.Mutex
	started  []string
	running  int
	most     int
	releases map[string]chan struct{}
}

func (h *holdTools) Specs() []chat.ToolSpec {
	return []chat.ToolSpec{{Name: "hold", Parameters: json.RawMessage(`{"type":"object"}`)}}
}

func (h *holdTools) Run(ctx context.Context, call chat.ToolCall) (chat.ToolResult, error) {
	h.mu.Lock()
	h.started = append(h.started, call.ID)
	h.running++
	h.most = max(h.most, h.running)
	release := h.releases[call.ID]
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.running--
		h.mu.Unlock()
	}()
	select {
	case <-release:
		return chat.ToolResult{Status: chat.StatusOK, Content: "done " + call.ID}, nil
	case <-ctx.Done():
		return chat.ToolResult{Status: chat.StatusError, Content: "cancelled"}, nil
	}
}

// startedSoFar lists the calls started so far, sorted: calls that start
// together run on goroutines of their own, in no fixed order.
func (h *holdTools) startedSoFar() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Sorted(slices.Values(h.started))
}

func TestParallelToolCallsQueueBeyondTheCapInCallOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ids := []string{"c0", "c1", "c2", "c3", "c4"}
		tools := &holdTools{releases: map[string]chan struct{}{}}
		for _, id := range ids {
			tools.releases[id] = make(chan struct{})
		}
		var mu sync.Mutex
		var started, finished []string
		w := New(Config{Tools: tools, MaxParallel: 2, OnEvent: func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			switch e := e.(type) {
			case ToolCallStarted:
				started = append(started, e.Call.ID)
			case ToolCallFinished:
				finished = append(finished, e.Result.CallID)
			}
		}})
		w.run = &runState{hooks: hooks.NewRegistry(), budget: hooks.NewRetryBudget(0)}
		var batch []*callState
		for _, id := range ids {
			call := chat.ToolCall{ID: id, Name: "hold", Arguments: "{}"}
			batch = append(batch, &callState{orig: call, call: call, step: callRun})
		}
		ended := make(chan bool)
		go func() {
			done, _, _ := w.runBatch(t.Context(), batch)
			ended <- done
		}()

		expect := func(want ...string) {
			t.Helper()
			synctest.Wait()
			if got := tools.startedSoFar(); !slices.Equal(got, want) {
				t.Fatalf("started %v, want %v", got, want)
			}
		}
		expect("c0", "c1")
		close(tools.releases["c1"]) // a later call finishing frees a slot too
		expect("c0", "c1", "c2")
		close(tools.releases["c0"])
		expect("c0", "c1", "c2", "c3")
		close(tools.releases["c3"])
		close(tools.releases["c2"])
		expect("c0", "c1", "c2", "c3", "c4")
		close(tools.releases["c4"])
		if done := <-ended; done {
			t.Fatal("the batch ended the run")
		}
		if tools.most != 2 {
			t.Errorf("%d calls ran at once, want at most 2", tools.most)
		}
		if !slices.Equal(started, ids) || !slices.Equal(finished, ids) {
			t.Errorf("tool_call_started order = %v, tool_call_finished order = %v, want %v for both", started, finished, ids)
		}
		var results []string
		for _, m := range w.Messages() {
			results = append(results, m.ToolCallID+"="+m.Content)
		}
		if want := []string{"c0=done c0", "c1=done c1", "c2=done c2", "c3=done c3", "c4=done c4"}; !slices.Equal(results, want) {
			t.Errorf("results = %v", results)
		}
	})
}

func TestQueuedCallsOfACancelledBatchNeverStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tools := &holdTools{releases: map[string]chan struct{}{"c0": make(chan struct{}), "c1": make(chan struct{})}}
		var mu sync.Mutex
		var events []string
		w := New(Config{Tools: tools, MaxParallel: 1, OnEvent: func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			switch e := e.(type) {
			case ToolCallStarted:
				events = append(events, "started "+e.Call.ID)
			case ToolCallFinished:
				events = append(events, "finished "+e.Call.ID+": "+e.Result.Content)
			}
		}})
		w.run = &runState{hooks: hooks.NewRegistry(), budget: hooks.NewRetryBudget(0)}
		var batch []*callState
		for _, id := range []string{"c0", "c1"} {
			call := chat.ToolCall{ID: id, Name: "hold", Arguments: "{}"}
			batch = append(batch, &callState{orig: call, call: call, step: callRun})
		}
		ctx, cancel := context.WithCancel(t.Context())
		ended := make(chan error)
		go func() {
			_, _, err := w.runBatch(ctx, batch)
			ended <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-ended; err == nil {
			t.Fatal("the cancelled batch did not end the run with an error")
		}
		want := []string{
			"started c0",
			"finished c0: cancelled",
			"finished c1: The run was stopped before this call started: context canceled",
		}
		if !slices.Equal(events, want) {
			t.Errorf("events = %q, want %q", events, want)
		}
		if got := tools.startedSoFar(); !slices.Equal(got, []string{"c0"}) {
			t.Errorf("started %v", got)
		}
	})
}
