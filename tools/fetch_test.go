package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/tackle-dev/tackle/tools/chat"
)

// runFetch runs the fetch tool with cfg on args.
func runFetch(t *testing.T, cfg FetchConfig, args FetchArgs) Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := fetchTool{cfg: cfg}.tool().Execute(context.Background(), string(raw))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// named names the hosts given, as allow rules would.
func named(hosts ...string) func(string) bool {
	return func(h string) bool {
		for _, n := range hosts {
			if n == h {
				return true
			}
		}
		return false
	}
}

func TestFetchURLRefusesTricks(t *testing.T) {
	for _, tc := range []struct{ in, host, err string }{
		{"https://go.dev/doc", "go.dev", ""},
		{"HTTPS://GO.DEV./doc", "go.dev", ""},
		{"http://127.0.0.1:8080/x", "127.0.0.1", ""},
		{"http://[::ffff:127.0.0.1]/", "127.0.0.1", ""},
		{"http://[::1]/", "::1", ""},
		{"http://bücher.example/", "xn--bcher-kva.example", ""},
		{"http://2130706433/", "", "IPv4 address written in a form"},
		{"http://0x7f.1/", "", "IPv4 address written in a form"},
		{"http://0x7f000001/", "", "IPv4 address written in a form"},
		{"http://0177.0.0.1/", "", "IPv4 address written in a form"},
		{"http://127.1/", "", "IPv4 address written in a form"},
		{"http://go.dev@127.0.0.1/", "", "user name or password"},
		{"http://user:pw@go.dev/", "", "user name or password"},
		{"file:///etc/passwd", "", "http and https"},
		{"gopher://go.dev/", "", "http and https"},
		{"//go.dev/", "", "http and https"},
		{"http:///x", "", "names no host"},
		{"http://[fe80::1%25eth0]/", "", "bad IPv6"},
		{"http://go.dev:0/", "", "bad port"},
		{"http://a b.dev/", "", ""},
		// Red team: IDNA maps full-width digits and ideographic full stops
		// to ASCII; what they map to is judged as the ASCII would be.
		{"http://１２７。０。０。１/", "127.0.0.1", ""},
		{"http://ｌｏｃａｌｈｏｓｔ/", "localhost", ""},
		{"http://２１３０７０６４３３/", "", "IPv4 address written in a form"},
		{"http://０x7f。1/", "", "IPv4 address written in a form"},
		{"http://127。1/", "", "IPv4 address written in a form"},
		{"http://１６９０９０３０４/", "", "IPv4 address written in a form"},
		{"http://go.dev%2F@127.0.0.1/", "", ""},
		{"http://[::ffff:7f00:1]/", "127.0.0.1", ""},
		{"http://[fe80::1%25eth0]:80/", "", "bad IPv6"},
	} {
		_, host, err := FetchURL(tc.in)
		switch {
		case tc.err == "" && tc.host == "":
			if err == nil {
				t.Errorf("FetchURL(%q) = %q, want an error", tc.in, host)
			}
		case tc.err == "":
			if err != nil || host != tc.host {
				t.Errorf("FetchURL(%q) = %q, %v; want %q", tc.in, host, err, tc.host)
			}
		default:
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("FetchURL(%q) = %q, %v; want an error with %q", tc.in, host, err, tc.err)
			}
		}
	}
}

