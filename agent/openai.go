package agent

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/tackle-dev/tackle/tools/chat"
)

// ErrStreamCut is wrapped by the error of a reply stream that ended before
// the model finished (no finish reason): the connection dropped, or the
// server closed the stream early. No part of such a reply is returned.
var ErrStreamCut = errors.New("model stream cut")

// APIError is an HTTP error answer of the model API. It unwraps to the
// openai-go error when there is one.
type APIError struct {
	Status  int
	Message string // the server's message, e.g. "Incorrect API key provided"
	Type    string // e.g. "invalid_request_error", when the server says
	Code    string // e.g. "invalid_api_key", when the server says
	// InStream is set for an error the server sent inside a stream it had
	// begun with 200 OK; Status is then the code it gave, if any.
	InStream bool

	header http.Header
	err    error
}

// Error returns e.g. "401 Unauthorized: Incorrect API key provided", or
// "model stream error: 400 Bad Request: …" for an error in the stream.
func (e *APIError) Error() string {
	var parts []string
	if e.InStream {
		parts = append(parts, "model stream error")
	}
	if e.Status != 0 {
		s := strconv.Itoa(e.Status)
		if text := http.StatusText(e.Status); text != "" {
			s += " " + text
		}
		parts = append(parts, s)
	}
	if e.Message != "" {
		parts = append(parts, e.Message)
	}
	return strings.Join(parts, ": ")
}

// Unwrap returns the openai-go error, if any.
func (e *APIError) Unwrap() error { return e.err }

