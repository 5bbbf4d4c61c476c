package hooks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ProcReceiveRequest is what the proc-receive hook sends: the commands git
// hands to it (those under refs/for/, see receivePackConfig) and the push
// options (-o key=value, or -o key), in the order given.
type ProcReceiveRequest struct {
	Request
	Options []string `json:"options"`
}

// ProcReceiveResult is the outcome of one command, in the order of the
// request's updates.
type ProcReceiveResult struct {
	// Ref is the command's reference (refs/for/...).
	Ref string `json:"ref"`
	// Error refuses the command with this one-line reason.
	Error string `json:"error,omitempty"`
	// FallThrough lets git itself execute the command.
	FallThrough bool `json:"fall_through,omitempty"`
	// UpdatedRef is the reference really updated, from OldSHA ("" or zero
	// when it is new) to NewSHA; Forced marks a non-fast-forward update.
	UpdatedRef string `json:"updated_ref,omitempty"`
	OldSHA     string `json:"old,omitempty"`
	NewSHA     string `json:"new,omitempty"`
	Forced     bool   `json:"forced,omitempty"`
	// URL is the pull request to show the pusher, if any.
	URL string `json:"url,omitempty"`
}

// ProcReceiveResponse answers a ProcReceiveRequest.
type ProcReceiveResponse struct {
	Results []ProcReceiveResult `json:"results"`
}

// ProcReceiver executes the commands of the proc-receive hook (the pull
// request service: AGit).
type ProcReceiver interface {
	ProcReceive(ctx context.Context, req ProcReceiveRequest) (ProcReceiveResponse, error)
}

// SetProcReceiver names what executes refs/for/ pushes; call it only while
// wiring. Without one, such pushes are refused.
func (s *Server) SetProcReceiver(p ProcReceiver) { s.procRecv = p }

// serveProcReceive handles POST /api/internal/hook/proc-receive. Every
// command gets a result: an error of the receiver refuses them all.
func (s *Server) serveProcReceive(w http.ResponseWriter, r *http.Request) {
	var req ProcReceiveRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&req); err != nil {
		slog.Error("hooks: unreadable request from a hook", "err", err)
		http.Error(w, "bad hook request", http.StatusBadRequest)
		return
	}
	var resp ProcReceiveResponse
	var err error
	if s.procRecv == nil {
		err = errors.New("pushing to refs/for/ is not available")
	} else {
		resp, err = s.procRecv.ProcReceive(r.Context(), req)
	}
	if err == nil && len(resp.Results) != len(req.Updates) {
		err = fmt.Errorf("%d results for %d commands", len(resp.Results), len(req.Updates))
	}
	if err != nil {
		slog.Error("hooks: proc-receive failed", "repo_id", req.RepoID, "pusher_id", req.PusherID, "err", err)
		resp.Results = make([]ProcReceiveResult, len(req.Updates))
		for i, u := range req.Updates {
			resp.Results[i] = ProcReceiveResult{Ref: u.Ref, Error: "internal error"}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// maxPktData is the largest payload of one pkt-line.
const maxPktData = 65516

// readPkt reads one pkt-line: its payload, or flush true for a flush-pkt.
func readPkt(r *bufio.Reader) (data string, flush bool, err error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return "", false, err
	}
	n, err := strconv.ParseUint(string(head[:]), 16, 16)
	if err != nil {
		return "", false, fmt.Errorf("bad pkt-line length %q", head[:])
	}
	if n == 0 {
		return "", true, nil
	}
	if n <= 4 || n-4 > maxPktData {
		return "", false, fmt.Errorf("bad pkt-line length %d", n)
	}
	buf := make([]byte, n-4)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", false, err
	}
	return string(buf), false, nil
}

// pktWriter frames pkt-lines, keeping the first error; a flush-pkt also
// sends what is buffered, since git waits for it.
type pktWriter struct {
	w   *bufio.Writer
	err error
}

func (p *pktWriter) line(s string) {
	if len(s) > maxPktData {
		s = s[:maxPktData]
	}
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, "%04x%s", len(s)+4, s)
	}
}

func (p *pktWriter) flush() {
	if p.err == nil {
		_, p.err = p.w.WriteString("0000")
	}
	if p.err == nil {
		p.err = p.w.Flush()
	}
}

// procInput is what git sends the proc-receive hook.
type procInput struct {
	updates []RefUpdate
	options []string
}

