package sshd

import (
	"net"
	"syscall"
)

// quickAck makes the kernel acknowledge what nc receives at once instead of
// delaying the ACK. OpenSSH clients leave Nagle's algorithm on for
// non-interactive sessions such as git's, so each time they write two
// packets in a row (KEXINIT then the key exchange, NEWKEYS then the service
// request, env then exec) the second waits for the ACK of the first; with
// Linux's delayed ACKs that costs up to 40 ms a time, over 60 ms per
// connection. Linux leaves quick-ack mode on its own, so it is set again
// after every read.
func quickAck(nc net.Conn) net.Conn {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nc
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return nc
	}
	q := &quickAckConn{TCPConn: tc, raw: raw}
	q.set()
	return q
}

// quickAckConn is a TCP connection that re-arms TCP_QUICKACK after reads.
type quickAckConn struct {
	*net.TCPConn
	raw syscall.RawConn
}

func (q *quickAckConn) Read(p []byte) (int, error) {
	n, err := q.TCPConn.Read(p)
	q.set()
	return n, err
}

func (q *quickAckConn) set() {
	_ = q.raw.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_QUICKACK, 1)
	})
}
