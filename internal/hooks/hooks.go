// Package hooks connects git's server-side hooks to the running Cairn: the
// hook scripts hold no logic and run `cairn hook <name>`, which posts the
// pushed ref updates to a private endpoint of the server that decides and
// records. One call per push, whatever the number of refs.
package hooks

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Environment variables a hook process receives from the server that ran git.
const (
	EnvURL      = "CAIRN_INTERNAL_URL"
	EnvToken    = "CAIRN_INTERNAL_TOKEN"
	EnvRepoID   = "CAIRN_REPO_ID"
	EnvPusherID = "CAIRN_PUSHER_ID"
	EnvKeyID    = "CAIRN_DEPLOY_KEY_ID"
	// EnvPullsOnly is "1" when the pusher may not write the repository's
	// code and may only open pull requests by pushing to refs/for/ (AGit).
	EnvPullsOnly = "CAIRN_PUSH_PULLS_ONLY"
)

// RefUpdate is one line of a pre- or post-receive hook's input.
type RefUpdate struct {
	OldSHA string `json:"old"`
	NewSHA string `json:"new"`
	Ref    string `json:"ref"`
}

// Request is what a hook sends to the server.
type Request struct {
	RepoID      int64 `json:"repo_id"`
	PusherID    int64 `json:"pusher_id"`
	DeployKeyID int64 `json:"deploy_key_id"`
	// PullsOnly: the pusher may only push to refs/for/ (see EnvPullsOnly).
	PullsOnly bool `json:"pulls_only,omitempty"`
	// PullRequestID is set when Cairn itself moves the base branch to merge
	// that pull request: rules check who may merge rather than who may push.
	PullRequestID int64       `json:"pull_request_id,omitempty"`
	Updates       []RefUpdate `json:"updates"`
	// ObjectDirs is where a push's objects are while pre-receive runs
	// (git's quarantine, known only from the hook's environment): git
	// commands reading them must get these paths as environment.
	ObjectDirs ObjectDirs `json:"object_dirs,omitzero"`
}

// ObjectDirs are git's GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES
// and GIT_QUARANTINE_PATH as a hook sees them, made absolute.
type ObjectDirs struct {
	ObjectDirectory string `json:"object_directory,omitempty"`
	Alternates      string `json:"alternates,omitempty"`
	QuarantinePath  string `json:"quarantine_path,omitempty"`
}

// objectDirsFromEnv reads ObjectDirs from a hook's environment; relative
// paths are made absolute against the hook's working directory.
func objectDirsFromEnv(getenv func(string) string) ObjectDirs {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	var alts []string
	for _, a := range filepath.SplitList(getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES")) {
		if a != "" {
			alts = append(alts, abs(a))
		}
	}
	return ObjectDirs{ObjectDirectory: abs(getenv("GIT_OBJECT_DIRECTORY")),
		Alternates: strings.Join(alts, string(filepath.ListSeparator)), QuarantinePath: abs(getenv("GIT_QUARANTINE_PATH"))}
}

// Response is the server's decision; Message is shown to the pusher.
type Response struct {
	Allowed bool   `json:"allowed"`
	Message string `json:"message"`
}

// Decider is implemented by the repository service: it checks a push before
// git applies it and records it after.
type Decider interface {
	PreReceive(ctx context.Context, req Request) (Response, error)
	PostReceive(ctx context.Context, req Request) (Response, error)
}

// Server is the private endpoint hooks call, plus what git processes need to reach it.
type Server struct {
	decider    Decider
	procRecv   ProcReceiver
	token      string
	url        string
	hooksDir   string
	executable string
}

// EnvExecutable names, in the environment of a receive-pack Cairn starts, the
// binary of the serving process: the hook scripts run it first.
const EnvExecutable = "CAIRN_HOOK_EXECUTABLE"

// NewServer creates the endpoint with a fresh secret token (it never leaves
// the process except in the environment of git processes Cairn starts).
// executable is the binary of the serving process; Install writes the hook
// scripts naming it, which only `cairn serve` does.
func NewServer(decider Decider, dataDir, executable, httpAddr string) (*Server, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	host, port, err := splitAddr(httpAddr)
	if err != nil {
		return nil, err
	}
	return &Server{decider: decider, token: hex.EncodeToString(b), hooksDir: filepath.Join(dataDir, "hooks"),
		url: "http://" + host + ":" + port + "/api/internal/hook/", executable: executable}, nil
}

// SetAddr points the hooks at addr (host:port) instead: the serving
// process's own loopback listener, which outlives the public one while a
// shutdown waits for pushes. Call it before any push runs.
func (s *Server) SetAddr(addr string) error {
	host, port, err := splitAddr(addr)
	if err != nil {
		return err
	}
	s.url = "http://" + host + ":" + port + "/api/internal/hook/"
	return nil
}