// Retryable reports whether the request may succeed when sent again: the
// server says so in x-should-retry, or the status is 408, 429 or a 5xx
// that says the server is in trouble for now. 501 (Not Implemented: a
// server that does not know the API at all, such as a plain web server)
// and 505 answer the same every time. An error in a stream that gave no
// status is not retried.
func (e *APIError) Retryable() bool {
	switch e.header.Get("X-Should-Retry") {
	case "true":
		return true
	case "false":
		return false
	}
	switch e.Status {
	case http.StatusNotImplemented, http.StatusHTTPVersionNotSupported:
		return false
	}
	return e.Status == http.StatusRequestTimeout || e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// OpenAIConfig configures an OpenAI client. Only fields given here are
// used for the endpoint and the key; openai-go still reads OPENAI_ORG_ID,
// OPENAI_PROJECT_ID and OPENAI_CUSTOM_HEADERS from the environment, and
// OPENAI_BASE_URL when BaseURL is empty.
type OpenAIConfig struct {
	// APIKey is sent as a bearer token; when empty no Authorization header
	// is sent (local servers).
	APIKey string
	// BaseURL is the API root, e.g. http://localhost:11434/v1; empty means
	// https://api.openai.com/v1 (never the process's OPENAI_BASE_URL,
	// which openai-go would read behind the caller's back).
	BaseURL string
	// Organization and Project are sent as OpenAI-Organization and
	// OpenAI-Project when set; otherwise no such header is sent, whatever
	// the process environment says.
	Organization, Project string
	// Headers are sent with every request, e.g. a proxy's
	// (OPENAI_CUSTOM_HEADERS of the caller's environment; see
	// ParseCustomHeaders).
	Headers map[string]string
	// HTTPClient is used for all requests when set.
	HTTPClient *http.Client
	// MaxRetries is how many times a failed request is retried after the
	// first attempt: 0 means the default of 4, a negative number none.
	MaxRetries int
	// BaseDelay is the first backoff (default 500ms); each retry doubles
	// it. MaxDelay caps every wait, including one asked for by the server
	// in Retry-After (default 30s).
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// Sleep waits between attempts (default: a timer that returns ctx.Err()
	// when ctx is done first). Tests inject one so they never sleep.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0, 1) (default math/rand/v2.Float64).
	Jitter func() float64

	// FirstTokenTimeout bounds the wait for the first token of a reply,
	// from the start of an attempt: connecting, the TLS handshake, the
	// response headers and every chunk before the first token (default
	// DefaultFirstTokenTimeout). StreamIdleTimeout bounds the silence
	// between two chunks once a token has arrived (default
	// DefaultStreamIdleTimeout). An attempt that exceeds either ends with
	// a *StallError; it is retried only when no token had arrived.
	FirstTokenTimeout time.Duration
	StreamIdleTimeout time.Duration
	// Only progress counts as activity: text, reasoning, tool-call bytes,
	// a new call, the finish. A chunk that carries nothing (an empty
	// delta some servers send to keep a connection open) does not restart
	// StreamIdleTimeout.
	//
	// ReplyTimeout bounds a whole attempt, from the request to the end of
	// the reply, however steadily the server sends (default
	// DefaultReplyTimeout): no server can hold a run forever.
	ReplyTimeout time.Duration
	// AfterFunc starts the timer behind those bounds (default
	// time.AfterFunc). Tests inject one to fire a bound at will.
	AfterFunc func(d time.Duration, f func()) Timer
}

// DefaultBaseURL is OpenAI's API root.
const DefaultBaseURL = "https://api.openai.com/v1/"

// Defaults of the stream bounds.
const (
	DefaultFirstTokenTimeout = 120 * time.Second
	DefaultStreamIdleTimeout = 60 * time.Second
	DefaultReplyTimeout      = 30 * time.Minute
)

// Timer is a timer that calls a function when it fires, as made by
// time.AfterFunc.
type Timer interface {
	// Reset makes the timer fire after d from now.
	Reset(d time.Duration) bool
	// Stop keeps the timer from firing.
	Stop() bool
}

// StallError ends an attempt whose server went silent for longer than a
// bound: before the first token (FirstToken) or between two chunks that
// made progress; or whose reply took longer than ReplyTimeout in all
// (Whole).
type StallError struct {
	FirstToken bool
	Whole      bool
	// Silence is the bound that ran out.
	Silence time.Duration
	// Bytes is how much text and tool-call arguments had arrived.
	Bytes int
}

// Error says how long the server was silent and how to raise the bound.
func (e *StallError) Error() string {
	if e.Whole {
		return fmt.Sprintf("the model's reply took longer than %s in all (%d bytes arrived; raise the bound with --reply-timeout or reply_timeout in the config)", e.Silence, e.Bytes)
	}
	if e.FirstToken {
		return fmt.Sprintf("no reply from the model within %s (raise the bound with --first-token-timeout or first_token_timeout in the config)", e.Silence)
	}
	return fmt.Sprintf("model stream stalled: the server sent nothing for %s after %d bytes of reply (raise the bound with --stream-idle-timeout or stream_idle_timeout in the config)", e.Silence, e.Bytes)
}

// OpenAI is a Client for OpenAI-compatible Chat Completions APIs.
//
// A request that fails before any token of the reply arrived is retried
// when that may help: on 408, 429 and 5xx answers (not 501 and 505) and on
// connection errors (refused, reset, dropped before the reply began). 400,
// 401, 403, 404, 422 and the like are not retried, and neither is any failure after
// the first token, since the caller has already seen part of the reply.
// Waits grow exponentially from BaseDelay with equal jitter (half the
// delay fixed, half random), or follow the server's retry-after-ms or
// Retry-After header, and never exceed MaxDelay.
//
// No wait on the network is unbounded: an attempt gets FirstTokenTimeout
// for its first token (connect, TLS, headers and chunks included) and
// StreamIdleTimeout between chunks after that; the attempts and the
// waits between them are bounded in number and length.
type OpenAI struct {
	completions openai.ChatCompletionService
	baseURL     string // the API root requests go to
	maxRetries  int
	baseDelay   time.Duration
	maxDelay    time.Duration
	sleep       func(context.Context, time.Duration) error
	jitter      func() float64
	firstToken  time.Duration
	idle        time.Duration
	whole       time.Duration
	afterFunc   func(time.Duration, func()) Timer
	bodies      requestBodies
}

var _ Client = (*OpenAI)(nil)

// NewOpenAI returns a client for the configured API.
func NewOpenAI(cfg OpenAIConfig) *OpenAI {
	// The chat completions service alone, not openai.NewClient: the client
	// reads the process environment (OPENAI_BASE_URL, OPENAI_ORG_ID,
	// OPENAI_CUSTOM_HEADERS ...) behind the caller's back, and it links
	// every service of the API (responses, realtime, files ...) into the
	// binary, which tackle then maps in at every start.
	opts := []option.RequestOption{
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0), // retries are ours: only before the first token
		option.WithBaseURL(cmp.Or(cfg.BaseURL, DefaultBaseURL)),
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.Headers)) {
		opts = append(opts, option.WithHeader(k, cfg.Headers[k]))
	}
	if cfg.Organization != "" {
		opts = append(opts, option.WithOrganization(cfg.Organization))
	}
	if cfg.Project != "" {
		opts = append(opts, option.WithProject(cfg.Project))
	}
	firstToken := positiveOr(cfg.FirstTokenTimeout, DefaultFirstTokenTimeout)
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		httpClient = newHTTPClient(firstToken)
	}
	opts = append(opts, option.WithHTTPClient(httpClient))
	c := &OpenAI{
		completions: openai.NewChatCompletionService(opts...),
		baseURL:     cmp.Or(cfg.BaseURL, DefaultBaseURL),
		maxRetries:  cfg.MaxRetries,
		baseDelay:   positiveOr(cfg.BaseDelay, 500*time.Millisecond),
		maxDelay:    positiveOr(cfg.MaxDelay, 30*time.Second),
		sleep:       cfg.Sleep,
		jitter:      cfg.Jitter,
		firstToken:  firstToken,
		idle:        positiveOr(cfg.StreamIdleTimeout, DefaultStreamIdleTimeout),
		whole:       positiveOr(cfg.ReplyTimeout, DefaultReplyTimeout),
		afterFunc:   cfg.AfterFunc,
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = 4
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	if c.sleep == nil {
		c.sleep = sleep
	}
	if c.jitter == nil {
		c.jitter = rand.Float64
	}
	if c.afterFunc == nil {
		c.afterFunc = func(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
	}
	return c
}

// ParseCustomHeaders reads OPENAI_CUSTOM_HEADERS as openai-go does: one
// "Name: value" per line; lines without a colon are ignored.
func ParseCustomHeaders(s string) map[string]string {
	var h map[string]string
	for line := range strings.Lines(s) {
		name, value, ok := strings.Cut(line, ":")
		if name = strings.TrimSpace(name); !ok || name == "" {
			continue
		}
		if h == nil {
			h = make(map[string]string)
		}
		h[name] = strings.TrimSpace(value)
	}
	return h
}

// newHTTPClient returns the client for model requests: the default
// transport's proxy settings with bounds on dialling, the TLS handshake
// and the response headers. The watchdog of each attempt bounds all of
// it and the body; these are a second line, set a little wider so the
// watchdog's clearer error comes first.
func newHTTPClient(firstToken time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 10 * time.Second
	t.ResponseHeaderTimeout = firstToken + 10*time.Second
	return &http.Client{Transport: t}
}

func positiveOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Stream sends the request and streams the reply, emitting a TextDelta for
// each piece of text as it arrives and a ModelRetry before each wait for
// a retry. It returns the whole reply only when the model finished it.
func (c *OpenAI) Stream(ctx context.Context, req Request, emit func(Event)) (Reply, error) {
	if emit == nil {
		emit = func(Event) {}
	}
	body, err := c.bodies.body(req)
	if err != nil {
		return Reply{}, fmt.Errorf("model request: %w", err)
	}
	for attempt := 1; ; attempt++ {
		reply, replied, err := c.attempt(ctx, body, emit)
		if err == nil {
			return reply, nil
		}
		if ctx.Err() != nil {
			return Reply{}, fmt.Errorf("model request: %w", ctx.Err())
		}
		if replied || attempt > c.maxRetries || !retryable(err) {
			return Reply{}, c.failed(attempt, err)
		}
		wait := c.backoff(attempt, err)
		emit(ModelRetry{Attempt: attempt, Retries: c.maxRetries, Wait: wait, Err: shortReason(err)})
		if err := c.sleep(ctx, wait); err != nil {
			return Reply{}, fmt.Errorf("model request: %w", err)
		}
	}
}

// failed wraps the error that ended the last attempt, with what it
// usually means when the endpoint is the likely cause (see
// EndpointError).
func (c *OpenAI) failed(attempts int, err error) error {
	if e := c.endpointError(attempts, err); e != nil {
		return e
	}
	switch {
	case attempts > 1:
		return fmt.Errorf("model request failed after %d attempts: %w", attempts, err)
	case errors.Is(err, ErrStreamCut):
		return err
	}
	return fmt.Errorf("model request failed: %w", err)
}

// attempt sends the request once. replied reports whether any token of the
// reply arrived (text was emitted or a tool call began), after which a
// failure must not be retried.
func (c *OpenAI) attempt(ctx context.Context, body []byte, emit func(Event)) (_ Reply, replied bool, _ error) {
	wd := c.watch(ctx)
	defer wd.stop()

	var res *http.Response
	var errLines errorLines
	stream := c.completions.NewStreaming(wd.ctx, openai.ChatCompletionNewParams{},
		option.WithRequestBody("application/json", body), option.WithResponseInto(&res),
		option.WithMiddleware(errLines.watch))
	defer stream.Close()

	var a assembler
	for stream.Next() {
		a.chunks++
		a.moved = false
		a.add(stream.Current(), emit)
		if a.err != nil {
			break
		}
		if a.replied && a.moved {
			wd.progress(a.size)
		}
	}
	if a.err != nil {
		return Reply{}, a.replied, a.err
	}
	err := stream.Err()
	if a.finish != "" && ctx.Err() == nil {
		// The reply is whole; an error after the finish chunk (a dropped
		// connection, or silence, instead of [DONE]) costs only the usage
		// count.
		return a.reply(), true, nil
	}
	if stall, ok := wd.stalled(); ok {
		return Reply{}, a.replied, stall
	}
	if errLines.data != nil && ctx.Err() == nil {
		return Reply{}, a.replied, inStreamError(errLines.data, "the server sent an error line with no message")
	}
	if err == nil && a.chunks == 0 {
		if ns := errLines.notStream(res); ns != nil {
			return Reply{}, false, ns
		}
	}
	if err == nil {
		return Reply{}, a.replied, fmt.Errorf("%w after %d bytes of reply: stream ended without a finish reason", ErrStreamCut, a.size)
	}
	if apiErr := newAPIError(err, res); apiErr != nil {
		return Reply{}, false, apiErr
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		return Reply{}, a.replied, inStreamError(streamErr.Event.Data, streamErr.Message)
	}
	if res != nil && connectionError(err) {
		return Reply{}, a.replied, fmt.Errorf("%w after %d bytes of reply: %w", ErrStreamCut, a.size, err)
	}
	if res != nil {
		return Reply{}, a.replied, fmt.Errorf("read model stream: %w", err)
	}
	return Reply{}, false, err
}

// watchdog enforces the stream bounds of one attempt: it cancels the
// attempt's context with a *StallError when the first token, or progress
// after it, is late, or when the whole reply is.
type watchdog struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	idle   time.Duration
	timer  Timer // the first-token bound, then the idle bound
	whole  Timer // the bound of the whole attempt

	mu    sync.Mutex
	stall StallError // what timer reports when it fires
	size  int        // bytes of reply so far, for whole's report
}

