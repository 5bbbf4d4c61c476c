package storage

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const key1 = "0123abcd-4567-89ab-cdef-0123456789ab"

func TestValidKey(t *testing.T) {
	for _, c := range []struct {
		key string
		ok  bool
	}{
		{key1, true},
		{"0123ABCD-4567-89ab-cdef-0123456789ab", false},
		{"../../../../etc/passwd-xxxxxxxxxxxxxxxxx", false},
		{"0123abcd-4567-89ab-cdef-0123456789a", false},
		{"0123abcd_4567-89ab-cdef-0123456789ab", false},
		{"", false},
	} {
		if got := ValidKey(c.key); got != c.ok {
			t.Errorf("ValidKey(%q) = %v, want %v", c.key, got, c.ok)
		}
	}
}

func TestLocalRoundTrip(t *testing.T) {
	ctx := context.Background()
	l := NewLocal(t.TempDir())
	n, err := l.Put(ctx, key1, strings.NewReader("hello"))
	if err != nil || n != 5 {
		t.Fatalf("Put = %d, %v", n, err)
	}
	info, err := l.Stat(ctx, key1)
	if err != nil || info.Size != 5 {
		t.Fatalf("Stat = %+v, %v", info, err)
	}
	f, err := l.Open(ctx, key1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(1, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "ello" {
		t.Fatalf("read %q", b)
	}
	if err := l.Delete(ctx, key1); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(ctx, key1); err != nil {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := l.Open(ctx, key1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open after delete: %v", err)
	}
	if _, err := l.Stat(ctx, key1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Stat after delete: %v", err)
	}
}

type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n > 0 {
		f.n--
		return copy(p, "data"), nil
	}
	return 0, errors.New("client went away")
}

func TestLocalFailedPutLeavesNothing(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	l := NewLocal(root)
	if _, err := l.Put(ctx, key1, &failingReader{n: 3}); err == nil {
		t.Fatal("Put with a failing reader succeeded")
	}
	if _, err := l.Stat(ctx, key1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("partial object visible: %v", err)
	}
	left, _ := os.ReadDir(filepath.Join(root, "tmp"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.Put(cctx, key1, strings.NewReader("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put with a cancelled context: %v", err)
	}
}

func TestLocalRejectsBadKeys(t *testing.T) {
	ctx := context.Background()
	l := NewLocal(t.TempDir())
	for _, k := range []string{"../x", "a/b", "", "-rf"} {
		if _, err := l.Put(ctx, k, strings.NewReader("x")); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Put(%q) = %v", k, err)
		}
		if _, err := l.Open(ctx, k); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Open(%q) = %v", k, err)
		}
		if err := l.Delete(ctx, k); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Delete(%q) = %v", k, err)
		}
	}
}
