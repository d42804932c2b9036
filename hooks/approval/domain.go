package approval

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tackle-dev/tackle/hooks"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// Rules about hosts: fetch(domain:HOST). See Rule for the syntax.
//
// A network tool (tools.KindNetwork: fetch) asks in every mode but yolo,
// plan mode included, unless an allow rule covers its host; deny rules
// hold in yolo too. What an allow rule never does, and a redirect cannot
// get around: let fetch connect to a loopback, link-local (cloud
// metadata), private or reserved address (tools.BlockedAddr). Only an
// allow rule the user configured (a config file, a flag, Claude Code's
// permissions) naming the host exactly does that (NamesHost): a rule the
// person approved "always" in a dialog does not, nor does a wildcard or
// a bare `fetch` rule, nor yolo mode.

// domainPrefix begins a fetch rule's pattern.
const domainPrefix = "domain:"

// parseDomain reads a fetch rule's pattern: domain:HOST or
// domain:*.HOST, and returns it with the host in fetch's form.
func parseDomain(p string) (string, error) {
	host, ok := strings.CutPrefix(p, domainPrefix)
	if !ok {
		return "", fmt.Errorf("a fetch rule names a host: fetch(domain:go.dev) or fetch(domain:*.go.dev)")
	}
	wild := strings.HasPrefix(host, "*.")
	if wild {
		host = host[2:]
	}
	if strings.Contains(host, "*") || host == "" {
		return "", fmt.Errorf("%q: a host, or *. and a host for its subdomains", p)
	}
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	if strings.ContainsAny(host, "/:@?#") && !strings.Contains(host, "::") && strings.Count(host, ":") < 2 {
		return "", fmt.Errorf("%q: a host alone, without a scheme, port or path", p)
	}
	h, err := tools.FetchHost(host)
	if err != nil {
		return "", err
	}
	if wild {
		if strings.Contains(h, ":") || strings.Trim(h, "0123456789.") == "" {
			return "", fmt.Errorf("%q: an IP address has no subdomains", p)
		}
		return domainPrefix + "*." + h, nil
	}
	return domainPrefix + h, nil
}

// matchDomain reports whether a fetch rule's pattern covers host (as
// tools.FetchURL gives it).
func matchDomain(pattern, host string) bool {
	h, ok := strings.CutPrefix(pattern, domainPrefix)
	if !ok {
		return false
	}
	if suffix, ok := strings.CutPrefix(h, "*."); ok {
		return strings.HasSuffix(host, "."+suffix)
	}
	return h == host
}

// NamesHost reports whether an allow rule the user configured names host
// exactly, for tools.FetchConfig.Named: then fetch may connect to it at
// a loopback, private or link-local address. A session rule ("always"),
// a wildcard and a bare rule do not count; a deny rule covering the host
// wins.
func (p *Policy) NamesHost(host string) bool {
	p.mu.Lock()
	allow, deny := p.allow, p.deny
	p.mu.Unlock()
	for _, r := range deny {
		if r.Tool == tools.Fetch && (r.Pattern == "" || matchDomain(r.Pattern, host)) {
			return false
		}
	}
	for _, r := range allow {
		if r.Tool == tools.Fetch && r.Pattern == domainPrefix+host {
			return true
		}
	}
	return false
}

// FollowsRedirect reports whether fetch may follow a redirect to rawURL
// on another host without asking: the policy would let a fetch of it run
// as it stands (a rule allows it, or yolo mode), for
// tools.FetchConfig.Follow. Hooks are not asked: a redirect the policy
// would ask about is not followed, and the model fetches it in a call of
// its own, which goes through every hook.
func (p *Policy) FollowsRedirect(rawURL string) bool {
	args, err := json.Marshal(tools.FetchArgs{URL: rawURL})
	if err != nil {
		return false
	}
	return p.Decide(chat.ToolCall{Name: tools.Fetch, Arguments: string(args)}).Action == hooks.ToolContinue
}
