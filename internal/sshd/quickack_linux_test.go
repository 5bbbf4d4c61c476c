package sshd

import (
	"net"
	"syscall"
	"testing"
)

// TestQuickAckRearmedAfterRead checks that the wrapper keeps TCP_QUICKACK on
// after each read, which Linux would otherwise turn off by itself.
func TestQuickAckRearmedAfterRead(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	nc, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	wrapped := quickAck(nc)
	defer wrapped.Close()
	q, ok := wrapped.(*quickAckConn)
	if !ok {
		t.Fatalf("quickAck returned %T, want *quickAckConn", wrapped)
	}
	quickack := func() int {
		var v int
		err := q.raw.Control(func(fd uintptr) {
			v, err = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_QUICKACK)
		})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i := range 3 {
		// Clearing the option stands in for the kernel leaving quick-ack
		// mode; the next read must turn it back on.
		_ = q.raw.Control(func(fd uintptr) {
			_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_QUICKACK, 0)
		})
		if _, err := client.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 8)
		if _, err := wrapped.Read(buf); err != nil {
			t.Fatal(err)
		}
		if got := quickack(); got != 1 {
			t.Fatalf("read %d: TCP_QUICKACK = %d after a read, want 1", i, got)
		}
	}
}

func TestQuickAckLeavesOtherConnections(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if got := quickAck(a); got != a {
		t.Fatalf("quickAck wrapped a non-TCP connection: %T", got)
	}
}