// readProcInput runs the proc-receive protocol (version 1) up to the
// point where the hook must report: version and features, commands,
// push options. See githooks(5), proc-receive.
func readProcInput(r *bufio.Reader, w *pktWriter) (procInput, error) {
	var in procInput
	line, flush, err := readPkt(r)
	if err != nil {
		return in, err
	}
	if flush {
		return in, errors.New("no version line")
	}
	version, features, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\x00")
	if version != "version=1" {
		return in, fmt.Errorf("unsupported protocol %q", version)
	}
	pushOptions := false
	for _, f := range strings.Fields(features) {
		if f == "push-options" {
			pushOptions = true
		}
	}
	if _, flush, err = readPkt(r); err != nil || !flush {
		return in, fmt.Errorf("no flush after the version: %v", err)
	}
	if pushOptions {
		w.line("version=1\x00push-options\n")
	} else {
		w.line("version=1\n")
	}
	w.flush()
	if w.err != nil {
		return in, w.err
	}
	for {
		line, flush, err := readPkt(r)
		if err != nil {
			return in, err
		}
		if flush {
			break
		}
		f := strings.Split(strings.TrimSuffix(line, "\n"), " ")
		if len(f) != 3 || !objectName(f[0]) || len(f[1]) != len(f[0]) || !objectName(f[1]) || !refName(f[2]) {
			return in, fmt.Errorf("bad command %q", line)
		}
		in.updates = append(in.updates, RefUpdate{OldSHA: f[0], NewSHA: f[1], Ref: f[2]})
	}
	if pushOptions {
		for {
			line, flush, err := readPkt(r)
			if err != nil {
				return in, err
			}
			if flush {
				break
			}
			in.options = append(in.options, strings.TrimSuffix(line, "\n"))
		}
	}
	return in, nil
}

// writeProcReport sends the results, one per command in order.
func writeProcReport(w *pktWriter, results []ProcReceiveResult) {
	for _, res := range results {
		switch {
		case res.Error != "":
			w.line("ng " + res.Ref + " " + oneLine(res.Error))
		case res.FallThrough:
			w.line("ok " + res.Ref)
			w.line("option fall-through")
		default:
			w.line("ok " + res.Ref)
			if res.UpdatedRef != "" && res.UpdatedRef != res.Ref {
				w.line("option refname " + res.UpdatedRef)
			}
			if res.OldSHA != "" && strings.Trim(res.OldSHA, "0") != "" {
				w.line("option old-oid " + res.OldSHA)
			}
			if res.NewSHA != "" {
				w.line("option new-oid " + res.NewSHA)
			}
			if res.Forced {
				w.line("option forced-update")
			}
		}
	}
	w.flush()
}

// oneLine keeps a reason on one line, as the report needs.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// RunProcReceive is `cairn hook proc-receive`: it speaks git's
// proc-receive protocol on stdin and stdout, hands the commands and push
// options to the server, reports its results to git and shows the pushed
// pull requests' addresses on stderr (the pusher sees them as "remote:").
func RunProcReceive(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	w := &pktWriter{w: bufio.NewWriter(stdout)}
	in, err := readProcInput(bufio.NewReader(stdin), w)
	if err != nil {
		fmt.Fprintln(stderr, "Cairn: proc-receive:", err)
		return errors.New("hook failed")
	}
	results, msg := askProcReceive(ctx, in, getenv)
	if msg != "" {
		fmt.Fprintln(stderr, msg)
	}
	writeProcReport(w, results)
	if w.err != nil {
		return w.err
	}
	for _, res := range results {
		if res.Error == "" && res.URL != "" {
			fmt.Fprintf(stderr, "\nVisit the existing pull request:\n  %s\n\n", res.URL)
		}
	}
	return nil
}

// askProcReceive posts the commands to the server. When it cannot answer,
// every command is refused and the returned message says why.
func askProcReceive(ctx context.Context, in procInput, getenv func(string) string) ([]ProcReceiveResult, string) {
	refuse := func(reason, msg string) ([]ProcReceiveResult, string) {
		out := make([]ProcReceiveResult, len(in.updates))
		for i, u := range in.updates {
			out[i] = ProcReceiveResult{Ref: u.Ref, Error: reason}
		}
		return out, msg
	}
	url, token := getenv(EnvURL), getenv(EnvToken)
	if url == "" || token == "" {
		return refuse("not started by Cairn", "")
	}
	req := ProcReceiveRequest{Options: in.options}
	req.RepoID, _ = strconv.ParseInt(getenv(EnvRepoID), 10, 64)
	req.PusherID, _ = strconv.ParseInt(getenv(EnvPusherID), 10, 64)
	req.DeployKeyID, _ = strconv.ParseInt(getenv(EnvKeyID), 10, 64)
	req.PullsOnly = getenv(EnvPullsOnly) == "1"
	req.Updates = in.updates
	body, _ := json.Marshal(req)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"proc-receive", bytes.NewReader(body))
	if err != nil {
		return refuse("internal error", "Cairn: "+err.Error())
	}
	hreq.Header.Set("X-Cairn-Internal-Token", token)
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		return refuse("cannot reach the server", "Cairn: cannot reach the server to handle this push: "+err.Error())
	}
	defer resp.Body.Close()
	var out ProcReceiveResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || len(out.Results) != len(in.updates) {
		return refuse("internal error", "Cairn: unexpected answer from the server: "+resp.Status)
	}
	for i := range out.Results {
		// git matches the report to the commands by their reference.
		out.Results[i].Ref = in.updates[i].Ref
	}
	return out.Results, ""
}
