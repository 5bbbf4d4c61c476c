// Package githttp serves git's smart HTTP protocol (info/refs, upload-pack,
// receive-pack; protocol v0, v1 and v2), streaming both directions straight
// between the client and the git process.
package githttp

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/observe"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// Handler serves /{owner}/{repo}.git/... requests.
type Handler struct {
	Authn    *auth.Authenticator
	Repos    *repo.Service
	Users    *user.Store
	Access   *access.Checker
	Hooks    *hooks.Server
	Git      *git.Git
	Disabled bool // [repository] DISABLE_HTTP_GIT
	// RequireSignin refuses anonymous clones, even of public repositories
	// ([service] REQUIRE_SIGNIN_VIEW).
	RequireSignin bool
	// Fallback serves requests that are not git requests.
	Fallback http.Handler
	// Metrics counts git operations; nil counts nothing.
	Metrics *observe.Metrics
}

// request is a parsed git HTTP request.
type request struct {
	owner, name string
	action      string // "info/refs", "git-upload-pack", "git-receive-pack"
}

// parse recognizes /{owner}/{repo}[.git]/{action}.
func parse(path string) (request, bool) {
	parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return request{}, false
	}
	switch parts[2] {
	case "info/refs", "git-upload-pack", "git-receive-pack":
	default:
		return request{}, false
	}
	return request{owner: parts[0], name: strings.TrimSuffix(parts[1], ".git"), action: parts[2]}, true
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, ok := parse(r.URL.Path)
	if !ok {
		if h.Fallback != nil {
			h.Fallback.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
		return
	}
	// A fixed route label per action: never the repository's path.
	observe.SetRoute(r.Context(), "/{owner}/{repo}/"+req.action)
	if h.Disabled {
		http.Error(w, "Git over HTTP is disabled on this server.", http.StatusForbidden)
		return
	}
	var svc git.Service
	switch {
	case req.action == "info/refs" && r.Method == http.MethodGet:
		s, ok := git.ParseService(r.URL.Query().Get("service"))
		if !ok || s == git.UploadArchive {
			http.Error(w, "Cairn serves only the smart HTTP protocol: use a git client that sends ?service=git-upload-pack.", http.StatusForbidden)
			return
		}
		svc = s
	case req.action == "git-upload-pack" && r.Method == http.MethodPost:
		svc = git.UploadPack
	case req.action == "git-receive-pack" && r.Method == http.MethodPost:
		svc = git.ReceivePack
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	observe.SetGitService(r.Context(), string(svc))
	h.serve(w, r, req, svc)
}

func (h *Handler) unauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Basic realm="Cairn"`)
	http.Error(w, msg, http.StatusUnauthorized)
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, req request, svc git.Service) {
	ctx := r.Context()
	// Basic auth only: URL tokens are an API convenience and are refused here.
	var id *auth.Identity
	if r.Header.Get("Authorization") != "" {
		var err error
		id, err = h.Authn.Authenticate(r, false)
		var e *errs.Error
		if errors.As(err, &e) && e.Kind == errs.KindTooManyRequests {
			w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
			http.Error(w, "Too many failed sign-in attempts: try again in "+strconv.Itoa(e.RetryAfter)+" seconds, or use an access token.", http.StatusTooManyRequests)
			return
		}
		if errors.Is(err, auth.ErrSecondFactor) || (err == nil && id.SecondFactor) {
			// Git clients cannot send a one-time code (as Gitea).
			h.unauthorized(w, "Users with two-factor authentication enabled cannot use git over HTTP with a user name and password: create a personal access token in the user settings (/user/settings/applications) and use it as the password.")
			return
		}
		if err != nil {
			h.unauthorized(w, "Authentication failed: wrong user name, password or token.")
			return
		}
		observe.SetUser(ctx, id.User.Name)
		if u := id.User; !u.IsActive || u.ProhibitLogin {
			http.Error(w, "This account is prohibited from signing in.", http.StatusForbidden)
			return
		}
	}
	var doer *user.User
	if id != nil {
		doer = id.User
	}
	if doer == nil && h.RequireSignin {
		h.unauthorized(w, "Authentication required.")
		return
	}
	write := svc == git.ReceivePack
	rp, err := h.Repos.Get(ctx, req.owner, req.name)
	var owner *user.User
	if err == nil {
		owner, err = h.Users.GetByID(ctx, rp.OwnerID)
	}
	var perm access.RepoPerm
	if err == nil {
		perm, err = h.Access.RepoPermission(ctx, doer, rp, owner)
	}
	if err != nil && !errs.IsNotFound(err) {
		if ctx.Err() != nil {
			return // the client went away
		}
		slog.Error("git http", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	canRead := err == nil && rp.HasUnit(repo.UnitCode) && perm.CanRead(repo.UnitCode)
	if !canRead {
		if doer == nil {
			h.unauthorized(w, "Authentication required.")
			return
		}
		http.Error(w, "Repository not found.", http.StatusNotFound)
		return
	}
	if id != nil && id.Token != nil {
		level := auth.LevelRead
		if write {
			level = auth.LevelWrite
		}
		if !id.Token.Scope.Has(auth.CatRepository, level) || (id.Token.Scope.PublicOnly && rp.IsPrivate) {
			http.Error(w, "The token does not have the scope "+auth.Required(auth.CatRepository, level)+".", http.StatusForbidden)
			return
		}
	}
	// Who may read the code but not write it may still push to refs/for/
	// to open pull requests (AGit), as in Gitea: the pre-receive hook then
	// refuses every other ref.
	pullsOnly := false
	if write {
		if doer == nil {
			h.unauthorized(w, "Authentication required to push.")
			return
		}
		if !perm.CanWrite(repo.UnitCode) {
			msg := repo.MsgNoPush
			if rp.IsArchived {
				msg = "The repository is archived and read-only."
			} else if rp.IsMirror {
				msg = "The repository is a mirror and read-only."
			} else if rp.HasUnit(repo.UnitPulls) && perm.CanRead(repo.UnitPulls) {
				msg, pullsOnly = "", true
			}
			if msg != "" {
				http.Error(w, msg, http.StatusForbidden)
				return
			}
		}
	}
	opts := git.ServiceOptions{Protocol: r.Header.Get("Git-Protocol")}
	if pullsOnly {
		opts.Env = h.Hooks.EnvPullsOnly(rp.ID, doer.ID)
	} else if write {
		opts.Env = h.Hooks.Env(rp.ID, doer.ID, 0)
	}
	path := h.Repos.Path(rp)
	w.Header().Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
	w.Header().Set("Expires", "Fri, 01 Jan 1980 00:00:00 GMT")
	if r.Method == http.MethodGet {
		// Every clone, fetch or push starts with one advertisement: count it.
		h.Metrics.GitOperation(string(svc), "http")
		w.Header().Set("Content-Type", "application/x-git-"+string(svc)+"-advertisement")
		if !speaksV2(opts.Protocol) {
			if _, err := io.WriteString(w, pktLine("# service=git-"+string(svc)+"\n")+"0000"); err != nil {
				return
			}
		}
		opts.StatelessRPC, opts.AdvertiseRefs = true, true
		opts.Stdout = flushWriter{w}
		if err := h.Git.RunService(ctx, path, svc, opts); err != nil && ctx.Err() == nil {
			slog.Warn("git advertise", "repo", rp.ID, "err", err)
		}
		return
	}
	body := io.Reader(r.Body)
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, "bad gzip body", http.StatusBadRequest)
			return
		}
		defer gz.Close()
		body = gz
	}
	w.Header().Set("Content-Type", "application/x-git-"+string(svc)+"-result")
	opts.StatelessRPC = true
	opts.Stdin = body
	opts.Stdout = flushWriter{w}
	runCtx := ctx
	if write {
		// A push is never killed when its client goes away: git then sees
		// its input end and cleans up itself (quarantined objects, ref
		// locks); a killed receive-pack would leave them behind. Nor does it
		// die writing to a client that is gone (SIGPIPE): a complete pack is
		// applied and recorded by the post-receive hook, which git runs only
		// after reporting to the client.
		runCtx = context.WithoutCancel(ctx)
		opts.Stdout = &lenientWriter{w: opts.Stdout}
	}
	if err := h.Git.RunService(runCtx, path, svc, opts); err != nil && ctx.Err() == nil && !errors.Is(err, io.ErrClosedPipe) {
		slog.Warn("git service", "service", svc, "repo", rp.ID, "err", err)
	}
}

// speaksV2 reports whether git will answer a request with this Git-Protocol
// header in protocol v2: git sees only what SanitizeProtocol keeps, and
// speaks v2 when one entry is exactly "version=2". The v0 service line must
// be written exactly when git does not.
func speaksV2(protocol string) bool {
	for _, p := range strings.Split(git.SanitizeProtocol(protocol), ":") {
		if p == "version=2" {
			return true
		}
	}
	return false
}

// pktLine frames s as one pkt-line.
func pktLine(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }

// flushWriter sends every write to the client at once, so nothing accumulates.
type flushWriter struct{ w http.ResponseWriter }

func (f flushWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
	return n, err
}

// lenientWriter passes output on until a write fails, then drops the rest
// and keeps reporting success, so git never sees a broken pipe.
type lenientWriter struct {
	w      io.Writer
	failed bool
}

func (l *lenientWriter) Write(p []byte) (int, error) {
	if !l.failed {
		if _, err := l.w.Write(p); err != nil {
			l.failed = true
		}
	}
	return len(p), nil
}
