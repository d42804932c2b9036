package tools

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// The address rules of fetch. A URL is read once, strictly (FetchURL):
// http or https, no user name or password, a host name or an IP address
// written the one canonical way. The address fetch connects to is judged
// when it dials, after the name was resolved (fetchDialer), so a name
// that resolves to a loopback address, a DNS answer that changes between
// two lookups and a redirect to such an address are all refused: fetch
// never reaches an address that is not a public unicast address (below)
// unless an allow rule names the host exactly.

// FetchURL reads a URL as fetch does: it returns the URL and its host as
// rules see it — lower case, without a final dot, a name in its ASCII
// (punycode) form, an IP address in its canonical form (an IPv4 address
// in IPv6 clothes, [::ffff:127.0.0.1], is the IPv4 address). It refuses
// what fetch never fetches: a scheme other than http and https, a user
// name or password in the URL (http://go.dev@127.0.0.1/ would show
// go.dev to a reader and connect to 127.0.0.1), and an IPv4 address
// written any other way than a.b.c.d (2130706433, 0x7f.1, 0177.0.0.1,
// 127.1: resolvers read them as 127.0.0.1, rules would not).
func FetchURL(raw string) (*url.URL, string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "", fmt.Errorf("not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, "", fmt.Errorf("fetch takes http and https URLs, not %q", raw)
	}
	if u.User != nil {
		return nil, "", fmt.Errorf("the URL holds a user name or password (%s@): fetch never sends them, and the host is what follows the @", u.User.Username())
	}
	if u.Opaque != "" || u.Host == "" {
		return nil, "", fmt.Errorf("the URL %q names no host", raw)
	}
	host, err := FetchHost(u.Hostname())
	if err != nil {
		return nil, "", err
	}
	if p := u.Port(); p != "" && (len(p) > 5 || p == "0") {
		return nil, "", fmt.Errorf("bad port %q", p)
	}
	u.Fragment, u.RawFragment = "", ""
	return u, host, nil
}

// FetchHost is a URL's host as rules see it (see FetchURL), or why
// fetch refuses it.
func FetchHost(h string) (string, error) {
	if h == "" {
		return "", fmt.Errorf("the URL names no host")
	}
	if strings.Contains(h, ":") || strings.Contains(h, "%") {
		// An IPv6 literal ([…] in the URL); zones are refused.
		ip, err := netip.ParseAddr(h)
		if err != nil || ip.Zone() != "" {
			return "", fmt.Errorf("bad IPv6 address %q", h)
		}
		return ip.Unmap().String(), nil
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.String(), nil
	}
	labels := strings.Split(h, ".")
	if numericLabel(labels[len(labels)-1]) {
		// No top-level domain is a number: resolvers read such a host
		// as an IPv4 address written another way.
		return "", fmt.Errorf("%q is an IPv4 address written in a form fetch does not take: write it as four decimal numbers (a.b.c.d)", h)
	}
	a, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("bad host name %q: %v", h, err)
	}
	if a != h {
		// IDNA maps full-width digits and ideographic full stops to
		// ASCII (１２７。１ is 127.1): what it maps to is judged again,
		// as the transport dials it.
		return FetchHost(a)
	}
	for _, c := range a {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return "", fmt.Errorf("bad host name %q", h)
		}
	}
	return a, nil
}

// numericLabel reports whether a host name's label is a number as an
// IPv4 parser reads one: decimal, octal (0…) or hex (0x…).
func numericLabel(s string) bool {
	if s == "" {
		return false
	}
	if len(s) > 1 && (s[:2] == "0x" || s[:2] == "0X") {
		s = s[2:]
		return strings.Trim(s, "0123456789abcdefABCDEF") == ""
	}
	return strings.Trim(s, "0123456789") == ""
}

// v4 ranges that are not public unicast addresses besides those
// netip.Addr's methods name.
var blockedV4 = []struct {
	prefix netip.Prefix
	what   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "a \"this network\" address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (carrier-grade NAT) address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
}

var (
	nat64    = netip.MustParsePrefix("64:ff9b::/96")
	nat64Loc = netip.MustParsePrefix("64:ff9b:1::/48")
	sixTo4   = netip.MustParsePrefix("2002::/16")
	teredo   = netip.MustParsePrefix("2001::/32")
	v4Compat = netip.MustParsePrefix("::/96")
	// IPv4-translated (SIIT, RFC 2765): a translator routes it to the
	// IPv4 address it carries.
	v4Trans = netip.MustParsePrefix("::ffff:0:0:0/96")
	siteLoc = netip.MustParsePrefix("fec0::/10")
)

// BlockedAddr says why fetch does not connect to ip unless a rule names
// the host — a loopback, link-local (the cloud metadata service at
// 169.254.169.254, fd00:ec2::254), private, unspecified, multicast or
// reserved address, or an IPv6 address carrying such an IPv4 address
// (IPv4-mapped, -compatible, -translated, NAT64, 6to4) — or "" for a public unicast
// address.
func BlockedAddr(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		b := ip.As16()
		var v4 [4]byte
		switch {
		case ip == netip.IPv6Unspecified():
			return "the unspecified address"
		case ip == netip.IPv6Loopback():
			return "a loopback address"
		case v4Compat.Contains(ip):
			copy(v4[:], b[12:])
			return embedded("IPv4-compatible", netip.AddrFrom4(v4))
		case v4Trans.Contains(ip):
			copy(v4[:], b[12:])
			return embedded("IPv4-translated", netip.AddrFrom4(v4))
		case nat64.Contains(ip):
			copy(v4[:], b[12:])
			return embedded("NAT64", netip.AddrFrom4(v4))
		case nat64Loc.Contains(ip):
			return "a local-use NAT64 address"
		case sixTo4.Contains(ip):
			copy(v4[:], b[2:6])
			return embedded("6to4", netip.AddrFrom4(v4))
		case teredo.Contains(ip):
			return "a Teredo address (it carries an IPv4 address fetch cannot judge)"
		case siteLoc.Contains(ip):
			return "a site-local address"
		}
	}
	switch {
	case ip.IsUnspecified():
		return "the unspecified address"
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsLinkLocalUnicast():
		return "a link-local address (where clouds serve instance metadata)"
	case ip.IsPrivate():
		if ip == fd00ec2 {
			return "the cloud metadata address"
		}
		return "a private network address"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	if ip.Is4() {
		for _, b := range blockedV4 {
			if b.prefix.Contains(ip) {
				return b.what
			}
		}
	}
	if !ip.IsGlobalUnicast() {
		return "not a public unicast address"
	}
	return ""
}

var fd00ec2 = netip.MustParseAddr("fd00:ec2::254")

// embedded says why an IPv6 address carrying an IPv4 one is blocked:
// whenever the IPv4 address is.
func embedded(form string, v4 netip.Addr) string {
	if why := BlockedAddr(v4); why != "" {
		return fmt.Sprintf("the %s form of %s, %s", form, v4, why)
	}
	return ""
}
