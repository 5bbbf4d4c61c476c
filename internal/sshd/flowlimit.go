package sshd

import (
	"io"
	"net"
	"reflect"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/crypto/ssh"
)

// Downloads to OpenSSH clients keep only part of the channel window in
// flight.
//
// OpenSSH grants a session channel a 2 MiB window and keeps what arrives in
// a buffer that the local git then reads. On a fast link git reads slower
// than data arrives (the client's index-pack is the bottleneck), so with the
// whole window in flight that buffer stays nearly full, and OpenSSH then
// grows it for almost every 32 KiB packet: it only compacts a buffer once
// the consumed part is half of it, and it grows by allocating a new buffer,
// copying the old one and clearing it. On a 13 MB clone that is hundreds of
// 2-4 MB copies and about 100,000 page faults in the client, some 150 ms:
// an SSH clone took 1.2× as long as a local one. With a quarter of the
// window in flight the client's buffer settles at a fixed size and the cost
// goes away (bench/git.sh: 1.06×, as over HTTP).
//
// The limit never caps the link below minLinkRate: on a link whose
// round trip needs more in flight than that, the window is used whole.
//
// golang.org/x/crypto/ssh neither exposes a channel's remaining window nor
// lets a server bound it, so peerWindowOf reads it through reflection,
// after checking that the library's window has the layout this file mirrors.
// With any other layout (another version of the library) downloads go out
// the usual way. TestPeerWindowLayout fails when an upgrade changes it.
const (
	inFlightShare = 4       // keep window/inFlightShare in flight
	minLinkRate   = 1 << 30 // bytes per second the limit must always allow
	// stallTimeout drops the limit of a channel whose client sends no
	// window adjustment while the limit holds writes back, so a client with
	// another window policy is never stalled for good.
	stallTimeout = time.Second
)

// peerWindow mirrors the window type of golang.org/x/crypto/ssh: the peer's
// remaining window (win), guarded by the Cond's lock and broadcast on every
// change.
type peerWindow struct {
	*sync.Cond
	win          uint32
	writeWaiters int
	closed       bool
}

// peerWindowOf returns the remaining-window record of a channel accepted
// from golang.org/x/crypto/ssh, or nil when its layout is not the expected
// one.
func peerWindowOf(ch ssh.Channel) *peerWindow {
	v := reflect.ValueOf(ch)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return nil
	}
	e := v.Elem()
	if e.Kind() != reflect.Struct || e.Type().PkgPath() != "golang.org/x/crypto/ssh" || e.Type().Name() != "channel" {
		return nil
	}
	f := e.FieldByName("remoteWin")
	if !f.IsValid() || !sameLayout(f.Type(), reflect.TypeFor[peerWindow]()) {
		return nil
	}
	return (*peerWindow)(unsafe.Pointer(f.UnsafeAddr()))
}

// sameLayout reports whether struct types a and b have the same fields, of
// the same types, at the same offsets.
func sameLayout(a, b reflect.Type) bool {
	if a.Kind() != reflect.Struct || a.Size() != b.Size() || a.NumField() != b.NumField() {
		return false
	}
	for i := range a.NumField() {
		fa, fb := a.Field(i), b.Field(i)
		if fa.Name != fb.Name || fa.Type != fb.Type || fa.Offset != fb.Offset || fa.Anonymous != fb.Anonymous {
			return false
		}
	}
	return true
}

// inFlightLimit is how much of a window of the given size a download keeps
// in flight on a link with the given round trip; 0 means all of it.
func inFlightLimit(window uint32, minRTT time.Duration) uint32 {
	limit := uint64(window) / inFlightShare
	if bdp := uint64(minRTT) * minLinkRate / uint64(time.Second); bdp > limit {
		limit = bdp
	}
	if limit >= uint64(window) {
		return 0
	}
	return uint32(limit)
}

// flowLimiter writes to a channel once no more than the limit is in flight.
type flowLimiter struct {
	out   io.Writer
	win   *peerWindow
	hold  uint32 // the part of the window left unused
	stall time.Duration
	timer *time.Timer
	off   bool // the client stalled: the limit is dropped (guarded by win.L)
}

// newFlowLimiter limits writes to ch (through out, ch or a wrapper of it)
// to limit bytes in flight; it returns nil when the window cannot be read
// or is not larger than the limit.
func newFlowLimiter(ch ssh.Channel, out io.Writer, limit func(window uint32) uint32, stall time.Duration) *flowLimiter {
	w := peerWindowOf(ch)
	if w == nil {
		return nil
	}
	// Nothing has been sent yet: the remaining window is the whole window.
	w.L.Lock()
	window := w.win
	w.L.Unlock()
	n := limit(window)
	if n == 0 || n >= window {
		return nil
	}
	return &flowLimiter{out: out, win: w, hold: window - n, stall: stall}
}

func (f *flowLimiter) Write(p []byte) (int, error) {
	w := f.win
	w.L.Lock()
	if w.win <= f.hold && !w.closed && !f.off {
		if f.timer == nil {
			f.timer = time.AfterFunc(f.stall, f.giveUp)
		} else {
			f.timer.Reset(f.stall)
		}
		for w.win <= f.hold && !w.closed && !f.off {
			w.Wait()
		}
		f.timer.Stop()
	}
	w.L.Unlock()
	return f.out.Write(p)
}

// giveUp drops the limit after a stall.
func (f *flowLimiter) giveUp() {
	f.win.L.Lock()
	f.off = true
	f.win.Broadcast()
	f.win.L.Unlock()
}

// downloadWriter is where a download's output to ch goes: ch behind a
// flowLimiter for OpenSSH clients (whose buffering the limit is for and
// whose window adjustments are known to come early), ch itself otherwise.
func downloadWriter(ch ssh.Channel, clientVersion string, nc net.Conn) io.Writer {
	if !strings.HasPrefix(clientVersion, "SSH-2.0-OpenSSH_") {
		return ch
	}
	rtt, ok := minRTT(nc)
	if !ok {
		return ch
	}
	limit := func(window uint32) uint32 { return inFlightLimit(window, rtt) }
	if f := newFlowLimiter(ch, ch, limit, stallTimeout); f != nil {
		return f
	}
	return ch
}
