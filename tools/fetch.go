package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// Fetch is the name of the fetch tool: a web page as markdown.
const Fetch = "fetch"

//go:embed descriptions/fetch.md
var fetchDescription string

// The bounds of a fetch (docs/limits.md).
const (
	// MaxFetchBytes is how much of a response body fetch reads.
	MaxFetchBytes = 5 << 20
	// MaxFetchChars is how many characters of the page (as markdown)
	// one call returns; start_char reads on.
	MaxFetchChars = 40_000
	// MaxFetchRedirects is how many redirects one call follows.
	MaxFetchRedirects = 5
	// FetchTimeout bounds one call: connecting, every redirect, reading
	// the body.
	FetchTimeout = 30 * time.Second
)

// FetchArgs are the arguments of fetch.
type FetchArgs struct {
	URL       string `json:"url" jsonschema:"The http or https URL of the page."`
	StartChar int    `json:"start_char,omitempty" jsonschema:"Where to start in the page's text, in characters, to read on after a result that was cut. Default 0."`
}

// Summary is the URL.
func (a FetchArgs) Summary() string {
	if a.StartChar > 0 {
		return fmt.Sprintf("%s (from character %d)", a.URL, a.StartChar)
	}
	return a.URL
}

// Host is the host of the URL as rules see it (FetchURL), or "" when
// fetch refuses the URL.
func (a FetchArgs) Host() string {
	_, h, err := FetchURL(a.URL)
	if err != nil {
		return ""
	}
	return h
}

// HostArgs is implemented by the argument types of tools that reach
// another machine: Host is the host a call reaches, as rules see it
// ("" when the call will be refused). An approval policy reads it
// through Registry.Inspect (CallInfo.Host).
type HostArgs interface {
	Host() string
}

// FetchConfig is what fetch asks its approval policy about.
type FetchConfig struct {
	// Named reports whether an allow rule names host exactly (not by a
	// wildcard): only then does fetch connect to it at an address
	// BlockedAddr refuses (localhost, a LAN host). Nil names none.
	Named func(host string) bool
	// Follow reports whether a redirect to rawURL, on another host than
	// the call's, may be followed without asking: a rule allows fetching
	// it. Nil follows none; the result then tells the model where the
	// page moved, and fetching that is a call of its own (which asks).
	Follow func(rawURL string) bool
	// Resolver resolves host names; nil is the system's.
	Resolver *net.Resolver
	// UserAgent is sent with each request.
	UserAgent string
	// Timeout bounds one call; zero is FetchTimeout.
	Timeout time.Duration
}

func (c FetchConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return FetchTimeout
}

// WithFetch configures the fetch tool.
func WithFetch(c FetchConfig) Option {
	return func(o *options) { o.fetch = c }
}

type fetchTool struct {
	cfg FetchConfig
}

func (t fetchTool) tool() *Tool {
	return New(Fetch, fetchDescription, KindNetwork, t.run, previewFetch)
}

func previewFetch(a FetchArgs) Preview {
	p := Preview{Summary: a.Summary(), Args: []Arg{{Name: "url", Value: a.URL}}}
	u, host, err := FetchURL(a.URL)
	if err != nil {
		p.Problem = "fetch refuses the URL: " + err.Error()
		return p
	}
	p.Args = append(p.Args, Arg{Name: "host", Value: host})
	if u.Scheme == "http" {
		p.Args = append(p.Args, Arg{Name: "note", Value: "plain http: what is sent and received can be read on the way"})
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if why := BlockedAddr(ip); why != "" {
			p.Problem = fmt.Sprintf("%s is %s: fetch refuses it unless an allow rule names it (fetch(domain:%s))", host, why, host)
		}
	}
	return p
}

// errRedirected stops a redirect to another host that no rule allows.
type errRedirected struct{ to string }

func (e *errRedirected) Error() string { return "redirected to " + e.to }

// errRefusedAddr is a connection fetch refused to make.
type errRefusedAddr struct {
	host string
	ip   netip.Addr
	why  string
}

func (e *errRefusedAddr) Error() string {
	if e.host == e.ip.String() {
		return fmt.Sprintf("%s is %s", e.host, e.why)
	}
	return fmt.Sprintf("%s resolves to %s, %s", e.host, e.ip, e.why)
}

// dial connects to addr (host:port), checking the address it connects
// to once the name was resolved: in the socket's Control, after the
// resolver and before connect, so every address tried is judged.
func (t fetchTool) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	host, err = FetchHost(host)
	if err != nil {
		return nil, err
	}
	named := t.cfg.Named != nil && t.cfg.Named(host)
	d := net.Dialer{
		Timeout:  FetchTimeout,
		Resolver: t.cfg.Resolver,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("fetch: cannot judge the address %q: %w", address, err)
			}
			if why := BlockedAddr(ap.Addr()); why != "" && !named {
				return &errRefusedAddr{host: host, ip: ap.Addr().Unmap(), why: why}
			}
			return nil
		},
	}
	return d.DialContext(ctx, network, addr)
}

