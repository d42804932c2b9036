package agent

import (
	"errors"
	"strings"
)

// overflowCodes are the error codes and types servers give a request that
// does not fit the model's context window: OpenAI's (and Groq's,
// DeepSeek's, Azure's) code, llama.cpp's type.
var overflowCodes = []string{"context_length_exceeded", "exceed_context_size_error"}

// overflowPhrases are how servers word it, lower-cased:
//
//	OpenAI, vLLM, OpenRouter, Mistral  "This model's maximum context length is 8192 tokens. However, …"
//	llama.cpp                          "the request exceeds the available context size, try increasing it"
//	                                   "Context size has been exceeded." (a 500)
//	Ollama                             "the input length exceeds the context length"
//	LM Studio                          "… is greater than the context length …"
//	Gemini (OpenAI-compatible)         "The input token count (N) exceeds the maximum number of tokens allowed (M)"
//	Anthropic-compatible proxies       "prompt is too long: N tokens > M maximum"
var overflowPhrases = []string{
	"maximum context length",
	"context length exceeded",
	"context_length_exceeded",
	"exceeds the available context size",
	"context size has been exceeded",
	"exceeds the context length",
	"exceeds the context window",
	"greater than the context length",
	"exceeds the maximum number of tokens",
	"prompt is too long",
}

// IsContextOverflow reports whether err is a server's answer that the
// request does not fit the model's context window, in any of the ways
// the servers tackle talks to say it: an HTTP error whose code, type or
// message says so, or an error event in the stream that does.
func IsContextOverflow(err error) bool {
	if err == nil {
		return false
	}
	if apiErr, ok := errors.AsType[*APIError](err); ok {
		for _, c := range overflowCodes {
			if strings.EqualFold(apiErr.Code, c) || strings.EqualFold(apiErr.Type, c) {
				return true
			}
		}
		return overflowText(apiErr.Message)
	}
	return overflowText(err.Error())
}

func overflowText(s string) bool {
	s = strings.ToLower(s)
	for _, p := range overflowPhrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
