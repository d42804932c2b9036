// Command floor is the floor client of tackle's side-by-side benchmark
// (BenchmarkSideBySide): the least a program can do for the piped
// one-tool-call task — two streamed chat completions over raw net/http
// and one `bash -c` — with no framework, no hooks and no UI. It is what
// tackle's own overhead is measured against; it is not a product.
//
//	OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 floor "prompt"
//
// `floor --version` prints a version and exits, the startup floor.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
)

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type chunk struct {
	Choices []struct {
		Delta struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
	} `json:"choices"`
}

var bashTool = json.RawMessage(`[{"type":"function","function":{"name":"bash","description":"Run a command","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}}]`)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println("floor 1")
		return
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor PROMPT")
		os.Exit(2)
	}
	msgs := []message{{Role: "user", Content: os.Args[1]}}
	for range 8 {
		reply, err := complete(msgs)
		if err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		msgs = append(msgs, reply)
		if len(reply.ToolCalls) == 0 {
			fmt.Println()
			return
		}
		for _, tc := range reply.ToolCalls {
			var args struct{ Command string }
			json.Unmarshal([]byte(tc.Function.Arguments), &args)
			out, _ := exec.Command("bash", "-c", args.Command).CombinedOutput()
			msgs = append(msgs, message{Role: "tool", ToolCallID: tc.ID, Content: string(out)})
		}
	}
}

// complete streams one chat completion and assembles the reply.
func complete(msgs []message) (message, error) {
	body, _ := json.Marshal(map[string]any{"model": "floor", "stream": true, "messages": msgs, "tools": bashTool})
	req, err := http.NewRequest(http.MethodPost, os.Getenv("OPENAI_BASE_URL")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return message{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+os.Getenv("OPENAI_API_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return message{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return message{}, fmt.Errorf("status %s", resp.Status)
	}
	reply := message{Role: "assistant"}
	var text strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			break
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return message{}, err
		}
		for _, ch := range c.Choices {
			// Text is shown as it arrives, as a streaming client does.
			if ch.Delta.Content != "" {
				os.Stdout.WriteString(ch.Delta.Content)
			}
			text.WriteString(ch.Delta.Content)
			for _, d := range ch.Delta.ToolCalls {
				for len(reply.ToolCalls) <= d.Index {
					reply.ToolCalls = append(reply.ToolCalls, toolCall{Type: "function"})
				}
				tc := &reply.ToolCalls[d.Index]
				tc.ID += d.ID
				tc.Function.Name += d.Function.Name
				tc.Function.Arguments += d.Function.Arguments
			}
		}
	}
	reply.Content = text.String()
	return reply, sc.Err()
}