func TestBlockedAddr(t *testing.T) {
	for _, tc := range []struct {
		ip      string
		blocked bool
	}{
		{"127.0.0.1", true}, {"127.255.0.9", true}, {"169.254.169.254", true}, {"fd00:ec2::254", true},
		{"10.1.2.3", true}, {"172.16.0.1", true}, {"192.168.1.1", true}, {"0.0.0.0", true}, {"0.1.2.3", true},
		{"::", true}, {"::1", true}, {"::ffff:127.0.0.1", true}, {"::ffff:169.254.169.254", true},
		{"::127.0.0.1", true}, {"64:ff9b::7f00:1", true}, {"64:ff9b::a9fe:a9fe", true}, {"2002:7f00:1::", true},
		{"2002:a9fe:a9fe::1", true}, {"100.64.0.1", true}, {"fe80::1", true}, {"fc00::1", true},
		{"224.0.0.1", true}, {"ff02::1", true}, {"255.255.255.255", true}, {"198.18.0.1", true},
		{"fec0::1", true}, {"2001:0:1::1", true}, {"::ffff:0:127.0.0.1", true}, {"::ffff:0:169.254.169.254", true},
		{"8.8.8.8", false}, {"140.82.112.3", false}, {"2606:4700::1111", false}, {"64:ff9b::808:808", false},
		{"2002:808:808::1", false}, {"::ffff:8.8.8.8", false}, {"::ffff:0:8.8.8.8", false},
	} {
		why := BlockedAddr(netip.MustParseAddr(tc.ip))
		if (why != "") != tc.blocked {
			t.Errorf("BlockedAddr(%s) = %q, want blocked %v", tc.ip, why, tc.blocked)
		}
	}
}

const page = `<!doctype html><html><head><title>The page</title><style>p{}</style><script>alert(1)</script></head>
<body><h1>Hello <em>there</em></h1>
<p>Some   text
 with <a href="/docs/x?a=1">a link</a> and <code>code()</code>.<br>Next line.</p>
<ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul>
<ol start="3"><li>three</li><li>four</li></ol>
<pre><code class="language-go">func main() {
	fmt.Println("hi")
}</code></pre>
<blockquote><p>quoted</p></blockquote>
<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1|2</td></tr></table>
<img src="pic.png" alt="a picture"><noscript>no script</noscript>
</body></html>`

func TestHTMLToMarkdown(t *testing.T) {
	base, _ := url.Parse("https://example.com/a/b.html")
	got := HTMLToMarkdown(page, base)
	want := "# Hello *there*\n\n" +
		"Some text with [a link](https://example.com/docs/x?a=1) and `code()`.\nNext line.\n\n" +
		"- one\n- two\n  - nested\n\n" +
		"3. three\n4. four\n\n" +
		"```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n\n" +
		"> quoted\n\n" +
		"| k | v |\n| --- | --- |\n| a | 1\\|2 |\n\n" +
		"![a picture](https://example.com/a/pic.png)\n"
	if got != want {
		t.Errorf("HTMLToMarkdown:\n%s\nwant:\n%s", got, want)
	}
	if got := HTMLToMarkdown("<title>T</title><p>x</p>", nil); got != "# T\n\nx\n" {
		t.Errorf("the title: %q", got)
	}
}

// loopbackServer serves h on 127.0.0.1; its host is "127.0.0.1".
func loopbackServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

func TestFetchRefusesLoopbackUnlessNamed(t *testing.T) {
	var hits atomic.Int32
	s := loopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	port := s.Listener.Addr().(*net.TCPAddr).Port
	for _, u := range []string{
		s.URL + "/",
		fmt.Sprintf("http://localhost:%d/", port), // a name resolving to 127.0.0.1 (the hosts file)
		fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/", port),
	} {
		res := runFetch(t, FetchConfig{}, FetchArgs{URL: u})
		if !res.IsError || !strings.Contains(res.Content, "loopback") || !strings.Contains(res.Content, "unless an allow rule names the host") {
			t.Errorf("fetch %s without a rule: %+v", u, res)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the server was reached %d times", n)
	}
	for _, tc := range []struct{ url, host string }{
		{s.URL + "/", "127.0.0.1"},
		{fmt.Sprintf("http://localhost:%d/", port), "localhost"},
		{fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/", port), "127.0.0.1"},
	} {
		res := runFetch(t, FetchConfig{Named: named(tc.host)}, FetchArgs{URL: tc.url})
		if res.IsError || !strings.Contains(res.Content, "# Hello *there*") || !strings.Contains(res.Content, "Status: 200 OK") {
			t.Errorf("fetch %s named %s: %+v", tc.url, tc.host, res)
		}
	}
	// A rule naming another host is no rule for this one.
	if res := runFetch(t, FetchConfig{Named: named("localhost")}, FetchArgs{URL: s.URL}); !res.IsError {
		t.Errorf("127.0.0.1 fetched under a rule naming localhost: %+v", res)
	}
}

// dnsServer answers every A query with ip, over UDP on loopback, and
// returns a resolver that asks it alone.
func dnsServer(t *testing.T, ip [4]byte) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
			b.EnableCompression()
			_ = b.StartQuestions()
			_ = b.Question(q)
			_ = b.StartAnswers()
			if q.Type == dnsmessage.TypeA {
				_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 0}, dnsmessage.AResource{A: ip})
			}
			out, err := b.Finish()
			if err == nil {
				_, _ = pc.WriteTo(out, from)
			}
		}
	}()
	addr := pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

