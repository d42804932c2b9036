package agent

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Errors inside a stream. A server that has answered 200 OK and begun an
// SSE stream reports a later failure as an event of the stream, in one of
// these shapes (the first, second, fourth and fifth replayed from testdata/sse):
//
//	data: {"error":{"message":"…","type":"…","code":"…"}}          OpenAI, vLLM, Groq, SGLang
//	data: {"error":{"code":502,"message":"…"},"choices":[{…,"finish_reason":"error"}]}  OpenRouter
//	data: {"error":"…"}                                             some proxies (a bare string)
//	data: {"object":"error","message":"…","type":"BadRequestError","code":400}  older vLLM
//	data: {…,"choices":[{…,"finish_reason":"error"}]}               Mistral, LiteLLM: no message
//
// Each ends the request with an *APIError whose InStream is set, carrying
// the server's message, type and code; a numeric code of 400-599 is its
// Status, so a 4xx-class error is not retried (see APIError.Retryable) and
// one about the context window reaches IsContextOverflow.

// inStreamError returns the error an error event's data reports: the
// object under "error", or the event itself for vLLM's older shape.
// fallback is the message when the event names none.
func inStreamError(data []byte, fallback string) *APIError {
	var ev struct {
		Error json.RawMessage `json:"error"`
	}
	e := &APIError{InStream: true}
	if json.Unmarshal(data, &ev) == nil && len(ev.Error) > 0 && string(ev.Error) != "null" {
		if json.Unmarshal(ev.Error, &e.Message) != nil {
			e.fill(ev.Error)
		}
	} else {
		e.fill(data)
	}
	if e.Message == "" {
		e.Message = fallback
	}
	return e
}

// fill reads an error object: message, type, and code as a string or
// a number (a number of 400-599 is also the status).
func (e *APIError) fill(obj []byte) {
	var body struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Status  json.RawMessage `json:"status"`
	}
	if json.Unmarshal(obj, &body) != nil {
		return
	}
	e.Message, e.Type = body.Message, body.Type
	for _, raw := range []json.RawMessage{body.Code, body.Status} {
		var text string
		if json.Unmarshal(raw, &text) == nil {
			if e.Code == "" {
				e.Code = text
			}
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil && n >= 400 && n <= 599 && e.Status == 0 {
			e.Status = n
		}
	}
}
