package config

import "testing"

func TestSSHCloneURL(t *testing.T) {
	for _, tc := range []struct {
		root, addr, domain string
		port               int
		want               string
	}{
		{"http://git.example.com/", "127.0.0.1:2222", "", 0, "ssh://git@git.example.com:2222/o/r.git"},
		{"http://git.example.com/", "0.0.0.0:22", "", 0, "git@git.example.com:o/r.git"},
		{"http://git.example.com/", "127.0.0.1:2222", "ssh.example.com", 22, "git@ssh.example.com:o/r.git"},
		{"http://git.example.com/", "127.0.0.1:2222", "", 2022, "ssh://git@git.example.com:2022/o/r.git"},
		{"http://[::1]:3000/", "[::1]:2222", "", 0, "ssh://git@[::1]:2222/o/r.git"},
	} {
		c := &Config{RootURL: tc.root, SSHAddr: tc.addr}
		c.Server.SSHDomain, c.Server.SSHPort = tc.domain, tc.port
		if got := c.SSHCloneURL("o/r"); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc, got, tc.want)
		}
	}
}
