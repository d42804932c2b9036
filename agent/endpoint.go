package agent

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
)

// EndpointError is a model request that failed before any reply, most
// likely because of where it was sent: nothing answers there, no such
// host, no chat completions API at that path (404), a server that is no
// OpenAI-compatible API (405, 501), a key it refuses (401). It names the
// URL and says what that usually means, so that the error names the fix
// (--base-url should end in /v1; is the server running?). It unwraps to
// the error of the last attempt.
type EndpointError struct {
	URL      string // the request's URL
	Attempts int
	// What says what went wrong, in place of Err's own text where that
	// is a Go error of the network stack.
	What string
	Hint string // what it usually means, and the fix
	Err  error
}

func (e *EndpointError) Error() string {
	s := "model request failed"
	if e.Attempts > 1 {
		s += fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	s += ": " + e.What
	if e.Hint != "" {
		s += ". " + e.Hint
	}
	return s
}

func (e *EndpointError) Unwrap() error { return e.Err }

// completionsURL is the URL chat completions requests go to.
func (c *OpenAI) completionsURL() string {
	return strings.TrimSuffix(c.baseURL, "/") + "/chat/completions"
}

// endpointError returns the EndpointError for err, the error of the last
// attempt, when the endpoint is its likely cause; nil for the others
// (the server's answer to this request: a bad request, a context too
// long, a stall, a stream cut).
func (c *OpenAI) endpointError(attempts int, err error) *EndpointError {
	u := c.completionsURL()
	base := strings.TrimSuffix(c.baseURL, "/")
	e := &EndpointError{URL: u, Attempts: attempts, Err: err}
	const where = "The endpoint comes from --base-url or OPENAI_BASE_URL"
	if apiErr, ok := errors.AsType[*APIError](err); ok && !apiErr.InStream {
		status := apiErr.Error()
		switch apiErr.Status {
		case http.StatusNotFound:
			e.What = fmt.Sprintf("%s (from %s)", status, u)
			switch {
			case !strings.HasSuffix(base, "/v1") && !strings.Contains(base, "/v1/") && !strings.Contains(base, "/openai"):
				e.Hint = fmt.Sprintf("An OpenAI-compatible endpoint usually ends in /v1: try --base-url %s/v1", base)
			case strings.Contains(strings.ToLower(apiErr.Message), "model"):
				e.Hint = fmt.Sprintf("Is the model name right? (-m or TACKLE_MODEL; the server lists its models at %s/models)", base)
			default:
				e.Hint = "There is no chat completions API at this URL: is it the server's OpenAI-compatible endpoint (Ollama: http://localhost:11434/v1)? " + where
			}
		case http.StatusMethodNotAllowed, http.StatusNotImplemented:
			e.What = fmt.Sprintf("%s (from %s)", status, u)
			e.Hint = "The server there does not speak the OpenAI chat completions API: --base-url must be an OpenAI-compatible endpoint, which usually ends in /v1 (Ollama: http://localhost:11434/v1, vLLM: http://localhost:8000/v1)"
		case http.StatusUnauthorized:
			e.What = fmt.Sprintf("%s (from %s)", status, u)
			e.Hint = "The server refused the API key: check OPENAI_API_KEY (a local server such as Ollama needs none)"
		default:
			return nil
		}
		return e
	}
	if dnsErr, ok := errors.AsType[*net.DNSError](err); ok && dnsErr.IsNotFound {
		e.What = fmt.Sprintf("no such host %q (in %s)", dnsErr.Name, base)
		e.Hint = "Check the host name. " + where
		return e
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		e.What = fmt.Sprintf("nothing answers at %s (connection refused)", base)
		e.Hint = "Is the model server running (Ollama: ollama serve) and is this its address? " + where
		return e
	}
	if _, ok := errors.AsType[*net.OpError](err); ok {
		e.What = fmt.Sprintf("cannot reach %s (%s)", base, shortReason(err))
		e.Hint = where
		return e
	}
	return nil
}

// shortReason says in a few words why an attempt failed: the network
// error without the request's own words ("connection refused" for
// `Post "http://…": dial tcp …: connect: connection refused`), or the
// error as it is.
func shortReason(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	}
	if dnsErr, ok := errors.AsType[*net.DNSError](err); ok {
		return "cannot look up " + dnsErr.Name + ": " + dnsErr.Err
	}
	if urlErr, ok := errors.AsType[*url.Error](err); ok {
		inner := urlErr.Err
		if opErr, ok := errors.AsType[*net.OpError](inner); ok && opErr.Err != nil {
			return opErr.Err.Error()
		}
		return inner.Error()
	}
	return err.Error()
}