// watch starts the watchdog of an attempt, with the first-token bound and
// the bound of the whole reply.
func (c *OpenAI) watch(ctx context.Context) *watchdog {
	wctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{ctx: wctx, cancel: cancel, idle: c.idle, stall: StallError{FirstToken: true, Silence: c.firstToken}}
	w.whole = c.afterFunc(c.whole, func() {
		w.mu.Lock()
		stall := StallError{Whole: true, Silence: c.whole, Bytes: w.size}
		w.mu.Unlock()
		w.cancel(&stall)
	})
	w.timer = c.afterFunc(c.firstToken, w.fire)
	return w
}

func (w *watchdog) fire() {
	w.mu.Lock()
	stall := w.stall
	w.mu.Unlock()
	w.cancel(&stall)
}

// progress restarts the idle bound after a chunk that carried something
// new, once a token has arrived; size is the bytes of reply so far.
func (w *watchdog) progress(size int) {
	w.mu.Lock()
	w.stall = StallError{Silence: w.idle, Bytes: size}
	w.size = size
	w.mu.Unlock()
	w.timer.Reset(w.idle)
}

// stalled returns the StallError when a bound ended the attempt.
func (w *watchdog) stalled() (*StallError, bool) {
	return errors.AsType[*StallError](context.Cause(w.ctx))
}

