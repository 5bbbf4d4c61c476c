package webhook

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/gobwas/glob"
)

// The built-in names of [webhook] ALLOWED_HOST_LIST, with Gitea's meanings.
const (
	hostListExternal = "external" // global unicast, neither private nor reserved
	hostListPrivate  = "private"  // RFC 1918, RFC 4193 and the reserved ranges below
	hostListLoopback = "loopback" // 127.0.0.0/8 and ::1
	hostListAll      = "*"        // everything
)

// hostListReserved are special-purpose ranges that netip.Addr.IsPrivate does
// not cover but that are no public destination either (CGNAT, cloud metadata,
// documentation, IPv6 transition ranges embedding IPv4 addresses). They count
// as "private" and never as "external", as in current Gitea.
var hostListReserved = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"100.64.0.0/10", "168.63.129.16/32", "192.0.0.0/24", "192.0.2.0/24",
		"192.88.99.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
		"100::/64", "64:ff9b::/96", "64:ff9b:1::/48", "2001::/32", "2001:10::/28",
		"2001:20::/28", "2001:db8::/32", "2002::/16",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// hookAddrPrivate reports whether a is private or reserved.
func hookAddrPrivate(a netip.Addr) bool {
	if a.IsPrivate() {
		return true
	}
	for _, p := range hostListReserved {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// hookAddrExternal reports whether a is a public internet address.
func hookAddrExternal(a netip.Addr) bool {
	return a.IsGlobalUnicast() && !hookAddrPrivate(a)
}

// hookHostList is a parsed ALLOWED_HOST_LIST.
type hookHostList struct {
	all                         bool
	external, private, loopback bool
	prefixes                    []netip.Prefix
	globs                       []glob.Glob
}

// parseHookHostList parses a comma separated host list; "" means "external".
func parseHookHostList(s string) (*hookHostList, error) {
	if strings.TrimSpace(s) == "" {
		s = hostListExternal
	}
	hl := &hookHostList{}
	for entry := range strings.SplitSeq(s, ",") {
		e := strings.ToLower(strings.TrimSpace(entry))
		if e == "" {
			continue
		}
		switch e {
		case hostListAll:
			hl.all = true
			continue
		case hostListExternal:
			hl.external = true
			continue
		case hostListPrivate:
			hl.private = true
			continue
		case hostListLoopback:
			hl.loopback = true
			continue
		}
		if p, err := netip.ParsePrefix(e); err == nil {
			hl.prefixes = append(hl.prefixes, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(e); err == nil {
			a = a.WithZone("").Unmap()
			hl.prefixes = append(hl.prefixes, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		if strings.ContainsAny(e, "/:@ \t") {
			return nil, fmt.Errorf("ALLOWED_HOST_LIST entry %q is neither a built-in name, a CIDR, an IP address nor a host name pattern", strings.TrimSpace(entry))
		}
		g, err := glob.Compile(e)
		if err != nil {
			return nil, fmt.Errorf("ALLOWED_HOST_LIST entry %q is not a valid pattern: %v", strings.TrimSpace(entry), err)
		}
		hl.globs = append(hl.globs, g)
	}
	return hl, nil
}

// matchesName reports whether a host name (no port) matches one of the patterns.
func (hl *hookHostList) matchesName(host string) bool {
	host = strings.ToLower(strings.TrimSpace(host))
	if host == "" {
		return false
	}
	if hl.all {
		return true
	}
	for _, g := range hl.globs {
		if g.Match(host) {
			return true
		}
	}
	return false
}

// matchesAddr reports whether an IP address is allowed.
func (hl *hookHostList) matchesAddr(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.WithZone("").Unmap()
	switch {
	case hl.all:
		return true
	case hl.external && hookAddrExternal(a):
		return true
	case hl.private && hookAddrPrivate(a):
		return true
	case hl.loopback && a.IsLoopback():
		return true
	}
	for _, p := range hl.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	// Patterns may also be written against the textual address ("192.168.1.*").
	return hl.matchesName(a.String())
}

// allows is the connect-time decision: the requested host name matches a
// pattern (then its address does not matter, as in Gitea) or the resolved
// address is allowed.
func (hl *hookHostList) allows(host string, a netip.Addr) bool {
	return hl.matchesName(host) || hl.matchesAddr(a)
}

// ipRules reports whether the list has rules on addresses, under which a host
// name could be allowed once resolved.
func (hl *hookHostList) ipRules() bool {
	return hl.all || hl.external || hl.private || hl.loopback || len(hl.prefixes) > 0
}

// allowsStatically is the check done without resolving: literal addresses are
// checked, names pass when a pattern matches them or when address rules could
// allow them after resolution ("localhost" counts as a loopback address).
func (hl *hookHostList) allowsStatically(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if a, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		return hl.matchesName(host) || hl.matchesAddr(a)
	}
	if hl.matchesName(host) {
		return true
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return hl.matchesAddr(netip.MustParseAddr("127.0.0.1"))
	}
	return hl.ipRules()
}
