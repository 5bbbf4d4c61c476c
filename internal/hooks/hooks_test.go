package hooks

import (
	"bufio"
	"bytes"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

const (
	sha1A   = "1111111111111111111111111111111111111111"
	sha1B   = "abcdef0123456789abcdef0123456789abcdef01"
	sha1Z   = "0000000000000000000000000000000000000000"
	sha256A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	sha256B = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

func TestReadUpdates(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []RefUpdate
		bad  bool
	}{
		{in: "", want: nil},
		{in: sha1Z + " " + sha1A + " refs/heads/main\n", want: []RefUpdate{{sha1Z, sha1A, "refs/heads/main"}}},
		{in: sha1A + " " + sha1B + " refs/heads/a\n" + sha1B + " " + sha1Z + " refs/tags/v1", want: []RefUpdate{
			{sha1A, sha1B, "refs/heads/a"}, {sha1B, sha1Z, "refs/tags/v1"}}},
		{in: sha256A + " " + sha256B + " refs/heads/main\n", want: []RefUpdate{{sha256A, sha256B, "refs/heads/main"}}},
		// Unicode white space is part of a ref name (strings.Fields split it
		// and the update was dropped, unchecked).
		{in: sha1A + " " + sha1B + " refs/heads/a\u00a0b\n", want: []RefUpdate{{sha1A, sha1B, "refs/heads/a\u00a0b"}}},
		{in: sha1A + " " + sha1B + " refs/heads/x\u2003y\u0085\n", want: []RefUpdate{{sha1A, sha1B, "refs/heads/x\u2003y\u0085"}}},
		// Malformed lines refuse the whole input.
		{in: "\n", bad: true},
		{in: sha1A + " " + sha1B + "\n", bad: true},
		{in: sha1A + " " + sha1B + " \n", bad: true},
		{in: sha1A + "  " + sha1B + " refs/heads/a\n", bad: true},
		{in: sha1A + "\t" + sha1B + " refs/heads/a\n", bad: true},
		{in: sha1A + " " + sha1B + " refs/heads/a b\n", bad: true},
		{in: sha1A + " " + sha1B + " refs/heads/a\x01\n", bad: true},
		{in: strings.ToUpper(sha1B) + " " + sha1A + " refs/heads/a\n", bad: true},
		{in: sha1A[:39] + " " + sha1B + " refs/heads/a\n", bad: true},
		{in: sha1A + " " + sha256A + " refs/heads/a\n", bad: true},
		{in: sha1A + "x " + sha1B + " refs/heads/a\n", bad: true},
		{in: sha1A + " " + sha1B + " refs/heads/a\n" + "garbage\n", bad: true},
		{in: sha1A + " " + sha1B + " refs/heads/" + strings.Repeat("a", 2<<20) + "\n", bad: true},
	} {
		got, err := readUpdates(strings.NewReader(c.in))
		if c.bad {
			if err == nil {
				t.Errorf("%.80q: accepted as %v", c.in, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%.80q = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// FuzzReadUpdates checks that the hook input parser never panics, never
// drops a line, and only returns well-formed updates that read back the same.
func FuzzReadUpdates(f *testing.F) {
	for _, s := range []string{
		"",
		"\n",
		sha1Z + " " + sha1A + " refs/heads/main\n",
		sha1A + " " + sha1B + " refs/heads/a\n" + sha1B + " " + sha1Z + " refs/tags/v1\n",
		sha256A + " " + sha256B + " refs/heads/main",
		sha1A + " " + sha1B + " refs/heads/a\u00a0b\n",
		sha1A + " " + sha1B + " refs/heads/a\r\n",
		sha1A + "  " + sha1B + " refs/heads/a\n",
		sha1A + " " + sha1B + " refs/heads/a b c\n",
		sha1A + " " + sha256A + " refs/heads/a\n",
		strings.ToUpper(sha1A) + " " + sha1B + " HEAD\n",
		"0 0 refs/heads/main\n",
		sha1A + " " + sha1B + " refs/heads/\xff\xfe\n",
	} {
		f.Add([]byte(s))
	}
	fullName := regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := readUpdates(bytes.NewReader(in))
		if err != nil {
			if got != nil {
				t.Fatalf("error %v with updates %v", err, got)
			}
			return
		}
		lines := 0
		sc := bufio.NewScanner(bytes.NewReader(in))
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines++
		}
		if len(got) != lines {
			t.Fatalf("%d lines, %d updates: %v", lines, len(got), got)
		}
		var again bytes.Buffer
		for _, u := range got {
			if !fullName.MatchString(u.OldSHA) || !fullName.MatchString(u.NewSHA) || len(u.OldSHA) != len(u.NewSHA) {
				t.Fatalf("bad object names in %+v", u)
			}
			if u.Ref == "" || strings.ContainsAny(u.Ref, " \t\n\r\x00") {
				t.Fatalf("bad ref in %+v", u)
			}
			again.WriteString(u.OldSHA + " " + u.NewSHA + " " + u.Ref + "\n")
		}
		back, err := readUpdates(&again)
		if err != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("read back %v, %v; want %v", back, err, got)
		}
	})
}
