package config

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
)

// SSHCloneURL is the clone address of the repository fullName ("owner/name")
// over SSH: the host is SSH_DOMAIN, else the root URL's host, else the SSH
// listen host; the port is SSH_PORT, else the listen port, and port 22 gives
// the short scp-like form git@host:owner/name.git.
func (c *Config) SSHCloneURL(fullName string) string {
	host := c.Server.SSHDomain
	port := c.Server.SSHPort
	if h, p, err := net.SplitHostPort(c.SSHAddr); err == nil && port == 0 {
		port, _ = strconv.Atoi(p)
		if host == "" && h != "" && h != "0.0.0.0" && h != "::" {
			host = h
		}
	}
	if u, err := url.Parse(c.RootURL); err == nil && c.Server.SSHDomain == "" && u.Hostname() != "" {
		host = u.Hostname()
	}
	if port == 0 || port == 22 {
		return fmt.Sprintf("git@%s:%s.git", host, fullName)
	}
	return fmt.Sprintf("ssh://git@%s/%s.git", net.JoinHostPort(host, strconv.Itoa(port)), fullName)
}
