package repo

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"testing"
)

func fakeLookup(table map[string][]string) func(context.Context, string) ([]net.IP, error) {
	return func(_ context.Context, host string) ([]net.IP, error) {
		addrs, ok := table[host]
		if !ok {
			return nil, errors.New("no such host")
		}
		var out []net.IP
		for _, a := range addrs {
			out = append(out, net.ParseIP(a))
		}
		return out, nil
	}
}

func TestHostPolicy(t *testing.T) {
	dns := fakeLookup(map[string][]string{
		"example.com":       {"93.184.216.34"},
		"git.example.com":   {"93.184.216.35"},
		"a.b.example.com":   {"93.184.216.36"},
		"rebind.example":    {"93.184.216.37", "10.1.2.3"},
		"internal.corp":     {"10.0.0.5"},
		"localhost":         {"127.0.0.1", "::1"},
		"metadata.internal": {"169.254.169.254"},
	})
	cases := []struct {
		name       string
		url        string
		allowLocal bool
		allowed    []string
		blocked    []string
		ok         bool
	}{
		{"public host", "https://example.com/x.git", false, nil, nil, true},
		{"loopback literal", "http://127.0.0.1:3000/x.git", false, nil, nil, false},
		{"loopback v6 literal", "http://[::1]/x.git", false, nil, nil, false},
		{"v4-mapped loopback", "http://[::ffff:127.0.0.1]/x.git", false, nil, nil, false},
		{"private 10/8", "http://10.1.2.3/x.git", false, nil, nil, false},
		{"private 192.168", "http://192.168.1.1/x.git", false, nil, nil, false},
		{"private 172.16", "https://172.16.0.1/x.git", false, nil, nil, false},
		{"link-local metadata", "http://169.254.169.254/latest", false, nil, nil, false},
		{"link-local v6", "http://[fe80::1]/x.git", false, nil, nil, false},
		{"unique local v6", "http://[fd00::1]/x.git", false, nil, nil, false},
		{"unspecified", "http://0.0.0.0/x.git", false, nil, nil, false},
		{"multicast", "http://224.0.0.1/x.git", false, nil, nil, false},
		{"cgnat", "http://100.64.0.1/x.git", false, nil, nil, false},
		{"name to loopback", "http://localhost:3000/x.git", false, nil, nil, false},
		{"name to link-local", "http://metadata.internal/", false, nil, nil, false},
		{"one bad address of several", "https://rebind.example/x.git", false, nil, nil, false},
		{"unknown host", "https://nope.invalid/x.git", false, nil, nil, false},
		{"local allowed", "http://127.0.0.1:3000/x.git", true, nil, nil, true},
		{"local allowed by name", "http://internal.corp/x.git", true, nil, nil, true},
		{"blocked glob", "https://git.example.com/x.git", false, nil, []string{"*.example.com"}, false},
		{"glob stays in one label", "https://a.b.example.com/x.git", false, nil, []string{"*.example.com"}, true},
		{"blocked exact", "https://example.com/x.git", false, nil, []string{"EXAMPLE.com"}, false},
		{"blocked cidr", "https://example.com/x.git", false, nil, []string{"93.184.216.0/24"}, false},
		{"blocked ip", "https://example.com/x.git", false, nil, []string{"93.184.216.34"}, false},
		{"blocked even when local allowed", "http://localhost/x.git", true, nil, []string{"localhost"}, false},
		{"blocked keyword loopback", "http://127.0.0.1/x.git", true, nil, []string{"loopback"}, false},
		{"allowed list match", "https://git.example.com/x.git", false, []string{"*.example.com"}, nil, true},
		{"allowed list miss", "https://example.com/x.git", false, []string{"*.example.com"}, nil, false},
		{"allowed list does not lift the local ban", "http://internal.corp/x.git", false, []string{"internal.corp"}, nil, false},
		{"allowed list with local allowed", "http://internal.corp/x.git", true, []string{"internal.corp"}, nil, true},
		{"block wins over allow", "https://example.com/x.git", false, []string{"*"}, []string{"example.com"}, false},
		{"allowed keyword external", "https://example.com/x.git", false, []string{"external"}, nil, true},
		{"ftp refused", "ftp://example.com/x.git", false, nil, nil, false},
		{"ssh refused", "ssh://example.com/x.git", false, nil, nil, false},
		{"git protocol", "git://example.com/x.git", false, nil, nil, true},
		{"decimal ip", "http://2130706433/x.git", true, nil, nil, false},
		{"hex ip", "http://0x7f.1/x.git", true, nil, nil, false},
		{"short ip", "http://127.1/x.git", true, nil, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &hostPolicy{allowLocal: c.allowLocal, allowed: c.allowed, blocked: c.blocked, lookup: dns}
			u, err := url.Parse(c.url)
			if err != nil {
				t.Fatal(err)
			}
			ip, err := p.check(context.Background(), u)
			if (err == nil) != c.ok {
				t.Fatalf("check(%s) = %v, %v; want ok=%v", c.url, ip, err, c.ok)
			}
		})
	}
}

