package hooks

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeReceiver answers proc-receive requests with fixed results and keeps
// the last request.
type fakeReceiver struct {
	got     ProcReceiveRequest
	results []ProcReceiveResult
}

func (f *fakeReceiver) ProcReceive(_ context.Context, req ProcReceiveRequest) (ProcReceiveResponse, error) {
	f.got = req
	return ProcReceiveResponse{Results: f.results}, nil
}

// TestProcReceiveProtocol plays receive-pack's side of the proc-receive
// protocol over pipes, step by step as git does: the hook must answer the
// version before git sends the commands.
func TestProcReceiveProtocol(t *testing.T) {
	for _, c := range []struct {
		name     string
		features string
		options  []string
		results  []ProcReceiveResult
		want     []string
	}{
		{
			name: "open and refuse", features: "push-options atomic", options: []string{"topic=x", "force-push"},
			results: []ProcReceiveResult{
				{UpdatedRef: "refs/pull/1/head", NewSHA: sha1A, URL: "http://h/o/r/pulls/1"},
				{Error: "topic-branch is not\nset"},
			},
			want: []string{"ok refs/for/main/x", "option refname refs/pull/1/head", "option new-oid " + sha1A,
				"ng refs/for/main ERR", ""},
		},
		{
			name: "update without push options", features: "atomic",
			results: []ProcReceiveResult{
				{UpdatedRef: "refs/pull/2/head", OldSHA: sha1B, NewSHA: sha1A, Forced: true},
				{FallThrough: true},
			},
			want: []string{"ok refs/for/main/x", "option refname refs/pull/2/head", "option old-oid " + sha1B,
				"option new-oid " + sha1A, "option forced-update", "ok refs/for/main", "option fall-through", ""},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			recv := &fakeReceiver{results: c.results}
			srv := &Server{token: "tok", procRecv: recv}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			env := map[string]string{EnvURL: hs.URL + "/api/internal/hook/", EnvToken: "tok", EnvRepoID: "7", EnvPusherID: "3", EnvPullsOnly: "1"}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			var stderr strings.Builder
			done := make(chan error, 1)
			go func() {
				done <- RunProcReceive(context.Background(), inR, outW, &stderr, func(k string) string { return env[k] })
				outW.Close()
			}()
			git := &pktWriter{w: bufio.NewWriter(inW)}
			out := bufio.NewReader(outR)
			git.line("version=1\x00" + c.features + "\n")
			git.flush()
			// The hook answers before it gets anything else.
			wantVersion := "version=1\n"
			if strings.Contains(c.features, "push-options") {
				wantVersion = "version=1\x00push-options\n"
			}
			if got := readAll(t, out, 2); !reflect.DeepEqual(got, []string{wantVersion, ""}) {
				t.Fatalf("version answer %q", got)
			}
			git.line(sha1Z + " " + sha1A + " refs/for/main/x")
			git.line(sha1Z + " " + sha1A + " refs/for/main")
			git.flush()
			if strings.Contains(c.features, "push-options") {
				for _, o := range c.options {
					git.line(o)
				}
				git.flush()
			}
			if git.err != nil {
				t.Fatal(git.err)
			}
			got := readAll(t, out, len(c.want))
			for i := range got {
				got[i] = strings.TrimSuffix(got[i], "\n")
			}
			want := append([]string(nil), c.want...)
			for i, w := range want {
				if strings.HasSuffix(w, " ERR") {
					want[i] = strings.TrimSuffix(w, "ERR") + "topic-branch is not set"
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("report\n%q\nwant\n%q", got, want)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the hook did not end")
			}
			inW.Close()
			if recv.got.RepoID != 7 || recv.got.PusherID != 3 || !recv.got.PullsOnly || len(recv.got.Updates) != 2 ||
				recv.got.Updates[1].Ref != "refs/for/main" || !reflect.DeepEqual(recv.got.Options, c.options) {
				t.Fatalf("request %+v", recv.got)
			}
			for _, r := range c.results {
				if r.URL != "" && !strings.Contains(stderr.String(), "Visit the existing pull request:\n  "+r.URL+"\n") {
					t.Fatalf("stderr %q lacks %s", stderr.String(), r.URL)
				}
			}
		})
	}
}

// readAll reads n pkt-lines ("" for a flush-pkt), failing after a while.
func readAll(t *testing.T, r *bufio.Reader, n int) []string {
	t.Helper()
	type res struct {
		lines []string
		err   error
	}
	ch := make(chan res, 1)
	go func() {
		var out []string
		for len(out) < n {
			line, flush, err := readPkt(r)
			if err != nil {
				ch <- res{out, err}
				return
			}
			if flush {
				line = ""
			}
			out = append(out, line)
		}
		ch <- res{out, nil}
	}()
	select {
	case got := <-ch:
		if got.err != nil {
			t.Fatalf("after %q: %v", got.lines, got.err)
		}
		return got.lines
	case <-time.After(5 * time.Second):
		t.Fatal("the hook does not answer")
	}
	return nil
}

// TestProcReceiveServerErrors: without a receiver, or with a wrong number
// of results, every command is refused rather than left unreported.
func TestProcReceiveServerErrors(t *testing.T) {
	for _, recv := range []ProcReceiver{nil, &fakeReceiver{}} {
		srv := &Server{token: "tok", procRecv: recv}
		body, _ := json.Marshal(ProcReceiveRequest{Request: Request{Updates: []RefUpdate{{sha1Z, sha1A, "refs/for/main/x"}}}})
		req := httptest.NewRequest("POST", "/api/internal/hook/proc-receive", strings.NewReader(string(body)))
		req.Header.Set("X-Cairn-Internal-Token", "tok")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		var resp ProcReceiveResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || len(resp.Results) != 1 || resp.Results[0].Error == "" ||
			resp.Results[0].Ref != "refs/for/main/x" {
			t.Fatalf("receiver %v: %s", recv, rec.Body)
		}
	}
}

// TestReceivePackConfig: one GIT_CONFIG_COUNT list with the hooks
// directory and the AGit settings; the pulls-only flag only when asked.
func TestReceivePackConfig(t *testing.T) {
	s := &Server{hooksDir: filepath.Join(t.TempDir(), "hooks"), executable: "/nonexistent", url: "http://127.0.0.1:1/api/internal/hook/", token: "t"}
	env := strings.Join(s.Env(1, 2, 0), "\n")
	for _, want := range []string{"GIT_CONFIG_COUNT=3", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=" + s.hooksDir,
		"GIT_CONFIG_KEY_1=receive.procReceiveRefs", "GIT_CONFIG_VALUE_1=refs/for",
		"GIT_CONFIG_KEY_2=receive.advertisePushOptions", "GIT_CONFIG_VALUE_2=true"} {
		if !strings.Contains(env+"\n", want+"\n") {
			t.Errorf("Env lacks %q:\n%s", want, env)
		}
	}
	if strings.Contains(env, EnvPullsOnly) {
		t.Errorf("Env has %s", EnvPullsOnly)
	}
	if env := s.EnvPullsOnly(1, 2); !strings.Contains(strings.Join(env, "\n")+"\n", EnvPullsOnly+"=1\n") {
		t.Errorf("EnvPullsOnly lacks the flag: %v", env)
	}
}