func (w *watchdog) stop() {
	w.timer.Stop()
	w.whole.Stop()
	w.cancel(nil)
}

// retryable reports whether a failed attempt that produced no token may
// succeed when repeated. A request too long for the model's context
// window never does, whatever its status (llama.cpp answers some with a
// 500).
func retryable(err error) bool {
	if IsContextOverflow(err) {
		return false
	}
	if apiErr, ok := errors.AsType[*APIError](err); ok {
		return apiErr.Retryable()
	}
	if _, ok := errors.AsType[*StallError](err); ok {
		return true
	}
	return errors.Is(err, ErrStreamCut) || connectionError(err)
}

// connectionError reports whether err is a network failure that another
// attempt may not meet: refused, reset, timed out, or dropped mid-body.
// Unknown hosts and TLS failures are not.
func connectionError(err error) bool {
	if dnsErr, ok := errors.AsType[*net.DNSError](err); ok {
		return !dnsErr.IsNotFound
	}
	if urlErr, ok := errors.AsType[*url.Error](err); ok {
		err = urlErr.Err // *url.Error is a net.Error whatever it wraps
	}
	if _, ok := errors.AsType[*net.OpError](err); ok {
		return true
	}
	if netErr, ok := errors.AsType[net.Error](err); ok && netErr.Timeout() {
		return true
	}
	for _, target := range []error{io.ErrUnexpectedEOF, io.EOF, syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.ECONNABORTED, syscall.EPIPE} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// backoff returns the wait before the retry after attempt: what the server
// asked for, or BaseDelay doubled for every earlier retry with equal
// jitter; never more than MaxDelay.
func (c *OpenAI) backoff(attempt int, err error) time.Duration {
	if apiErr, ok := errors.AsType[*APIError](err); ok {
		if d, ok := retryAfter(apiErr.header, time.Now()); ok {
			return min(d, c.maxDelay)
		}
	}
	d := min(c.baseDelay, c.maxDelay)
	for i := 1; i < attempt && d < c.maxDelay; i++ {
		if d > c.maxDelay/2 {
			d = c.maxDelay
		} else {
			d *= 2
		}
	}
	return d/2 + time.Duration(c.jitter()*float64(d/2))
}

// retryAfter reads the wait a server asks for: retry-after-ms, or
// Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	number := func(v string, unit time.Duration) (time.Duration, bool) {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) || f < 0 {
			return 0, false
		}
		if f >= float64(math.MaxInt64)/float64(unit) {
			return time.Duration(math.MaxInt64), true
		}
		return time.Duration(f * float64(unit)), true
	}
	if d, ok := number(h.Get("Retry-After-Ms"), time.Millisecond); ok {
		return d, true
	}
	v := h.Get("Retry-After")
	if d, ok := number(v, time.Second); ok {
		return d, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// newAPIError returns the APIError for a request the server answered with
// an HTTP error, or nil.
func newAPIError(err error, res *http.Response) *APIError {
	e := &APIError{err: err}
	if oe, ok := errors.AsType[*openai.Error](err); ok {
		e.Status, e.Message, e.Type, e.Code = oe.StatusCode, oe.Message, oe.Type, oe.Code
		if oe.Response != nil {
			res = oe.Response
		}
	} else if res == nil || res.StatusCode < 400 {
		return nil
	} else {
		// openai-go could not read the body as an OpenAI error.
		e.Status = res.StatusCode
	}
	if res != nil {
		e.header = res.Header
		if e.Message == "" && res.Body != nil {
			body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
			e.Message = bodyMessage(body)
		}
	}
	return e
}

// bodyMessage finds the message in an error body that is not in OpenAI's
// format: {"error":"..."}, {"message":"..."}, {"detail":"..."} or a short
// line of text.
func bodyMessage(body []byte) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) == nil {
		for _, key := range []string{"error", "message", "detail"} {
			var s string
			if json.Unmarshal(fields[key], &s) == nil && s != "" {
				return s
			}
			var nested struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(fields[key], &nested) == nil && nested.Message != "" {
				return nested.Message
			}
		}
		return ""
	}
	text := strings.TrimSpace(string(body))
	if text == "" || strings.HasPrefix(text, "<") {
		return "" // empty, or an HTML page
	}
	line, _, _ := strings.Cut(text, "\n")
	if len(line) > 200 {
		line = strings.ToValidUTF8(line[:200], "") + "…"
	}
	return line
}

