package observe

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the flusher goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestBufferedWriter(t *testing.T) {
	var out syncBuffer
	w := NewBufferedWriter(&out, 50*time.Millisecond)
	_, _ = w.Write([]byte("one\n"))
	if out.String() != "" {
		t.Fatal("a line went out at once")
	}
	deadline := time.Now().Add(2 * time.Second)
	for out.String() != "one\n" {
		if time.Now().After(deadline) {
			t.Fatalf("not flushed: %q", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	big := strings.Repeat("x", 40<<10) + "\n"
	_, _ = w.Write([]byte(big))
	if !strings.Contains(out.String(), "xxx") {
		t.Error("a line larger than the buffer waited")
	}
	_, _ = w.Write([]byte("last\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "last\n") {
		t.Errorf("Close did not flush: %q", out.String()[len(out.String())-10:])
	}
	_ = w.Close() // twice is fine
}