func TestFetchJudgesTheResolvedAddress(t *testing.T) {
	var hits atomic.Int32
	s := loopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "secret")
	}))
	port := s.Listener.Addr().(*net.TCPAddr).Port
	res := dnsServer(t, [4]byte{127, 0, 0, 1})
	u := fmt.Sprintf("http://docs.rebind.test:%d/", port)
	r := runFetch(t, FetchConfig{Resolver: res}, FetchArgs{URL: u})
	if !r.IsError || !strings.Contains(r.Content, "docs.rebind.test resolves to 127.0.0.1, a loopback address") {
		t.Errorf("a name resolving to 127.0.0.1: %+v", r)
	}
	if hits.Load() != 0 {
		t.Fatal("the server was reached")
	}
	// A rule naming the host exactly lets it through.
	r = runFetch(t, FetchConfig{Resolver: res, Named: named("docs.rebind.test")}, FetchArgs{URL: u})
	if r.IsError || !strings.Contains(r.Content, "secret") {
		t.Errorf("named: %+v", r)
	}
}

func TestFetchRedirects(t *testing.T) {
	var metadata atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/meta", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/same", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/final", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/final", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "arrived")
	})
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://elsewhere.example/x", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/userinfo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "http://go.dev@169.254.169.254/")
		w.WriteHeader(http.StatusFound)
	})
	s := loopbackServer(t, mux)
	cfg := FetchConfig{Named: named("127.0.0.1")}

	r := runFetch(t, cfg, FetchArgs{URL: s.URL + "/same"})
	if r.IsError || !strings.Contains(r.Content, "arrived") || !strings.Contains(r.Content, "URL: "+s.URL+"/final\n(redirected from "+s.URL+"/same)") {
		t.Errorf("a redirect on the same host: %+v", r)
	}
	// Another host no rule allows: not followed, the model is told.
	r = runFetch(t, cfg, FetchArgs{URL: s.URL + "/other"})
	if !r.IsError || !strings.Contains(r.Content, "redirects to https://elsewhere.example/x, on another host, which was not fetched") {
		t.Errorf("a redirect to another host: %+v", r)
	}
	// A rule allows every host (yolo): the metadata address is refused
	// when dialled all the same.
	follow := cfg
	follow.Follow = func(string) bool { metadata.Add(1); return true }
	r = runFetch(t, follow, FetchArgs{URL: s.URL + "/meta"})
	if !r.IsError || !strings.Contains(r.Content, "169.254.169.254 is a link-local address") || metadata.Load() != 1 {
		t.Errorf("a redirect to the metadata address: %+v", r)
	}
	r = runFetch(t, follow, FetchArgs{URL: s.URL + "/userinfo"})
	if !r.IsError || !strings.Contains(r.Content, "redirected to a URL fetch refuses") {
		t.Errorf("a redirect with user info: %+v", r)
	}
	r = runFetch(t, cfg, FetchArgs{URL: s.URL + "/loop"})
	if !r.IsError || !strings.Contains(r.Content, fmt.Sprintf("more than %d redirects", MaxFetchRedirects)) {
		t.Errorf("a redirect loop: %+v", r)
	}
}