// assembler builds the reply from the chunks of one stream.
type assembler struct {
	id       string // the completion's ID, for naming calls that lack one
	content  strings.Builder
	calls    []*callBuilder // in order of first appearance
	byIndex  map[int64]*callBuilder
	last     *callBuilder // the call the last tool-call entry went to
	finish   string
	filtered []string // the categories a content filter flagged
	usage    chat.Usage
	thought  reasoning
	replied  bool // a token arrived
	moved    bool // the last chunk carried something new (see progress)
	chunks   int  // chunks read
	size     int  // bytes of text and arguments
	err      *APIError
}

type callBuilder struct {
	index    int64
	id, name string
	args     strings.Builder
	extra    map[string]json.RawMessage
}

// add takes in a chunk, emitting its text. A chunk that is an error
// (older vLLM's {"object":"error",…}) or that finishes with "error" sets
// a.err.
func (a *assembler) add(ch openai.ChatCompletionChunk, emit func(Event)) {
	if ch.JSON.Object.Raw() == `"error"` {
		a.err = inStreamError([]byte(ch.RawJSON()), "the server sent an error object with no message")
		return
	}
	if a.id == "" {
		a.id = ch.ID
	}
	if ch.JSON.Usage.Valid() {
		if a.usage == (chat.Usage{}) {
			a.moved = true // the count comes once; a repeat is no progress
		}
		a.usage = chat.Usage{
			PromptTokens:     ch.Usage.PromptTokens,
			CompletionTokens: ch.Usage.CompletionTokens,
			TotalTokens:      ch.Usage.TotalTokens,
			ReasoningTokens:  ch.Usage.CompletionTokensDetails.ReasoningTokens,
		}
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue // only one choice is asked for
		}
		if text := a.thought.delta(choice.Delta.JSON.ExtraFields); text != "" {
			a.replied, a.moved = true, true
			a.size += len(text)
			emit(ReasoningDelta{Text: text})
		}
		// A refusal is the model's answer too; the user should read it.
		for _, text := range []string{choice.Delta.Content, choice.Delta.Refusal} {
			if text != "" {
				a.content.WriteString(text)
				a.replied, a.moved = true, true
				a.size += len(text)
				emit(TextDelta{Text: text})
			}
		}
		many := len(choice.Delta.ToolCalls) > 1
		for _, tc := range choice.Delta.ToolCalls {
			a.addCall(tc, many)
		}
		if choice.FinishReason == "content_filter" {
			a.addFiltered(choice.RawJSON())
		}
		if choice.FinishReason != "" {
			a.finish = choice.FinishReason
			a.moved = true
		}
	}
	if a.finish == "error" {
		a.err = &APIError{InStream: true, Message: `the server ended the reply with finish_reason "error"`}
	}
}

