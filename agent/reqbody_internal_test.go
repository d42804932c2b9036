package agent

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/tackle-dev/tackle/tools/chat"
)

// wholeBody is the body openai-go itself makes of req (every message
// encoded on the spot), with the stream flag NewStreaming adds.
func wholeBody(t *testing.T, req Request) map[string]any {
	t.Helper()
	p, err := otherParams(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range req.Messages {
		mp, err := messageParam(m)
		if err != nil {
			t.Fatal(err)
		}
		p.Messages = append(p.Messages, mp)
	}
	return decoded(t, must(json.Marshal(p)), true)
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func decoded(t *testing.T, b []byte, stream bool) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, b)
	}
	if stream {
		v["stream"] = true
	}
	return v
}

func bodyRequest(turns int) Request {
	conv := []chat.Message{{Role: chat.RoleSystem, Content: "system"}}
	for i := range turns {
		id := fmt.Sprintf("call_%d", i)
		conv = append(conv, chat.UserMessage(fmt.Sprintf("prompt %d \u2028 <&>", i)),
			chat.Message{Role: chat.RoleAssistant, Content: "on it", ToolCalls: []chat.ToolCall{{ID: id, Name: "bash", Arguments: `{"command":"ls"}`}}},
			chat.ToolResult{CallID: id, Status: chat.StatusOK, Content: "out\n\"quoted\""}.Message(),
			chat.Message{Role: chat.RoleAssistant, Content: "done"})
	}
	return Request{Model: "m", Messages: conv, Tools: []chat.ToolSpec{{Name: "bash", Description: "Run", Parameters: json.RawMessage(`{"type":"object"}`)}}}
}

// TestRequestBodiesMatchOpenAIGo: the body built from cached encodings is
// the body openai-go makes, request after request, as the conversation
// grows, is compacted (a message in the middle changes, one is dropped)
// and has no tools.
func TestRequestBodiesMatchOpenAIGo(t *testing.T) {
	var c requestBodies
	req := bodyRequest(3)
	check := func(step string, req Request) {
		t.Helper()
		b, err := c.body(req)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := decoded(t, b, false), wholeBody(t, req); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: body\n%s\nwant the same as openai-go's\n%v", step, b, want)
		}
	}
	check("first", req)
	req.Messages = append(req.Messages, chat.UserMessage("one more"))
	check("grown", req)
	edited := bodyRequest(3)
	edited.Messages[3] = chat.ToolResult{CallID: "call_0", Status: chat.StatusOK, Content: "[pruned]"}.Message()
	edited.Messages = append(edited.Messages[:5], edited.Messages[6:]...)
	check("compacted", edited)
	edited.Messages[1].Content = "PROMPT 0 \u2028 <&>" // same length, other bytes
	check("same length", edited)
	edited.Tools = nil
	check("no tools", edited)
}

func TestRequestBodiesReportABadMessage(t *testing.T) {
	var c requestBodies
	req := bodyRequest(1)
	req.Messages = append(req.Messages, chat.Message{Role: "robot", Content: "x"})
	if _, err := c.body(req); err == nil {
		t.Fatal("a message with an unknown role was encoded")
	}
	// The cache keeps what was good and goes on.
	req.Messages[len(req.Messages)-1].Role = chat.RoleUser
	if _, err := c.body(req); err != nil {
		t.Fatal(err)
	}
}

// TestRequestBodiesOfALongConversation: the first body of a continued
// session encodes every message, shared out among the CPUs: it is
// openai-go's body; a bad message in the second half is named by its
// index, and the messages before it stay encoded.
func TestRequestBodiesOfALongConversation(t *testing.T) {
	var c requestBodies
	req := bodyRequest(200) // 801 messages
	b, err := c.body(req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := decoded(t, b, false), wholeBody(t, req); !reflect.DeepEqual(got, want) {
		t.Errorf("the body of %d messages is not openai-go's", len(req.Messages))
	}
	c = requestBodies{}
	bad := bodyRequest(200)
	bad.Messages[700].Role = "robot"
	if _, err := c.body(bad); err == nil || !strings.Contains(err.Error(), "message 700:") {
		t.Fatalf("error = %v, want one naming message 700", err)
	}
	if len(c.enc) != 700 || len(c.msgs) != 700 {
		t.Errorf("%d encodings kept, want the 700 before the bad message", len(c.enc))
	}
	bad.Messages[700].Role = chat.RoleUser
	b, err = c.body(bad)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := decoded(t, b, false), wholeBody(t, bad); !reflect.DeepEqual(got, want) {
		t.Error("the body after the repair is not openai-go's")
	}
}

// TestRequestBodiesConcurrent builds the bodies of two conversations at
// once through one cache (run with -race): each gets its own messages.
func TestRequestBodiesConcurrent(t *testing.T) {
	var c requestBodies
	a, b := bodyRequest(4), bodyRequest(2)
	b.Messages[0].Content = "other system"
	var wg sync.WaitGroup
	for _, req := range []Request{a, b, a, b, a, b} {
		wg.Go(func() {
			body, err := c.body(req)
			if err != nil {
				t.Error(err)
				return
			}
			var got struct {
				Messages []openai.ChatCompletionMessageParamUnion
			}
			if err := json.Unmarshal(body, &got); err != nil || len(got.Messages) != len(req.Messages) {
				t.Errorf("got %d messages (%v), want %d", len(got.Messages), err, len(req.Messages))
			}
			if sys := got.Messages[0].GetContent().AsAny(); fmt.Sprint(*sys.(*string)) != req.Messages[0].Content {
				t.Errorf("system %v, want %q", sys, req.Messages[0].Content)
			}
		})
	}
	wg.Wait()
}

// BenchmarkRequestBody is the encoding of one request's body after 10 and
// after 150 turns of 27 KB tool outputs (a 4 MB body), with each
// message encoded when first sent (cached) and, for comparison, with the
// whole conversation encoded by openai-go for every request (as before).
func BenchmarkRequestBody(b *testing.B) {
	for _, turns := range []int{10, 150} {
		req := bodyRequest(turns)
		out := strings.Repeat("output line of a long tool result\n", 27<<10/34)
		for i := range req.Messages {
			if req.Messages[i].Role == chat.RoleTool {
				req.Messages[i].Content = out
			}
		}
		b.Run(fmt.Sprintf("cached/turns=%d", turns), func(b *testing.B) {
			var c requestBodies
			if _, err := c.body(req); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				// A new prompt each time, as the next turn sends.
				r := req
				r.Messages = append(req.Messages[:len(req.Messages):len(req.Messages)], chat.UserMessage("next"))
				body, err := c.body(r)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(body)))
			}
		})
		b.Run(fmt.Sprintf("whole/turns=%d", turns), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, _ := otherParams(req)
				for _, m := range req.Messages {
					mp, _ := messageParam(m)
					p.Messages = append(p.Messages, mp)
				}
				body, err := json.Marshal(p)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(body)))
			}
		})
	}
}
