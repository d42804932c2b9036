package agent

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"runtime"
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
		whole := b.Bytes()
		if got, want := decoded(t, whole, false), wholeBody(t, req); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: body\n%s\nwant the same as openai-go's\n%v", step, whole, want)
		}
		// What is sent: the same bytes, from the start at each read.
		for range 2 {
			if sent, err := io.ReadAll(b.Reader()); err != nil || string(sent) != string(whole) || len(sent) != b.size {
				t.Errorf("%s: the reader gives %d bytes (%v), the body is %d (size %d)", step, len(sent), err, len(whole), b.size)
			}
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
	if got, want := decoded(t, b.Bytes(), false), wholeBody(t, req); !reflect.DeepEqual(got, want) {
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
	if got, want := decoded(t, b.Bytes(), false), wholeBody(t, bad); !reflect.DeepEqual(got, want) {
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
			if err := json.Unmarshal(body.Bytes(), &got); err != nil || len(got.Messages) != len(req.Messages) {
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
				b.SetBytes(int64(body.size))
			}
		})
		// The first body of a continued session: every message encoded.
		b.Run(fmt.Sprintf("first/turns=%d", turns), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var c requestBodies
				body, err := c.body(req)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(body.size))
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

// openAIGoEncoding is m's encoding by openai-go's own MarshalJSON.
func openAIGoEncoding(t testing.TB, m chat.Message) []byte {
	t.Helper()
	p, err := messageParam(m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPlainMessagesAsOpenAIGoEncodesThem: the messages written directly
// are byte for byte openai-go's encoding, with every character class its
// encoder escapes (at every offset of the eight-byte steps); the shapes
// it cannot write (Extra, images, a tool result without an ID) are left
// to openai-go.
func TestPlainMessagesAsOpenAIGoEncodesThem(t *testing.T) {
	tricky := "plain <b>&amp;</b> \"q\" \\ \b\f\n\r\t \x00\x01\x1f\x7f é 世 \u2028\u2029 \xff\xc3 \U0001F600 end"
	calls := []chat.ToolCall{{ID: "c1", Name: "bash", Arguments: `{"command": "echo \"<hi>\"\n"}`}, {ID: tricky, Name: tricky, Arguments: "not json"}, {ID: "c3", Name: "x", Arguments: " [1] "}}
	plain := []chat.Message{
		{Role: chat.RoleSystem, Content: tricky},
		{Role: chat.RoleSystem},
		{Role: chat.RoleUser, Content: tricky},
		{Role: chat.RoleUser},
		{Role: chat.RoleTool, Content: tricky, ToolCallID: tricky},
		{Role: chat.RoleTool, ToolCallID: "call_1"},
		{Role: chat.RoleAssistant, Content: tricky},
		{Role: chat.RoleAssistant},
		{Role: chat.RoleAssistant, ToolCalls: calls},
		{Role: chat.RoleAssistant, Content: tricky, ToolCalls: calls},
		// The reasoning is never sent back; Extra only with tool calls.
		{Role: chat.RoleAssistant, Content: "answer", Reasoning: "why", Extra: map[string]json.RawMessage{"reasoning_content": json.RawMessage(`"r"`)}},
	}
	// Each special character at each offset of a word, among plain text.
	for _, c := range []string{"\"", "\\", "\x00", "\x1f", "\x7f", "\x80", "é", "\u2028", "\xff", " "} {
		for off := range 9 {
			plain = append(plain, chat.Message{Role: chat.RoleUser, Content: strings.Repeat("a", off) + c + strings.Repeat("b", 17)})
		}
	}
	for i, m := range plain {
		got, ok := appendPlainMessage(nil, &m)
		if !ok {
			t.Errorf("message %d (%s) not written directly", i, m.Role)
			continue
		}
		if want := openAIGoEncoding(t, m); string(got) != string(want) {
			t.Errorf("message %d:\n got %s\nwant %s", i, got, want)
		}
		if enc, err := encodeMessage(m); err != nil || string(enc) != string(got) {
			t.Errorf("message %d: encodeMessage = %s, %v", i, enc, err)
		}
	}
	extra := map[string]json.RawMessage{"reasoning_content": json.RawMessage(`"r"`)}
	for i, m := range []chat.Message{
		{Role: chat.RoleAssistant, Content: "t", ToolCalls: calls[:1], Extra: extra},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c", Name: "n", Arguments: "{}", Extra: extra}}},
		{Role: chat.RoleUser, Content: "look", Images: []chat.Image{{MIMEType: "image/png", Data: []byte{1, 2}}}},
		{Role: chat.RoleTool, Content: "no id"},
		{Role: "robot", Content: "x"},
	} {
		if b, ok := appendPlainMessage(nil, &m); ok {
			t.Errorf("message %d of another shape written directly: %s", i, b)
		}
	}
}

// FuzzPlainMessage compares the messages written directly with
// openai-go's encoding of them, for any strings.
func FuzzPlainMessage(f *testing.F) {
	f.Add(uint8(0), "hello", "call_1", "bash", `{"a":1}`)
	f.Add(uint8(3), "<&>\u2028\xff\x00\"\\", "\t", "", "[]")
	f.Add(uint8(4), "", "", "x", "not json")
	f.Add(uint8(1), "0123456789abcdef\"0123456\x7f89abcdef\x1f", "", "", "")
	roles := []chat.Role{chat.RoleSystem, chat.RoleUser, chat.RoleTool, chat.RoleAssistant, chat.RoleAssistant}
	f.Fuzz(func(t *testing.T, role uint8, content, id, name, args string) {
		m := chat.Message{Role: roles[int(role)%len(roles)], Content: content}
		switch int(role) % len(roles) {
		case 2:
			m.ToolCallID = id
		case 4:
			m.ToolCalls = []chat.ToolCall{{ID: id, Name: name, Arguments: args}, {ID: name, Name: id, Arguments: content}}
		}
		got, ok := appendPlainMessage(nil, &m)
		if !ok {
			if m.Role == chat.RoleTool && id == "" {
				return
			}
			t.Fatalf("%+v not written directly", m)
		}
		if want := openAIGoEncoding(t, m); string(got) != string(want) {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
}

// TestSameMessageComparesEveryField: two messages that differ in any one
// field of chat.Message (or of a call or an image in it) are not the same
// message; a field that sameMessage does not know fails the test.
func TestSameMessageComparesEveryField(t *testing.T) {
	base := func() chat.Message {
		return chat.Message{Role: chat.RoleAssistant, Content: "c", ToolCallID: "id", Reasoning: "r",
			ToolCalls: []chat.ToolCall{{ID: "c1", Name: "bash", Arguments: "{}", Extra: map[string]json.RawMessage{"k": json.RawMessage(`1`)}}},
			Extra:     map[string]json.RawMessage{"k": json.RawMessage(`1`)},
			Images:    []chat.Image{{MIMEType: "image/png", Data: []byte{1}}}}
	}
	change := map[string]func(m *chat.Message){
		"Message.Role":       func(m *chat.Message) { m.Role = chat.RoleUser },
		"Message.Content":    func(m *chat.Message) { m.Content = "d" },
		"Message.ToolCalls":  func(m *chat.Message) { m.ToolCalls = append(m.ToolCalls, m.ToolCalls[0]) },
		"Message.ToolCallID": func(m *chat.Message) { m.ToolCallID = "other" },
		"Message.Reasoning":  func(m *chat.Message) { m.Reasoning = "other" },
		"Message.Extra":      func(m *chat.Message) { m.Extra = map[string]json.RawMessage{"k": json.RawMessage(`2`)} },
		"Message.Images":     func(m *chat.Message) { m.Images = nil },
		"ToolCall.ID":        func(m *chat.Message) { m.ToolCalls[0].ID = "c2" },
		"ToolCall.Name":      func(m *chat.Message) { m.ToolCalls[0].Name = "grep" },
		"ToolCall.Arguments": func(m *chat.Message) { m.ToolCalls[0].Arguments = `{"a":1}` },
		"ToolCall.Extra":     func(m *chat.Message) { m.ToolCalls[0].Extra = nil },
		"Image.MIMEType":     func(m *chat.Message) { m.Images[0].MIMEType = "image/jpeg" },
		"Image.Data":         func(m *chat.Message) { m.Images[0].Data = []byte{2} },
		"Image.Path":         func(m *chat.Message) { m.Images[0].Path = "/w/b.png" },
		"Image.SHA256":       func(m *chat.Message) { m.Images[0].SHA256 = "ab" },
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[chat.Message](), reflect.TypeFor[chat.ToolCall](), reflect.TypeFor[chat.Image]()} {
		for f := range typ.Fields() {
			name := typ.Name() + "." + f.Name
			ch, ok := change[name]
			if !ok {
				t.Errorf("%s is not compared by sameMessage: compare it there and change it here", name)
				continue
			}
			a, b := base(), base()
			if !sameMessage(&a, &b) {
				t.Fatalf("two copies of a message are not the same")
			}
			ch(&b)
			if sameMessage(&a, &b) || sameMessage(&b, &a) {
				t.Errorf("messages that differ in %s are the same", name)
			}
		}
	}
}

// TestRequestBodiesFollowEveryParameter: a request that differs from the
// one before in any one field of Request (or of a tool in it) gets the
// body openai-go makes of it, not the last one's parameters; a field the
// cache does not know fails the test.
func TestRequestBodiesFollowEveryParameter(t *testing.T) {
	change := map[string]func(r *Request){
		"Request.Model":           func(r *Request) { r.Model = "other" },
		"Request.Messages":        func(r *Request) { r.Messages = append(r.Messages, chat.UserMessage("more")) },
		"Request.Tools":           func(r *Request) { r.Tools = r.Tools[:1] },
		"Request.ReasoningEffort": func(r *Request) { r.ReasoningEffort = "high" },
		"ToolSpec.Name":           func(r *Request) { r.Tools[1].Name = "grep" },
		"ToolSpec.Description":    func(r *Request) { r.Tools[1].Description = "Search" },
		"ToolSpec.Parameters":     func(r *Request) { r.Tools[1].Parameters[2] = 'T' }, // in place
	}
	base := func() Request {
		req := bodyRequest(1)
		req.Tools = append(req.Tools, chat.ToolSpec{Name: "read", Description: "Read", Parameters: json.RawMessage(`{"type":"object"}`)})
		return req
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[Request](), reflect.TypeFor[chat.ToolSpec]()} {
		for f := range typ.Fields() {
			name := typ.Name() + "." + f.Name
			ch, ok := change[name]
			if !ok {
				t.Errorf("%s is not compared by the body's cache: compare it in sameParams and change it here", name)
				continue
			}
			var c requestBodies
			req := base()
			first, err := c.body(req)
			if err != nil {
				t.Fatal(err)
			}
			ch(&req)
			b, err := c.body(req)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := decoded(t, b.Bytes(), false), wholeBody(t, req); !reflect.DeepEqual(got, want) {
				t.Errorf("after a change of %s: body\n%s\nwant openai-go's\n%v", name, b.Bytes(), want)
			}
			if string(b.Bytes()) == string(first.Bytes()) {
				t.Errorf("a change of %s did not change the body", name)
			}
		}
	}
}

// TestRequestBodyOfALongConversationCopiesNothing: once a conversation's
// messages are encoded, the next request's body costs what its list of
// pieces costs, not a copy of the conversation (issue 27: the time per
// turn stays flat as a session grows). Counted in bytes allocated, the
// same on any machine.
func TestRequestBodyOfALongConversationCopiesNothing(t *testing.T) {
	req := bodyRequest(1000) // 4,001 messages
	out := strings.Repeat("func handler(w http.ResponseWriter, r *http.Request) {}\n", 40)
	for i := range req.Messages {
		if req.Messages[i].Role == chat.RoleTool {
			req.Messages[i].Content = out
		}
	}
	var c requestBodies
	first, err := c.body(req)
	if err != nil {
		t.Fatal(err)
	}
	next := req
	next.Messages = append(req.Messages[:len(req.Messages):len(req.Messages)], chat.UserMessage("next"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 5
	for range n {
		if _, err := c.body(next); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	perBody := (after.TotalAlloc - before.TotalAlloc) / n
	// The pieces: a slice header per message and comma, 190 KB here.
	if limit := uint64(first.size) / 20; perBody > limit {
		t.Errorf("a body of a %d-byte conversation allocates %d bytes, more than %d: the conversation is copied again", first.size, perBody, limit)
	}
}
