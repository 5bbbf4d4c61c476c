package sshd

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

func TestInFlightLimit(t *testing.T) {
	const window = 2 << 20
	for _, tc := range []struct {
		window uint32
		rtt    time.Duration
		want   uint32
	}{
		{window, 5 * time.Microsecond, window / 4},   // loopback: a quarter of the window
		{window, 200 * time.Microsecond, window / 4}, // a LAN: still a quarter
		{window, time.Millisecond, (1 << 30) / 1000}, // 1 GiB/s over 1 ms
		{window, 2 * time.Millisecond, 0},            // needs the whole window
		{window, 80 * time.Millisecond, 0},
		{0, 0, 0},
	} {
		if got := inFlightLimit(tc.window, tc.rtt); got != tc.want {
			t.Errorf("inFlightLimit(%d, %v) = %d, want %d", tc.window, tc.rtt, got, tc.want)
		}
	}
}

// channelPair opens a session channel from an x/crypto/ssh client to an
// x/crypto/ssh server over loopback TCP. The client's channel is returned
// unread, so the server's view of its window only grows when the test reads.
type channelPair struct {
	server, client ssh.Channel
	serverConn     net.Conn
}

func newChannelPair(t *testing.T, clientVersion string) channelPair {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{NoClientAuth: true}
	cfg.AddHostKey(signer)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	type accepted struct {
		ch  ssh.Channel
		nc  net.Conn
		err error
	}
	done := make(chan accepted, 1)
	go func() {
		nc, err := l.Accept()
		if err != nil {
			done <- accepted{err: err}
			return
		}
		_, chans, reqs, err := ssh.NewServerConn(nc, cfg)
		if err != nil {
			done <- accepted{err: err}
			return
		}
		go ssh.DiscardRequests(reqs)
		nch := <-chans
		ch, chReqs, err := nch.Accept()
		go ssh.DiscardRequests(chReqs)
		done <- accepted{ch, nc, err}
	}()
	client, err := ssh.Dial("tcp", l.Addr().String(), &ssh.ClientConfig{
		User: "git", HostKeyCallback: ssh.FixedHostKey(signer.PublicKey()), ClientVersion: clientVersion,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	cch, creqs, err := client.OpenChannel("session", nil)
	if err != nil {
		t.Fatal(err)
	}
	go ssh.DiscardRequests(creqs)
	a := <-done
	if a.err != nil {
		t.Fatal(a.err)
	}
	t.Cleanup(func() { a.nc.Close() })
	return channelPair{server: a.ch, client: cch, serverConn: a.nc}
}

// The mirror of x/crypto/ssh's window must match the library in use: this
// fails when an upgrade changes its layout (downloads would then quietly
// use the whole window again).
func TestPeerWindowLayout(t *testing.T) {
	p := newChannelPair(t, "")
	w := peerWindowOf(p.server)
	if w == nil {
		t.Fatal("the window of an x/crypto/ssh channel cannot be read: its layout changed; update peerWindow")
	}
	w.L.Lock()
	win := w.win
	w.L.Unlock()
	// x/crypto/ssh clients open channels with a 2 MiB window.
	if win != 2<<20 {
		t.Fatalf("remaining window %d, want %d", win, 2<<20)
	}
	if _, err := p.server.Write(make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	w.L.Lock()
	win = w.win
	w.L.Unlock()
	if win != 2<<20-1000 {
		t.Fatalf("after a 1000-byte write the window is %d, want %d", win, 2<<20-1000)
	}
	if peerWindowOf(otherChannel{}) != nil || peerWindowOf(nil) != nil {
		t.Fatal("peerWindowOf read a window from a channel that is not x/crypto/ssh's")
	}
}

// otherChannel is an ssh.Channel that is not x/crypto/ssh's.
type otherChannel struct{ ssh.Channel }

// countingWriter counts what reaches the channel.
type countingWriter struct {
	w io.Writer
	n atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// settle waits until the count stops moving and returns it.
func settle(c *countingWriter) int64 {
	last := c.n.Load()
	for {
		time.Sleep(150 * time.Millisecond)
		n := c.n.Load()
		if n == last {
			return n
		}
		last = n
	}
}

// download writes size bytes of a known pattern through w in 32 KiB pieces
// and closes the channel's write side.
func download(ch ssh.Channel, w io.Writer, size int) <-chan error {
	done := make(chan error, 1)
	go func() {
		data := pattern(size)
		for len(data) > 0 {
			n := min(len(data), 32<<10)
			if _, err := w.Write(data[:n]); err != nil {
				done <- err
				return
			}
			data = data[n:]
		}
		done <- ch.CloseWrite()
	}()
	return done
}

// receiveAll reads the client's side to its end, waits for the download
// and checks that every byte arrived.
func (p channelPair) receiveAll(t *testing.T, done <-chan error, size int) {
	t.Helper()
	got, err := io.ReadAll(p.client)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, pattern(size)) {
		t.Fatalf("the client received %d bytes that differ from the %d sent", len(got), size)
	}
}

func pattern(size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

func TestFlowLimiterHoldsBackUntilTheClientReads(t *testing.T) {
	p := newChannelPair(t, "")
	const limit, size = 256 << 10, 6 << 20
	out := &countingWriter{w: p.server}
	f := newFlowLimiter(p.server, out, func(uint32) uint32 { return limit }, time.Minute)
	if f == nil {
		t.Fatal("no limiter for an x/crypto/ssh channel")
	}
	done := download(p.server, f, size)
	// The client reads nothing, so nothing comes back: at most the limit
	// (plus the write that found the limit not yet reached) goes out,
	// where the window alone would let 2 MiB go.
	if sent := settle(out); sent < limit || sent > limit+32<<10 {
		t.Fatalf("%d bytes went out to a client that reads nothing, want the limit (%d)", sent, limit)
	}
	p.receiveAll(t, done, size)
}

func TestFlowLimiterGivesUpOnAStalledClient(t *testing.T) {
	p := newChannelPair(t, "")
	const limit, size = 256 << 10, 3 << 20
	out := &countingWriter{w: p.server}
	f := newFlowLimiter(p.server, out, func(uint32) uint32 { return limit }, 100*time.Millisecond)
	done := download(p.server, f, size)
	// After the stall the limit is dropped and the whole window is used.
	deadline := time.Now().Add(10 * time.Second)
	for out.n.Load() < 2<<20 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if sent := settle(out); sent != 2<<20 {
		t.Fatalf("%d bytes went out after the stall, want the whole window (%d)", sent, 2<<20)
	}
	p.receiveAll(t, done, size)
}

func TestFlowLimiterEndsWhenTheChannelCloses(t *testing.T) {
	p := newChannelPair(t, "")
	f := newFlowLimiter(p.server, p.server, func(uint32) uint32 { return 64 << 10 }, time.Minute)
	done := download(p.server, f, 4<<20)
	time.Sleep(100 * time.Millisecond)
	p.client.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a download to a closed channel succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write held back by the limit did not end when the channel closed")
	}
}

func TestDownloadWriterOnlyForOpenSSH(t *testing.T) {
	p := newChannelPair(t, "")
	if w := downloadWriter(p.server, "SSH-2.0-Go", p.serverConn); w != io.Writer(p.server) {
		t.Fatalf("a Go client's download goes through %T, want the channel itself", w)
	}
	_, known := minRTT(p.serverConn)
	w := downloadWriter(p.server, "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u6", p.serverConn)
	if _, limited := w.(*flowLimiter); limited != known {
		t.Fatalf("an OpenSSH client's download goes through %T (round trip known: %v)", w, known)
	}
}