// addFiltered records the categories of a choice's Azure
// content_filter_results ({"hate":{"filtered":true,"severity":"high"},…})
// that were filtered.
func (a *assembler) addFiltered(choice string) {
	var c struct {
		Results map[string]struct {
			Filtered bool `json:"filtered"`
		} `json:"content_filter_results"`
	}
	if json.Unmarshal([]byte(choice), &c) != nil {
		return
	}
	for name, r := range c.Results {
		if r.Filtered && !slices.Contains(a.filtered, name) {
			a.filtered = append(a.filtered, name)
		}
	}
	slices.Sort(a.filtered)
}

// addCall takes in one entry of a delta's tool_calls array; many says the
// array had more than one. The rules, in order:
//
//   - An entry with an index continues the call of that index (indexes may
//     come in any order), unless it carries an ID other than that call's:
//     then it starts a new call (servers that give every call index 0).
//   - An entry without an index starts a new call when it shares its delta
//     with another entry (each entry of one array is a distinct call,
//     whatever its ID: Gemini through some proxies sends two whole calls
//     in one delta with no index and empty IDs), when its ID differs from
//     the last call's, when it names another function than the last call,
//     or when there is no call yet. Otherwise it continues the last call.
func (a *assembler) addCall(tc openai.ChatCompletionChunkChoiceDeltaToolCall, many bool) {
	a.replied = true
	var b *callBuilder
	if tc.JSON.Index.Valid() {
		b = a.byIndex[tc.Index]
		if b != nil && tc.ID != "" && b.id != "" && tc.ID != b.id {
			b = nil
		}
		if b == nil {
			b = a.newCall(tc.Index)
			if a.byIndex == nil {
				a.byIndex = map[int64]*callBuilder{}
			}
			a.byIndex[tc.Index] = b
		}
	} else {
		b = a.last
		name := tc.Function.Name
		if many || b == nil || (tc.ID != "" && tc.ID != b.id) || (name != "" && b.name != "" && name != b.name) {
			b = a.newCall(int64(len(a.calls)))
		}
	}
	if b != a.last || (b.id == "" && tc.ID != "") || tc.Function.Arguments != "" {
		a.moved = true
	}
	a.last = b
	if b.id == "" {
		b.id = tc.ID
	}
	// The name comes whole in the first delta; some servers repeat it.
	if name := tc.Function.Name; name != "" && name != b.name {
		b.name += name
		a.moved = true
	}
	b.args.WriteString(tc.Function.Arguments)
	b.extra = callExtra(b.extra, tc.JSON.ExtraFields)
	a.size += len(tc.Function.Arguments)
}