func TestCheckIPOnConnect(t *testing.T) {
	p := &hostPolicy{blocked: []string{"93.184.216.0/24"}}
	for ip, ok := range map[string]bool{"127.0.0.1": false, "10.0.0.1": false, "169.254.1.1": false, "::1": false,
		"93.184.216.34": false, "8.8.8.8": true, "2001:4860:4860::8888": true} {
		if err := p.checkIP(net.ParseIP(ip)); (err == nil) != ok {
			t.Errorf("checkIP(%s) = %v, want ok=%v", ip, err, ok)
		}
	}
}

func TestParseRemote(t *testing.T) {
	s := &Service{cfg: nil}
	cases := []struct {
		addr, user, pass, token string
		wantURL                 string
		wantUser, wantPass      string
		ok                      bool
	}{
		{"https://example.com/a.git", "", "", "", "https://example.com/a.git", "", "", true},
		{"https://u:p@example.com/a.git", "", "", "", "https://example.com/a.git", "u", "p", true},
		{"https://u:p@example.com/a.git", "v", "q", "", "https://example.com/a.git", "v", "q", true},
		{"https://example.com/a.git", "", "", "tok", "https://example.com/a.git", "oauth2", "tok", true},
		{"https://example.com/a.git", "me", "", "tok", "https://example.com/a.git", "me", "tok", true},
		{"git://example.com/a.git", "u", "p", "", "", "", "", false},
		{"git://example.com:9418/a%0d.git", "", "", "", "", "", "", false},
		{"ssh://example.com/a.git", "", "", "", "", "", "", false},
		{"", "", "", "", "", "", "", false},
	}
	for _, c := range cases {
		rm, err := s.parseRemote(nil, c.addr, c.user, c.pass, c.token)
		if (err == nil) != c.ok {
			t.Errorf("parseRemote(%q) err = %v, want ok=%v", c.addr, err, c.ok)
			continue
		}
		if !c.ok {
			continue
		}
		if rm.display() != c.wantURL || rm.username != c.wantUser || rm.password != c.wantPass {
			t.Errorf("parseRemote(%q) = %s %s %s", c.addr, rm.display(), rm.username, rm.password)
		}
	}
}

func TestCheckLocalRepository(t *testing.T) {
	dir := t.TempDir()
	bare := dir + "/bare.git"
	for _, d := range []string{bare, bare + "/objects", bare + "/refs"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(bare+"/HEAD", []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bare, dir+"/link.git"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir+"/plain", 0o755); err != nil {
		t.Fatal(err)
	}
	for p, ok := range map[string]bool{
		bare: true, bare + "/": false, dir + "/x/../bare.git": false, "bare.git": false,
		dir + "/link.git": false, dir + "/plain": false, dir + "/missing": false,
	} {
		if _, err := checkLocalRepository(p); (err == nil) != ok {
			t.Errorf("checkLocalRepository(%q) = %v, want ok=%v", p, err, ok)
		}
	}
}