func TestFetchIgnoresProxiesFromTheEnvironment(t *testing.T) {
	var proxied atomic.Int32
	proxy := loopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		fmt.Fprint(w, "from the proxy")
	}))
	for _, v := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY"} {
		t.Setenv(v, proxy.URL)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	// Through the proxy, a fetch of a public name would connect to an
	// address on loopback: it must connect to the name's own address,
	// which the resolver gives as 127.0.0.2 — refused, no proxy reached.
	r := runFetch(t, FetchConfig{Resolver: dnsServer(t, [4]byte{127, 0, 0, 2})}, FetchArgs{URL: "http://public.example/"})
	if !r.IsError || !strings.Contains(r.Content, "resolves to 127.0.0.2") || proxied.Load() != 0 {
		t.Errorf("with proxies in the environment: %+v (proxy reached %d times)", r, proxied.Load())
	}
}

func TestFetchContentAndBounds(t *testing.T) {
	big := strings.Repeat("é", MaxFetchChars+10)
	mux := http.NewServeMux()
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"a": [1, 2]}`)
	})
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.Write([]byte("caf\xe9"))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, big)
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := []byte(strings.Repeat("x", 1<<16))
		for range (MaxFetchBytes >> 16) + 4 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	})
	s := loopbackServer(t, mux)
	cfg := FetchConfig{Named: named("127.0.0.1")}

	if r := runFetch(t, cfg, FetchArgs{URL: s.URL + "/json"}); r.IsError || !strings.HasSuffix(r.Content, "\n\n"+`{"a": [1, 2]}`) {
		t.Errorf("json: %+v", r)
	}
	if r := runFetch(t, cfg, FetchArgs{URL: s.URL + "/png"}); !r.IsError || !strings.Contains(r.Content, "image/png (8 bytes), which fetch does not show") {
		t.Errorf("png: %+v", r)
	}
	if r := runFetch(t, cfg, FetchArgs{URL: s.URL + "/latin1"}); !strings.HasSuffix(r.Content, "café") {
		t.Errorf("latin1: %+v", r)
	}
	r := runFetch(t, cfg, FetchArgs{URL: s.URL + "/big"})
	if !strings.Contains(r.Content, strings.Repeat("é", MaxFetchChars)+"\n\n[cut: characters 0 to 40000 of 40010 shown; call fetch with start_char 40000 to read on]") {
		t.Errorf("big: %.200q … %q", r.Content, r.Content[len(r.Content)-200:])
	}
	r = runFetch(t, cfg, FetchArgs{URL: s.URL + "/big", StartChar: MaxFetchChars})
	if !strings.HasSuffix(r.Content, "(characters 40000 to 40010 of 40010)\n\néééééééééé") {
		t.Errorf("big, read on: %q", r.Content)
	}
	r = runFetch(t, cfg, FetchArgs{URL: s.URL + "/huge"})
	if !strings.Contains(r.Content, "larger than 5 MiB; only its first 5 MiB were read") {
		t.Errorf("huge: %.300q", r.Content)
	}
	if r := runFetch(t, cfg, FetchArgs{URL: s.URL + "/missing"}); !r.IsError || !strings.Contains(r.Content, "Status: 404 Not Found") || !strings.Contains(r.Content, "no such page") {
		t.Errorf("404: %+v", r)
	}
}

func TestFetchTimesOut(t *testing.T) {
	release := make(chan struct{})
	s := loopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer close(release)
	r := runFetch(t, FetchConfig{Named: named("127.0.0.1"), Timeout: 50 * time.Millisecond}, FetchArgs{URL: s.URL})
	if !r.IsError || !strings.Contains(r.Content, "no complete answer within 50ms") {
		t.Errorf("a server that never answers: %+v", r)
	}
}

func TestFetchPreviewAndInspect(t *testing.T) {
	r, _ := newTestRegistry(t)
	p := r.Preview(callOf(Fetch, `{"url":"http://169.254.169.254/latest/meta-data/"}`))
	if !strings.Contains(p.Problem, "169.254.169.254 is a link-local address") {
		t.Errorf("preview: %+v", p)
	}
	p = r.Preview(callOf(Fetch, `{"url":"http://go.dev@127.0.0.1/"}`))
	if !strings.Contains(p.Problem, "fetch refuses the URL") {
		t.Errorf("preview of a URL with user info: %+v", p)
	}
	info, err := r.Inspect(callOf(Fetch, `{"url":"https://Pkg.Go.Dev./x"}`))
	if err != nil || info.Host != "pkg.go.dev" || info.Kind != KindNetwork {
		t.Errorf("inspect: %+v, %v", info, err)
	}
	if info, _ := r.Inspect(callOf(Fetch, `{"url":"http://go.dev@127.0.0.1/"}`)); info.Host != "" {
		t.Errorf("a refused URL has host %q", info.Host)
	}
}

func callOf(name, args string) chat.ToolCall {
	return chat.ToolCall{ID: "call_1", Name: name, Arguments: args}
}

// TestFetchRedirectTricks (red team): a page on a host a rule names
// (127.0.0.1 here) redirects, with every status and spelling, to the same
// machine under another name, to other schemes, to addresses written
// another way; with every redirect allowed (yolo), none of them reaches
// the machine, which only the named host may.
func TestFetchRedirectTricks(t *testing.T) {
	var secret atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/secret", func(w http.ResponseWriter, r *http.Request) {
		secret.Add(1)
		fmt.Fprint(w, "SECRET")
	})
	var target atomic.Value
	for _, code := range []int{301, 302, 303, 307, 308} {
		mux.HandleFunc(fmt.Sprintf("/r%d", code), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", target.Load().(string))
			w.WriteHeader(code)
		})
	}
	s := loopbackServer(t, mux)
	port := s.Listener.Addr().(*net.TCPAddr).Port
	cfg := FetchConfig{Named: named("127.0.0.1"), Follow: func(string) bool { return true }}
	for _, to := range []string{
		fmt.Sprintf("http://localhost:%d/secret", port),
		fmt.Sprintf("http://LOCALHOST.:%d/secret", port),
		fmt.Sprintf("//localhost:%d/secret", port),
		fmt.Sprintf("http://[::ffff:127.0.0.2]:%d/secret", port),
		fmt.Sprintf("http://127.0.0.2:%d/secret", port),
		fmt.Sprintf("http://2130706433:%d/secret", port),
		fmt.Sprintf("http://%%32%%31%%33%%30706433:%d/secret", port),
		fmt.Sprintf("http://０x7f。1:%d/secret", port),
		fmt.Sprintf("http://127。0。0。2:%d/secret", port),
		fmt.Sprintf("http://[fe80::1%%25lo]:%d/secret", port),
		fmt.Sprintf("http://x@localhost:%d/secret", port),
		"file:///etc/passwd",
		"data:text/plain,hidden",
		"gopher://localhost:70/",
		"ftp://localhost/",
		"http://169.254.169.254/latest/meta-data/",
		"http://[fd00:ec2::254]/",
		"http://metadata.google.internal/",
	} {
		target.Store(to)
		for _, code := range []int{301, 302, 303, 307, 308} {
			r := runFetch(t, cfg, FetchArgs{URL: fmt.Sprintf("%s/r%d", s.URL, code)})
			if !r.IsError || strings.Contains(r.Content, "SECRET") {
				t.Errorf("%d to %s: %+v", code, to, r)
			}
		}
	}
	if n := secret.Load(); n != 0 {
		t.Errorf("the page was reached %d times", n)
	}
}
