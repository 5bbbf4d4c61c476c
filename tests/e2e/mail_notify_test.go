package e2e

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMailNotification mails an issue's watchers through a real SMTP
// server: the new issue and a comment, threaded (Message-ID, In-Reply-To,
// References) with Gitea's list headers; the actor, an account that turned
// mail off, and a watcher who lost read access get nothing.
func TestMailNotification(t *testing.T) {
	m := startMailServer(t, mailServerOptions{})
	s := StartServer(t, WithEnv(m.Env("smtp+starttls", "CAIRN_MAILER_FORCE_TRUST_SERVER_CERT=true",
		"CAIRN_SERVICE_ENABLE_NOTIFY_MAIL=true", "CAIRN_MAILER_SUBJECT_PREFIX=[forge]")...))
	watcher, quiet, collab := s.CreateUser("watcher"), s.CreateUser("quiet"), s.CreateUser("collab")
	s.CreateUser("bystander") // watches nothing; mentioned below
	if r := s.API("POST", "user/repos", s.AdminTok, map[string]any{"name": "proj", "auto_init": true}); r.Status != http.StatusCreated {
		t.Fatalf("create repo: %d %s", r.Status, r.Body)
	}
	if r := s.API("PUT", "repos/root/proj/collaborators/collab", s.AdminTok, map[string]any{"permission": "write"}); r.Status != http.StatusNoContent {
		t.Fatalf("add collaborator: %d %s", r.Status, r.Body)
	}
	for _, u := range []*User{watcher, quiet, collab} {
		if r := s.API("PUT", "repos/root/proj/subscription", u.Token, nil); r.Status != http.StatusOK {
			t.Fatalf("watch as %s: %d %s", u.Name, r.Status, r.Body)
		}
	}
	qw := s.Web(t)
	qw.SignIn(quiet.Name, quiet.Password)
	qw.Get("user/settings/account").MustContain(t, http.StatusOK, `name="preference"`, `value="enabled" selected`)
	if p := qw.Post("user/settings/account/email", url.Values{"_method": {"NOTIFICATION"}, "preference": {"disabled"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("set preference: %d %s", p.Status, p.Body)
	}
	qw.Get("user/settings/account").MustContain(t, http.StatusOK, `value="disabled" selected`)

	if r := s.API("POST", "repos/root/proj/issues", s.AdminTok, map[string]any{"title": "Broken <b>thing</b>",
		"body": "It fails with <script>alert(1)</script>"}); r.Status != http.StatusCreated {
		t.Fatalf("create issue: %d %s", r.Status, r.Body)
	}
	opened := m.WaitFor("watcher@example.com", "[forge] [root/proj] Broken <b>thing</b> (#1)", 30*time.Second)
	thread := "<root/proj/issues/1@127.0.0.1>"
	issueURL := s.URL + "root/proj/issues/1"
	for k, want := range map[string]string{
		"Message-Id": thread, "List-Id": "root/proj <proj.root.127.0.0.1>", "List-Unsubscribe": "<" + issueURL + ">",
		"X-Gitea-Reason": "issue comments", "X-Gitea-Sender": "root", "X-Gitea-Recipient": "watcher",
		"X-Gitea-Repository-Path": "root/proj", "X-Gitea-Issue-Id": "1", "X-Gitea-Issue-Link": issueURL,
	} {
		if got := opened.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if opened.Header.Get("In-Reply-To") != "" {
		t.Errorf("the first mail of a thread replies to %q", opened.Header.Get("In-Reply-To"))
	}
	if !strings.Contains(opened.Text, "It fails with <script>alert(1)</script>") || strings.Contains(opened.HTML, "<script>") ||
		!strings.Contains(opened.HTML, "Broken &lt;b&gt;thing&lt;/b&gt;") {
		t.Errorf("bodies:\n%s\n%s", opened.Text, opened.HTML)
	}

	r := s.API("POST", "repos/root/proj/issues/1/comments", s.AdminTok, map[string]any{"body": "Fixed, @watcher? cc @bystander"})
	if r.Status != http.StatusCreated {
		t.Fatalf("comment: %d %s", r.Status, r.Body)
	}
	reply := m.WaitFor("watcher@example.com", "Re: [root/proj] Broken", 30*time.Second)
	if reply.Header.Get("In-Reply-To") != thread || reply.Header.Get("References") != thread ||
		!strings.HasPrefix(reply.Header.Get("Message-Id"), "<root/proj/issues/1/comment/") || reply.Header.Get("X-Gitea-Reason") != "issue comments" {
		t.Errorf("reply headers: %v", reply.Header)
	}
	m.WaitFor("bystander@example.com", "Re: [root/proj] Broken", 30*time.Second) // mentioned, not watching
	if !strings.Contains(reply.Text, "Fixed, @watcher?") || !strings.Contains(reply.Text, issueURL+"#issuecomment-") {
		t.Errorf("reply text:\n%s", reply.Text)
	}
	m.WaitFor("collab@example.com", "Re: [root/proj] Broken", 30*time.Second)

	// Assigning mails the assignee alone.
	if r := s.API("PATCH", "repos/root/proj/issues/1", s.AdminTok, map[string]any{"assignees": []string{"collab"}}); r.Status != http.StatusCreated {
		t.Fatalf("assign: %d %s", r.Status, r.Body)
	}
	assigned := m.WaitForText("collab@example.com", "assigned you to", 30*time.Second)
	if assigned.Header.Get("X-Gitea-Reason") != "issue assigned" || !strings.Contains(assigned.Header.Get("Message-Id"), "/assign/") {
		t.Errorf("assignment mail headers: %v", assigned.Header)
	}

	// Private now: the watcher (no collaborator) loses read access, the
	// collaborator keeps it.
	if r := s.API("PATCH", "repos/root/proj", s.AdminTok, map[string]any{"private": true}); r.Status != http.StatusOK {
		t.Fatalf("make private: %d %s", r.Status, r.Body)
	}
	if r := s.API("POST", "repos/root/proj/issues/1/comments", s.AdminTok, map[string]any{"body": "secret follow-up"}); r.Status != http.StatusCreated {
		t.Fatalf("comment: %d %s", r.Status, r.Body)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := 0
		for _, got := range m.Received() {
			if got.To[0] == "collab@example.com" && strings.Contains(got.Text, "secret follow-up") {
				n++
			}
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the collaborator got no mail about the private comment")
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // the other recipients' jobs ran alongside
	for _, got := range m.Received() {
		switch {
		case got.To[0] == "root@example.com":
			t.Errorf("the actor got a mail: %s", got.Header.Get("Subject"))
		case got.To[0] == "quiet@example.com":
			t.Errorf("an account with mail off got one: %s", got.Header.Get("Subject"))
		case got.To[0] == "watcher@example.com" && strings.Contains(got.Text, "secret follow-up"):
			t.Error("a private comment was mailed to a watcher without access")
		case got.To[0] != "collab@example.com" && strings.Contains(got.Text, "assigned you to"):
			t.Errorf("the assignment was mailed to %s", got.To[0])
		}
	}
}

// TestMailAdminSendmail: `cairn admin sendmail` queues a mail to every
// active account, which the running server sends; without --force it asks
// first, and with mail off it refuses.
func TestMailAdminSendmail(t *testing.T) {
	m := startMailServer(t, mailServerOptions{})
	s := StartServer(t, WithEnv(m.Env("smtp+starttls", "CAIRN_MAILER_FORCE_TRUST_SERVER_CERT=true")...))
	s.CreateUser("reader")
	if out, err := s.Cairn("admin", "sendmail", "--title", "Maintenance"); err == nil || !strings.Contains(out, "nothing sent") {
		t.Fatalf("without --force and no answer: %v\n%s", err, out)
	}
	out, err := s.Cairn("admin", "sendmail", "--title", "Maintenance", "--content", "Down at <noon>.", "--force")
	if err != nil || !strings.Contains(out, "Queued 2 mails.") {
		t.Fatalf("sendmail: %v\n%s", err, out)
	}
	for _, to := range []string{"root@example.com", "reader@example.com"} {
		got := m.WaitFor(to, "Maintenance", 30*time.Second)
		if !strings.Contains(got.Text, "Down at <noon>.") || !strings.Contains(got.HTML, "Down at &lt;noon&gt;.") {
			t.Errorf("bodies:\n%s\n%s", got.Text, got.HTML)
		}
	}

	// The site administration's test mail (Gitea's /-/admin/config/test_mail).
	aw := s.Web(t)
	aw.SignIn(adminName, adminPassword)
	aw.Get("-/admin/config").MustContain(t, http.StatusOK, `action="/-/admin/config/test_mail"`)
	if p := aw.Post("-/admin/config/test_mail", url.Values{"email": {"ops@example.com"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("test mail: %d %s", p.Status, p.Body)
	}
	m.WaitFor("ops@example.com", "Cairn test mail", 30*time.Second)
	rw := s.Web(t)
	rw.SignIn("reader", "reader-pw-123")
	rw.Get("user/settings")
	if p := rw.Post("-/admin/config/test_mail", url.Values{"email": {"x@example.com"}}); p.Status == http.StatusSeeOther {
		t.Fatal("a non-administrator sent a test mail")
	}

	off := StartServer(t)
	if out, err := off.Cairn("admin", "sendmail", "--title", "x", "--force"); err == nil || !strings.Contains(out, "mail is off") {
		t.Fatalf("with mail off: %v\n%s", err, out)
	}
	ow := off.Web(t)
	ow.SignIn(adminName, adminPassword)
	if p := ow.Get("-/admin/config"); strings.Contains(p.Body, "test_mail") {
		t.Fatal("the test mail form shows with mail off")
	}
	if p := ow.Post("-/admin/config/test_mail", url.Values{"email": {"x@example.com"}}); p.Status != http.StatusNotFound {
		t.Fatalf("test mail with mail off: %d", p.Status)
	}
}

// TestMailSendmailAndDummy: PROTOCOL = sendmail pipes the message to the
// program with the envelope sender and the recipient after --; dummy only
// logs that a mail would have gone out, without its body (links are secrets).
func TestMailSendmailAndDummy(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sent")
	script := filepath.Join(dir, "fake-sendmail")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"$@\" > "+out+".args\ncat > "+out+".tmp && mv "+out+".tmp "+out+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, WithEnv("CAIRN_MAILER_ENABLED=true", "CAIRN_MAILER_PROTOCOL=sendmail", "CAIRN_MAILER_SENDMAIL_PATH="+script,
		"CAIRN_MAILER_SENDMAIL_ARGS=-oi -X /dev/null", "CAIRN_MAILER_FROM=forge@example.com", "CAIRN_MAILER_ENVELOPE_FROM=bounces@example.com"))
	s.CreateUser("piped")
	w := s.Web(t)
	w.Get("user/forgot_password")
	w.Post("user/forgot_password", url.Values{"email": {"piped@example.com"}}).MustContain(t, http.StatusOK, "If an account uses")
	var msg []byte
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if b, err := os.ReadFile(out); err == nil {
			msg = b
			break
		}
	}
	args, _ := os.ReadFile(out + ".args")
	if got := strings.TrimSpace(string(args)); got != "-oi -X /dev/null -f bounces@example.com -i -- piped@example.com" {
		t.Errorf("sendmail arguments: %q", got)
	}
	if !strings.Contains(string(msg), "Subject: Recover your account") || !strings.Contains(string(msg), "/user/recover_account?code=") ||
		strings.Contains(string(msg), "\r\n") {
		t.Errorf("message (LF line ends expected):\n%s", msg)
	}

	d := StartServer(t, WithEnv("CAIRN_MAILER_ENABLED=true", "CAIRN_MAILER_PROTOCOL=dummy", "CAIRN_MAILER_FROM=forge@example.com"))
	d.CreateUser("logged")
	dw := d.Web(t)
	dw.Get("user/forgot_password")
	dw.Post("user/forgot_password", url.Values{"email": {"logged@example.com"}})
	if !d.LogsContain("mail (dummy sender, not sent)", 30*time.Second) || !strings.Contains(d.Logs(), "logged@example.com") {
		t.Fatalf("no dummy log line:\n%s", d.Logs())
	}
	if strings.Contains(d.Logs(), "code=") {
		t.Fatal("the dummy sender logged a link")
	}
}

// TestMailPullMerged: a new pull request and its merge are mailed to a
// watcher; the merge closes it, but only the merge mail goes out.
func TestMailPullMerged(t *testing.T) {
	m := startMailServer(t, mailServerOptions{})
	s := StartServer(t, WithEnv(m.Env("smtp+starttls", "CAIRN_MAILER_FORCE_TRUST_SERVER_CERT=true", "CAIRN_SERVICE_ENABLE_NOTIFY_MAIL=true")...))
	watcher := s.CreateUser("watcher")
	if r := s.API("POST", "user/repos", s.AdminTok, map[string]any{"name": "proj", "auto_init": true}); r.Status != http.StatusCreated {
		t.Fatalf("create repo: %d %s", r.Status, r.Body)
	}
	if r := s.API("PUT", "repos/root/proj/subscription", watcher.Token, nil); r.Status != http.StatusOK {
		t.Fatalf("watch: %d %s", r.Status, r.Body)
	}
	if r := s.API("POST", "repos/root/proj/contents/new.txt", s.AdminTok, map[string]any{"content": "bmV3Cg==", "message": "add",
		"new_branch": "feature"}); r.Status != http.StatusCreated {
		t.Fatalf("commit: %d %s", r.Status, r.Body)
	}
	if r := s.API("POST", "repos/root/proj/pulls", s.AdminTok, map[string]any{"head": "feature", "base": "main", "title": "Add new.txt"}); r.Status != http.StatusCreated {
		t.Fatalf("create pull: %d %s", r.Status, r.Body)
	}
	opened := m.WaitFor("watcher@example.com", "[root/proj] Add new.txt (#1)", 30*time.Second)
	if got := opened.Header.Get("Message-Id"); got != "<root/proj/pulls/1@127.0.0.1>" {
		t.Errorf("Message-ID = %q", got)
	}
	// A review request reaches the reviewer; a review the other participants.
	if r := s.API("POST", "repos/root/proj/pulls/1/requested_reviewers", s.AdminTok, map[string]any{"reviewers": []string{"watcher"}}); r.Status != http.StatusCreated {
		t.Fatalf("request review: %d %s", r.Status, r.Body)
	}
	req := m.WaitForText("watcher@example.com", "requested your review on", 30*time.Second)
	if req.Header.Get("X-Gitea-Reason") != "review requested" {
		t.Errorf("review request headers: %v", req.Header)
	}
	if r := s.API("POST", "repos/root/proj/pulls/1/reviews", watcher.Token, map[string]any{"event": "COMMENT", "body": "Looks <i>fine</i>"}); r.Status != http.StatusOK {
		t.Fatalf("review: %d %s", r.Status, r.Body)
	}
	rev := m.WaitForText("root@example.com", "watcher reviewed pull request root/proj#1", 30*time.Second)
	if !strings.Contains(rev.Text, "Looks <i>fine</i>") || !strings.Contains(rev.Header.Get("Message-Id"), "/pulls/1/review/") {
		t.Errorf("review mail: %v\n%s", rev.Header, rev.Text)
	}
	var merged bool
	for deadline := time.Now().Add(30 * time.Second); !merged && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		merged = s.API("POST", "repos/root/proj/pulls/1/merge", s.AdminTok, map[string]any{"Do": "merge"}).Status == http.StatusOK
	}
	if !merged {
		t.Fatal("the pull request could not be merged")
	}
	mail := m.WaitForText("watcher@example.com", "root merged pull request root/proj#1", 30*time.Second)
	if id := mail.Header.Get("Message-Id"); !strings.HasPrefix(id, "<root/proj/pulls/1/merge/") || mail.Header.Get("In-Reply-To") != "<root/proj/pulls/1@127.0.0.1>" {
		t.Errorf("merge mail headers: %v", mail.Header)
	}
	if got := decodeHeader(mail.Header.Get("Subject")); got != "Re: [root/proj] Add new.txt (#1)" {
		t.Errorf("merge mail subject %q", got)
	}
	time.Sleep(2 * time.Second)
	for _, got := range m.Received() {
		if strings.Contains(got.Header.Get("Message-Id"), "/close/") {
			t.Errorf("a closing mail went out for the merge: %v", got.Header)
		}
	}
}
