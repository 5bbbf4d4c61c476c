package sshd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/hooks"
)

// isPullsOnly reports whether a receive-pack environment lets the pusher
// push only to refs/for/ (hooks.Server.EnvPullsOnly).
func isPullsOnly(env []string) bool { return slices.Contains(env, hooks.EnvPullsOnly+"=1") }

// pullsOnlyGate reads a push's command list (the pkt-lines up to the first
// flush-pkt) from r before git sees it. When every command updates
// refs/for/ it returns the bytes read, to be handed on to git; otherwise
// it returns the refusal. The pre-receive hook checks the same rule: this
// only refuses earlier, before the pack is received, so the pusher gets
// the same message and exit status as other refused SSH pushes.
// Input that is not a plain command list is handed on for git and the
// hook to judge.
func pullsOnlyGate(r *bufio.Reader) (read []byte, refusal string) {
	var buf bytes.Buffer
	for {
		var head [4]byte
		k, err := io.ReadFull(r, head[:])
		buf.Write(head[:k])
		if err != nil {
			return buf.Bytes(), ""
		}
		n, err := strconv.ParseUint(string(head[:]), 16, 16)
		if err != nil || (n > 0 && n <= 4) {
			return buf.Bytes(), ""
		}
		if n == 0 {
			return buf.Bytes(), ""
		}
		line := make([]byte, n-4)
		k, err = io.ReadFull(r, line)
		buf.Write(line[:k])
		if err != nil {
			return buf.Bytes(), ""
		}
		cmd, _, _ := strings.Cut(strings.TrimSuffix(string(line), "\n"), "\x00")
		f := strings.SplitN(cmd, " ", 3)
		if len(f) == 2 && f[0] == "shallow" {
			continue
		}
		if len(f) != 3 {
			return buf.Bytes(), ""
		}
		if !strings.HasPrefix(f[2], "refs/for/") {
			return nil, msgNoPush
		}
	}
}

// gatedStdin feeds git's standard input from the channel through the
// pulls-only gate: a refused push gets an empty command list (git then
// ends without changing anything) and the refusal is sent on refused.
func gatedStdin(pw io.WriteCloser, ch io.Reader, refused chan<- string) {
	defer pw.Close()
	br := bufio.NewReaderSize(ch, 64<<10)
	read, msg := pullsOnlyGate(br)
	if msg != "" {
		refused <- msg
		_, _ = fmt.Fprint(pw, "0000")
		return
	}
	if _, err := pw.Write(read); err != nil {
		return
	}
	_, _ = io.Copy(pw, br)
}