// newCall starts a call at index.
func (a *assembler) newCall(index int64) *callBuilder {
	b := &callBuilder{index: index}
	a.calls = append(a.calls, b)
	return b
}

// reply returns the finished reply, its calls ordered by index.
func (a *assembler) reply() Reply {
	calls := slices.Clone(a.calls)
	slices.SortStableFunc(calls, func(x, y *callBuilder) int { return cmp.Compare(x.index, y.index) })
	msg := chat.Message{Role: chat.RoleAssistant, Content: a.content.String()}
	msg.Reasoning, msg.Extra = a.thought.message()
	for i, b := range calls {
		id := b.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
			if a.id != "" {
				id = a.id + "_" + id
			}
		}
		msg.ToolCalls = append(msg.ToolCalls, chat.ToolCall{ID: id, Name: b.name, Arguments: b.args.String(), Extra: b.extra})
	}
	return Reply{Message: msg, Usage: a.usage, FinishReason: a.finish, Filtered: a.filtered}
}

// otherParams converts a request but its messages to the wire (the
// messages are requestBodies' work). Streaming asks for the usage chunk.
func otherParams(req Request) (openai.ChatCompletionNewParams, error) {
	if req.Model == "" {
		return openai.ChatCompletionNewParams{}, errors.New("no model set")
	}
	p := openai.ChatCompletionNewParams{
		Model:         req.Model,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if req.ReasoningEffort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(req.ReasoningEffort)
	}
	for _, t := range req.Tools {
		tp, err := toolParam(t)
		if err != nil {
			return p, err
		}
		p.Tools = append(p.Tools, tp)
	}
	return p, nil
}

