package issue

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/cairn-forge/cairn/internal/storage"
)

func TestCheckAttachmentType(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	text := []byte("hello")
	for _, c := range []struct {
		allowed []string
		name    string
		head    []byte
		ok      bool
	}{
		{nil, "anything.exe", text, true},
		{[]string{".txt", ".png"}, "a.TXT", text, true},
		{[]string{".txt"}, "a.exe", text, false},
		{[]string{".txt"}, "noext", text, false},
		{[]string{"image/png"}, "shot.bin", png, true},
		{[]string{"image/*"}, "shot.bin", png, true},
		{[]string{"image/*"}, "fake.png", text, false},
		{[]string{"image/*"}, "shot.png", nil, false}, // a rename: only extensions count
		{[]string{"*/*"}, "x.exe", nil, true},
		{[]string{" .LOG | .md "}, "a.md", nil, true},
	} {
		err := CheckAttachmentType(c.allowed, c.name, c.head)
		if (err == nil) != c.ok {
			t.Errorf("CheckAttachmentType(%v, %q) = %v, want ok=%v", c.allowed, c.name, err, c.ok)
		}
	}
}

func TestCleanAttachmentName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"notes.txt", "notes.txt"},
		{"../../etc/passwd", "passwd"},
		{`C:\Users\me\report.pdf`, "report.pdf"},
		{"  spaced.md ", "spaced.md"},
		{"", ""},
		{"dir/", ""},
		{"..", ""},
		{"bell\a.txt", ""},
		{strings.Repeat("n", 256), ""},
	} {
		got, err := CleanAttachmentName(c.in)
		if c.want == "" {
			if err == nil {
				t.Errorf("CleanAttachmentName(%q) = %q, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("CleanAttachmentName(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestLimitedReader(t *testing.T) {
	for _, c := range []struct {
		size, max int64
		tooLarge  bool
	}{{10, 10, false}, {11, 10, true}, {0, 0, false}, {1, 0, true}, {5000, -1, false}} {
		n, err := io.Copy(io.Discard, &limitedReader{r: strings.NewReader(strings.Repeat("x", int(c.size))), left: c.max})
		if got := errors.Is(err, errTooLarge); got != c.tooLarge {
			t.Errorf("size %d max %d: err %v", c.size, c.max, err)
		}
		if !c.tooLarge && n != c.size {
			t.Errorf("size %d max %d: copied %d", c.size, c.max, n)
		}
	}
}

// TestUploadKeys: the keys StoreUpload files uploads under are valid
// storage keys.
func TestUploadKeys(t *testing.T) {
	for i := 0; i < 100; i++ {
		if u := uuid.NewString(); !storage.ValidKey(u) || u[14] != '4' {
			t.Fatalf("uuid %q is not a storage key", u)
		}
	}
}
