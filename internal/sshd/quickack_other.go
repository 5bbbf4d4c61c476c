//go:build !linux

package sshd

import "net"

// quickAck leaves nc as it is: TCP_QUICKACK is a Linux option.
func quickAck(nc net.Conn) net.Conn { return nc }