func (t fetchTool) client(origin string) *http.Client {
	tr := &http.Transport{
		// Never a proxy from the environment: the address judged would
		// be the proxy's, and the proxy would reach for the model what
		// fetch refuses to (docs/limits.md).
		Proxy:                  nil,
		DialContext:            t.dial,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    FetchTimeout,
		ResponseHeaderTimeout:  FetchTimeout,
		MaxResponseHeaderBytes: 64 << 10,
		DisableKeepAlives:      true,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > MaxFetchRedirects {
				return fmt.Errorf("more than %d redirects", MaxFetchRedirects)
			}
			u, host, err := FetchURL(req.URL.String())
			if err != nil {
				return fmt.Errorf("redirected to a URL fetch refuses: %w", err)
			}
			req.URL = u
			if host != origin && (t.cfg.Follow == nil || !t.cfg.Follow(u.String())) {
				return &errRedirected{to: u.String()}
			}
			return nil
		},
	}
}

func (t fetchTool) run(ctx context.Context, a FetchArgs) (Result, error) {
	u, host, err := FetchURL(a.URL)
	if err != nil {
		return Fail("fetch refused %s: %v", a.URL, err), nil
	}
	if a.StartChar < 0 {
		return Fail("start_char must be 0 or more, got %d", a.StartChar), nil
	}
	ctx, cancel := context.WithTimeout(ctx, t.cfg.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Fail("fetch refused %s: %v", a.URL, err), nil
	}
	ua := t.cfg.UserAgent
	if ua == "" {
		ua = "tackle"
	}
	req.Header.Set("User-Agent", ua)
	req.Header.Set("Accept", "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.1")
	resp, err := t.client(host).Do(req)
	if err != nil {
		return t.failure(ctx, a.URL, err), nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxFetchBytes+1))
	if err != nil {
		return t.failure(ctx, a.URL, err), nil
	}
	cut := len(body) > MaxFetchBytes
	if cut {
		body = body[:MaxFetchBytes]
	}
	final := resp.Request.URL.String()
	ctype := resp.Header.Get("Content-Type")
	if ctype == "" {
		ctype = http.DetectContentType(body)
	}
	text, err := pageText(ctype, body, resp.Request.URL)
	if err != nil {
		return Fail("%s (%s): %v", final, resp.Status, err), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\n", final)
	if final != u.String() {
		fmt.Fprintf(&b, "(redirected from %s)\n", u.String())
	}
	fmt.Fprintf(&b, "Status: %s\nContent-Type: %s\n", resp.Status, ctype)
	if cut {
		fmt.Fprintf(&b, "Note: the response is larger than %d MiB; only its first %d MiB were read.\n", MaxFetchBytes>>20, MaxFetchBytes>>20)
	}
	b.WriteString("\n")
	b.WriteString(window(text, a.StartChar))
	return Result{Content: b.String(), IsError: resp.StatusCode >= 400}, nil
}

// window is MaxFetchChars characters of text from start, with a note
// saying where the rest is.
func window(text string, start int) string {
	total := utf8.RuneCountInString(text)
	if start > 0 && start >= total {
		return fmt.Sprintf("(start_char %d is past the end: the page has %d characters)", start, total)
	}
	i := 0
	for n := 0; n < start && i < len(text); n++ {
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	rest := text[i:]
	j := 0
	for n := 0; n < MaxFetchChars && j < len(rest); n++ {
		_, size := utf8.DecodeRuneInString(rest[j:])
		j += size
	}
	if j == len(rest) {
		if start > 0 {
			return fmt.Sprintf("(characters %d to %d of %d)\n\n%s", start, total, total, rest)
		}
		return rest
	}
	end := start + MaxFetchChars
	return fmt.Sprintf("%s\n\n[cut: characters %d to %d of %d shown; call fetch with start_char %d to read on]", rest[:j], start, end, total, end)
}

// pageText is the body as the model reads it: HTML as markdown, text
// and JSON as they are, in UTF-8; other content types are refused.
func pageText(ctype string, body []byte, base *url.URL) (string, error) {
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.Split(ctype, ";")[0]))
	}
	textual := strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/xml" || strings.HasSuffix(mt, "+xml") || mt == "application/javascript" || mt == "application/x-ndjson"
	if !textual {
		return "", fmt.Errorf("the content is %s (%d bytes), which fetch does not show: it shows HTML, text and JSON", mt, len(body))
	}
	r, err := charset.NewReader(strings.NewReader(string(body)), ctype)
	if err != nil && params["charset"] != "" {
		return "", fmt.Errorf("unknown charset %q", params["charset"])
	}
	if err == nil {
		if b, err := io.ReadAll(r); err == nil {
			body = b
		}
	}
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	if mt == "text/html" || mt == "application/xhtml+xml" {
		return HTMLToMarkdown(s, base), nil
	}
	return s, nil
}

// failure is the result of a fetch that got no whole response.
func (t fetchTool) failure(ctx context.Context, raw string, err error) Result {
	var red *errRedirected
	if errors.As(err, &red) {
		return Fail("%s redirects to %s, on another host, which was not fetched: no rule allows fetching it. Call fetch with that URL to follow the redirect (it asks the user).", raw, red.to)
	}
	var ref *errRefusedAddr
	if errors.As(err, &ref) {
		return Fail("fetch refused %s: %v. fetch does not reach loopback, link-local (cloud metadata), private or reserved addresses unless an allow rule names the host (fetch(domain:%s)); do not try to reach it another way.", raw, ref, ref.host)
	}
	if ctx.Err() == context.DeadlineExceeded {
		return Fail("fetch %s: no complete answer within %s", raw, t.cfg.timeout())
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return Fail("fetch %s: %v", raw, err)
}