func splitAddr(addr string) (string, string, error) {
	i := strings.LastIndex(addr, ":")
	if i < 0 {
		return "", "", fmt.Errorf("hooks: address %q has no port", addr)
	}
	host, port := addr[:i], addr[i+1:]
	switch host {
	case "", "0.0.0.0", "[::]", "::":
		host = "127.0.0.1"
	}
	return host, port, nil
}

// Install writes the hook scripts naming the serving binary.
func (s *Server) Install() error { return WriteScripts(filepath.Dir(s.hooksDir), s.executable) }

// scriptNames are the hook scripts Cairn writes.
func scriptNames() []string { return []string{"pre-receive", "proc-receive", "post-receive"} }

// WriteScripts writes <dataDir>/hooks/{pre,proc,post}-receive (when they differ
// from what is on disk) naming executable, for `cairn serve` and `cairn admin
// regenerate hooks`.
func WriteScripts(dataDir, executable string) error {
	dir := filepath.Join(dataDir, "hooks")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	for _, name := range scriptNames() {
		script := Script(executable, name)
		path := filepath.Join(dir, name)
		if old, err := os.ReadFile(path); err == nil && string(old) == script {
			continue
		}
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(script), 0o755); err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
	}
	return nil
}

// Script is the text of hook name: it runs `cairn hook <name>` with the
// binary of the server that started git (EnvExecutable), else with the
// binary that wrote the script, and when neither can be run it says so and
// what to run, instead of git's bare "hook declined".
func Script(executable, name string) string {
	return fmt.Sprintf(`#!/bin/sh
# Written by Cairn (cairn serve, or cairn admin regenerate hooks): hands the push to the running server.
written=%[2]s
for cairn in "$%[1]s" "$written"; do
	if [ -n "$cairn" ] && [ -x "$cairn" ]; then
		exec "$cairn" hook %[3]s
	fi
done
echo "Cairn: the %[3]s hook cannot run the cairn binary $written (it is missing or not executable)." >&2
echo "Cairn: an administrator must run 'cairn admin regenerate hooks' with the installed binary, or restart 'cairn serve'." >&2
exit 1
`, EnvExecutable, shellQuote(executable), name)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// checkScripts logs (and, when a script is missing, rewrites) what would make
// the hooks of the next push fail: run before every receive-pack.
func (s *Server) checkScripts() {
	for _, name := range scriptNames() {
		if _, err := os.Stat(filepath.Join(s.hooksDir, name)); err != nil {
			slog.Error("hooks: a hook script is missing; writing it again", "script", name, "dir", s.hooksDir, "err", err)
			if err := s.Install(); err != nil {
				slog.Error("hooks: cannot write the hook scripts: pushes will fail", "dir", s.hooksDir, "err", err)
			}
			break
		}
	}
	if _, err := os.Stat(s.executable); err != nil {
		slog.Error("hooks: the binary of this server is gone; pushes run the binary named in the hook scripts, "+
			"and fail if it is gone too: run 'cairn admin regenerate hooks' or restart 'cairn serve'",
			"executable", s.executable, "err", err)
	}
}

// Env returns what a receive-pack process needs so its hooks reach this
// server: the hooks directory and the AGit settings (as git configuration)
// and the push's identity.
func (s *Server) Env(repoID, pusherID, deployKeyID int64) []string {
	return s.env(repoID, pusherID, deployKeyID, false)
}

// EnvPullsOnly is Env for a pusher who may read but not write the
// repository's code: only pushes to refs/for/ (which open or update pull
// requests) get past the pre-receive hook.
func (s *Server) EnvPullsOnly(repoID, pusherID int64) []string {
	return s.env(repoID, pusherID, 0, true)
}

func (s *Server) env(repoID, pusherID, deployKeyID int64, pullsOnly bool) []string {
	s.checkScripts()
	env := configEnv(s.receivePackConfig())
	env = append(env,
		EnvURL+"="+s.url, EnvToken+"="+s.token, EnvExecutable+"="+s.executable,
		EnvRepoID+"="+strconv.FormatInt(repoID, 10),
		EnvPusherID+"="+strconv.FormatInt(pusherID, 10),
		EnvKeyID+"="+strconv.FormatInt(deployKeyID, 10),
	)
	if pullsOnly {
		env = append(env, EnvPullsOnly+"=1")
	}
	return env
}

// receivePackConfig is all the git configuration a receive-pack Cairn
// starts gets: Cairn's hooks, refs/for/ handed to the proc-receive hook
// (AGit: nothing is ever stored there), and push options (-o topic=...).
func (s *Server) receivePackConfig() [][2]string {
	return [][2]string{
		{"core.hooksPath", s.hooksDir},
		{"receive.procReceiveRefs", "refs/for"},
		{"receive.advertisePushOptions", "true"},
	}
}

// configEnv renders key/value pairs as one GIT_CONFIG_COUNT list.
func configEnv(kv [][2]string) []string {
	env := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(kv))}
	for i, c := range kv {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+c[0], "GIT_CONFIG_VALUE_"+n+"="+c[1])
	}
	return env
}

