package sshd

import (
	"bufio"
	"fmt"
	"strings"
	"testing"
)

func pkt(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }

func TestPullsOnlyGate(t *testing.T) {
	const z, a = "0000000000000000000000000000000000000000", "1111111111111111111111111111111111111111"
	for _, c := range []struct {
		name    string
		in      string
		refused bool
	}{
		{"nothing to push", "0000", false},
		{"refs/for only", pkt(z+" "+a+" refs/for/main/x\x00report-status side-band-64k\n") + pkt(z+" "+a+" refs/for/main\n") + "0000PACK", false},
		{"shallow first", pkt("shallow "+a) + pkt(z+" "+a+" refs/for/main/x\x00report-status") + "0000", false},
		{"a branch", pkt(z+" "+a+" refs/heads/main\x00report-status") + "0000PACK", true},
		{"a branch after refs/for", pkt(z+" "+a+" refs/for/main/x\x00report-status") + pkt(a+" "+z+" refs/tags/v1") + "0000", true},
		{"refs/for without the slash", pkt(z+" "+a+" refs/fork\x00report-status") + "0000", true},
		{"garbage is handed on", "zzzz", false},
		{"short input is handed on", "00", false},
	} {
		r := bufio.NewReader(strings.NewReader(c.in))
		read, msg := pullsOnlyGate(r)
		if (msg != "") != c.refused {
			t.Errorf("%s: refusal %q", c.name, msg)
			continue
		}
		if c.refused {
			continue
		}
		// Nothing is lost: what was read and what is left make the input.
		rest := make([]byte, len(c.in))
		n, _ := r.Read(rest)
		if got := string(read) + string(rest[:n]); got != c.in {
			t.Errorf("%s: handed on %q, want %q", c.name, got, c.in)
		}
	}
}
