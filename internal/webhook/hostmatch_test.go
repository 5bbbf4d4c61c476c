package webhook

import (
	"net/netip"
	"testing"
)

func TestHostMatchList(t *testing.T) {
	cases := []struct {
		list  string
		host  string // requested host name ("" = same as addr)
		addr  string
		allow bool
	}{
		// "" means external.
		{"", "", "8.8.8.8", true},
		{"", "", "127.0.0.1", false},
		{"", "", "10.1.2.3", false},
		{"", "", "2606:4700::1111", true},
		{"external", "", "8.8.8.8", true},
		{"external", "", "1.1.1.1", true},
		{"external", "", "127.0.0.1", false},
		{"external", "", "::1", false},
		{"external", "", "10.0.0.1", false},
		{"external", "", "172.16.5.4", false},
		{"external", "", "192.168.1.1", false},
		{"external", "", "169.254.169.254", false}, // link-local, cloud metadata
		{"external", "", "100.64.0.1", false},      // CGNAT
		{"external", "", "0.0.0.0", false},
		{"external", "", "255.255.255.255", false},
		{"external", "", "224.0.0.1", false},
		{"external", "", "192.0.2.10", false}, // documentation
		{"external", "", "fd00::1", false},
		{"external", "", "fe80::1", false},
		{"external", "", "::", false},
		{"external", "", "ff02::1", false},
		{"external", "", "2001:db8::1", false},
		{"external", "", "64:ff9b::a9fe:a9fe", false}, // NAT64 of 169.254.169.254
		{"external", "", "2002:7f00:1::1", false},     // 6to4 of 127.0.0.1
		{"external", "", "::ffff:127.0.0.1", false},
		{"external", "", "::ffff:8.8.8.8", true},
		{"loopback", "", "127.0.0.1", true},
		{"loopback", "", "127.9.9.9", true},
		{"loopback", "", "::1", true},
		{"loopback", "", "::ffff:127.0.0.1", true},
		{"loopback", "", "8.8.8.8", false},
		{"loopback", "", "10.0.0.1", false},
		{"private", "", "10.0.0.1", true},
		{"private", "", "172.31.255.255", true},
		{"private", "", "172.32.0.1", false},
		{"private", "", "192.168.0.1", true},
		{"private", "", "fd12:3456::1", true},
		{"private", "", "100.64.0.1", true},
		{"private", "", "127.0.0.1", false},
		{"private", "", "8.8.8.8", false},
		{"private", "", "169.254.1.1", false}, // link-local is neither, as in Gitea
		{"*", "", "127.0.0.1", true},
		{"*", "", "169.254.169.254", true},
		{"*", "", "::1", true},
		{"10.0.0.0/8", "", "10.200.0.1", true},
		{"10.0.0.0/8", "", "11.0.0.1", false},
		{"10.0.0.0/8", "", "::ffff:10.1.1.1", true},
		{"fd00::/8", "", "fd00::5", true},
		{"fd00::/8", "", "fe00::5", false},
		{"192.168.7.7", "", "192.168.7.7", true},
		{"192.168.7.7", "", "192.168.7.8", false},
		{"192.168.1.*", "", "192.168.1.42", true},
		{"external, loopback", "", "127.0.0.1", true},
		{"external, loopback", "", "8.8.8.8", true},
		{"external, loopback", "", "10.0.0.1", false},
		// Host name globs allow the host whatever its address.
		{"*.example.com", "hooks.example.com", "127.0.0.1", true},
		{"*.example.com", "a.b.example.com", "10.0.0.1", true},
		{"*.example.com", "example.com", "127.0.0.1", false},
		{"*.example.com", "evil.com", "127.0.0.1", false},
		{"*.example.com", "hooks.example.com.evil.com", "127.0.0.1", false},
		{"*.EXAMPLE.com", "Hooks.Example.COM", "127.0.0.1", true},
		{"hook.internal", "hook.internal", "10.0.0.1", true},
		{"hook.internal", "other.internal", "10.0.0.1", false},
		{"external,*.example.com", "x.example.com", "10.0.0.1", true},
		{"external,*.example.com", "x.example.org", "10.0.0.1", false},
		{"external,*.example.com", "x.example.org", "8.8.4.4", true},
	}
	for _, tc := range cases {
		hl, err := parseHookHostList(tc.list)
		if err != nil {
			t.Fatalf("parse %q: %v", tc.list, err)
		}
		host := tc.host
		if host == "" {
			host = tc.addr
		}
		a := netip.MustParseAddr(tc.addr)
		if got := hl.allows(host, a); got != tc.allow {
			t.Errorf("list %q, host %q, addr %s: allowed=%v, want %v", tc.list, host, tc.addr, got, tc.allow)
		}
	}
}

func TestHostMatchListBadEntries(t *testing.T) {
	for _, s := range []string{"10.0.0.0/33", "http://example.com", "example.com:80", "[a-", "user@host"} {
		if _, err := parseHookHostList(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
	for _, s := range []string{"", " external , private ", "loopback,*", "10.0.0.0/8,::1,*.example.com,fd00::/8"} {
		if _, err := parseHookHostList(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
}

func TestHostMatchStatic(t *testing.T) {
	cases := []struct {
		list, host string
		allow      bool
	}{
		{"external", "example.com", true}, // decided at connect time
		{"external", "127.0.0.1", false},
		{"external", "::1", false},
		{"external", "localhost", false},
		{"external", "api.localhost", false},
		{"external", "8.8.8.8", true},
		{"loopback", "localhost", true},
		{"loopback", "127.0.0.1", true},
		{"*.example.com", "a.example.com", true},
		{"*.example.com", "example.org", false}, // no address rules: only names
		{"*.example.com", "127.0.0.1", false},
		{"*", "anything", true},
	}
	for _, tc := range cases {
		hl, err := parseHookHostList(tc.list)
		if err != nil {
			t.Fatal(err)
		}
		if got := hl.allowsStatically(tc.host); got != tc.allow {
			t.Errorf("list %q host %q: %v, want %v", tc.list, tc.host, got, tc.allow)
		}
	}
}