// ServeHTTP handles POST /api/internal/hook/{pre-receive,proc-receive,post-receive}.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	got := r.Header.Get("X-Cairn-Internal-Token")
	if r.Method != http.MethodPost || subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
		http.NotFound(w, r)
		return
	}
	if strings.TrimPrefix(r.URL.Path, "/api/internal/hook/") == "proc-receive" {
		s.serveProcReceive(w, r)
		return
	}
	var req Request
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&req); err != nil {
		slog.Error("hooks: unreadable request from a hook", "err", err)
		http.Error(w, "bad hook request", http.StatusBadRequest)
		return
	}
	var resp Response
	var err error
	switch strings.TrimPrefix(r.URL.Path, "/api/internal/hook/") {
	case "pre-receive":
		resp, err = s.decider.PreReceive(r.Context(), req)
	case "post-receive":
		resp, err = s.decider.PostReceive(r.Context(), req)
	default:
		http.NotFound(w, r)
		return
	}
	if err == nil && !resp.Allowed {
		// The transport saw a push it could not judge (a reader may push
		// to refs/for/): the refusal is logged here.
		slog.Warn("refused push", "hook", strings.TrimPrefix(r.URL.Path, "/api/internal/hook/"),
			"repo_id", req.RepoID, "pusher_id", req.PusherID, "reason", resp.Message)
	}
	if err != nil {
		slog.Error("hooks: checking a push failed", "hook", strings.TrimPrefix(r.URL.Path, "/api/internal/hook/"),
			"repo_id", req.RepoID, "pusher_id", req.PusherID, "err", err)
		resp = Response{Allowed: false, Message: "internal error: " + err.Error()}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// readUpdates parses a hook's standard input: one "<old> <new> <ref>" line
// per ref, object names of 40 (SHA-1) or 64 (SHA-256) lower-case hex digits.
// Fields are split at single spaces, as git writes them, so a ref name with
// other white space in it (git allows U+00A0) stays whole. Any other line is
// an error: the push is refused rather than a ref let through unchecked.
func readUpdates(r io.Reader) ([]RefUpdate, error) {
	var out []RefUpdate
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		f := strings.Split(sc.Text(), " ")
		if len(f) != 3 || !objectName(f[0]) || len(f[1]) != len(f[0]) || !objectName(f[1]) || !refName(f[2]) {
			return nil, fmt.Errorf("line %d is not \"<old> <new> <ref>\"", n)
		}
		out = append(out, RefUpdate{OldSHA: f[0], NewSHA: f[1], Ref: f[2]})
	}
	return out, sc.Err()
}

// objectName reports a full SHA-1 or SHA-256 object name in lower-case hex.
func objectName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// refName reports a non-empty name without ASCII spaces or control
// characters, which git never puts in a ref name.
func refName(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return false
		}
	}
	return s != ""
}

// Run is `cairn hook <name>`: it reads git's hook input, asks the server and
// exits non-zero (with the server's message on stderr) when the push is refused.
func Run(ctx context.Context, name string, stdin io.Reader, stderr io.Writer, getenv func(string) string) error {
	url, token := getenv(EnvURL), getenv(EnvToken)
	if url == "" || token == "" {
		// Not started by Cairn (someone ran git in the repository directly): allow.
		return nil
	}
	req := Request{}
	req.RepoID, _ = strconv.ParseInt(getenv(EnvRepoID), 10, 64)
	req.PusherID, _ = strconv.ParseInt(getenv(EnvPusherID), 10, 64)
	req.DeployKeyID, _ = strconv.ParseInt(getenv(EnvKeyID), 10, 64)
	req.PullsOnly = getenv(EnvPullsOnly) == "1"
	if name == "pre-receive" {
		req.ObjectDirs = objectDirsFromEnv(getenv)
	}
	updates, err := readUpdates(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "Cairn: cannot read the ref updates from git:", err)
		return errors.New("hook failed")
	}
	req.Updates = updates
	body, _ := json.Marshal(req)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url+name, bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header.Set("X-Cairn-Internal-Token", token)
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		fmt.Fprintln(stderr, "Cairn: cannot reach the server to check this push:", err)
		return errors.New("hook failed")
	}
	defer resp.Body.Close()
	var out Response
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		fmt.Fprintln(stderr, "Cairn: unexpected answer from the server:", resp.Status)
		return errors.New("hook failed")
	}
	if out.Message != "" {
		fmt.Fprintln(stderr, out.Message)
	}
	if !out.Allowed {
		return errors.New("push refused")
	}
	return nil
}
