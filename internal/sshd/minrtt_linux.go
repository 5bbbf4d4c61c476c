package sshd

import (
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// minRTT is the shortest round trip the kernel has measured on a TCP
// connection; false when it has none (no sample yet, or a kernel older
// than 4.9 that does not report it).
func minRTT(nc net.Conn) (time.Duration, bool) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return 0, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, false
	}
	var info *unix.TCPInfo
	if raw.Control(func(fd uintptr) {
		info, err = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
	}) != nil || err != nil {
		return 0, false
	}
	if info.Min_rtt == 0 || info.Min_rtt == ^uint32(0) {
		return 0, false
	}
	return time.Duration(info.Min_rtt) * time.Microsecond, true
}
