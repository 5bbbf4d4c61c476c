package sshd

import (
	"testing"
	"time"
)

// On Linux the round trip of a connection is known once the handshake is
// done, so downloads to OpenSSH clients are limited.
func TestMinRTTKnownAfterTheHandshake(t *testing.T) {
	p := newChannelPair(t, "")
	rtt, ok := minRTT(p.serverConn)
	if !ok {
		t.Fatal("no round trip measured on a loopback connection after the SSH handshake")
	}
	if rtt <= 0 || rtt > 100*time.Millisecond {
		t.Fatalf("loopback round trip %v", rtt)
	}
	if _, ok := minRTT(nil); ok {
		t.Fatal("a round trip for no connection")
	}
}