func messageParam(m chat.Message) (openai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case chat.RoleSystem:
		return openai.SystemMessage(m.Content), nil
	case chat.RoleUser:
		if len(m.Images) == 0 {
			return openai.UserMessage(m.Content), nil
		}
		// Images go as image_url parts with data URLs, after the text.
		parts := make([]openai.ChatCompletionContentPartUnionParam, 0, len(m.Images)+1)
		if m.Content != "" {
			parts = append(parts, openai.TextContentPart(m.Content))
		}
		for _, img := range m.Images {
			parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
				URL: "data:" + img.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(img.Data),
			}))
		}
		return openai.UserMessage(parts), nil
	case chat.RoleTool:
		if m.ToolCallID == "" {
			return openai.ChatCompletionMessageParamUnion{}, errors.New("tool message without a tool call ID")
		}
		return openai.ToolMessage(m.Content, m.ToolCallID), nil
	case chat.RoleAssistant:
		var p openai.ChatCompletionAssistantMessageParam
		// The content may be left out only when there are tool calls.
		if m.Content != "" || len(m.ToolCalls) == 0 {
			p.Content.OfString = openai.String(m.Content)
		}
		for _, tc := range m.ToolCalls {
			fn := &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: tc.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
					Name:      tc.Name,
					Arguments: wireArguments(tc.Arguments),
				},
			}
			if len(tc.Extra) > 0 {
				fn.SetExtraFields(extraFields(tc.Extra)) // e.g. Gemini's thought signature
			}
			p.ToolCalls = append(p.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: fn})
		}
		// The reasoning and unknown fields go back with a message that made
		// tool calls (DeepSeek and OpenRouter go on reasoning from them);
		// an answer's reasoning is not sent again.
		if len(m.ToolCalls) > 0 && len(m.Extra) > 0 {
			p.SetExtraFields(extraFields(m.Extra))
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: &p}, nil
	}
	return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", m.Role)
}

// wireArguments is what a call's arguments are sent back as: as they came
// when they are a JSON object, else "{}". Strict servers refuse a
// conversation holding arguments that are not JSON; the call's result
// already tells the model what was wrong with what it sent.
func wireArguments(args string) string {
	if t := strings.TrimSpace(args); strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		return args
	}
	return "{}"
}

// toolParam converts a tool spec to a function tool. The schema is passed
// through byte for byte: each top-level member stays raw JSON.
func toolParam(t chat.ToolSpec) (openai.ChatCompletionToolUnionParam, error) {
	fn := shared.FunctionDefinitionParam{Name: t.Name}
	if t.Description != "" {
		fn.Description = openai.String(t.Description)
	}
	if schema := bytes.TrimSpace(t.Parameters); len(schema) > 0 && string(schema) != "null" {
		var members map[string]json.RawMessage
		if err := json.Unmarshal(schema, &members); err != nil {
			return openai.ChatCompletionToolUnionParam{}, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
		}
		fn.Parameters = make(shared.FunctionParameters, len(members))
		for k, v := range members {
			fn.Parameters[k] = v
		}
	}
	return openai.ChatCompletionFunctionTool(fn), nil
}
