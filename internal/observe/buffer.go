package observe

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// LogFlushEvery is how often a serving process writes its buffered log lines.
const LogFlushEvery = 100 * time.Millisecond

// BufferedWriter batches log lines: it writes to the underlying writer when
// 32 KiB have gathered and at least every interval, instead of once per
// line (one system call saved per request). Close writes what is left.
type BufferedWriter struct {
	mu   sync.Mutex
	buf  *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

// NewBufferedWriter starts a writer that flushes into w every interval.
func NewBufferedWriter(w io.Writer, interval time.Duration) *BufferedWriter {
	b := &BufferedWriter{buf: bufio.NewWriterSize(w, 32<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				_ = b.Flush()
			case <-b.stop:
				return
			}
		}
	}()
	return b
}

// Write buffers p, which a logger hands over as whole lines.
func (b *BufferedWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Flush writes the buffered lines now.
func (b *BufferedWriter) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Flush()
}

// Close stops the periodic flushes and writes what is left.
func (b *BufferedWriter) Close() error {
	select {
	case <-b.stop:
	default:
		close(b.stop)
	}
	<-b.done
	return b.Flush()
}
