package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// waitForUser polls the admin API until name exists and ok accepts it.
func waitForUser(t *testing.T, s *Server, name string, ok func(apiUser) bool) apiUser {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		u, found := adminGetUser(t, s, name)
		if found && ok(u) {
			return u
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never reached the expected state: %+v (found %v)\n%s", name, u, found, s.Logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestLDAPSync: [cron.sync_external_users] and 'cairn admin auth sync'
// create the missing accounts, update names, e-mail addresses and admin
// flags, deactivate users gone from the directory, and never deactivate
// anyone when the directory is down or lists nobody (gitea #4402), unless
// the source allows an empty listing to.
func TestLDAPSync(t *testing.T) {
	d := StartDirectory(t, "")
	alice := d.AddUser("alice", "alice-secret", "Alice", "Liddell", "alice@example.org", newSSHKey(t))
	bob := d.AddUser("bob", "bob-secret", "Bob", "Builder", "bob@example.org")
	carol := d.AddUser("carol", "carol-secret", "Carol", "Jones", "carol@example.org")
	admins := d.AddGroup("admins", alice)

	s := StartServer(t, WithEnv("CAIRN_CRON_SYNC_EXTERNAL_USERS_SCHEDULE=@every 1s"))
	id := addLDAPSource(t, s, append(bindDNSourceArgs(d, "corp", "Unencrypted", d.Port), "--synchronize-users", "--page-size", "2")...)
	sid := strconv.FormatInt(id, 10)

	// The scheduled task creates the accounts, pages of two at a time.
	a := waitForUser(t, s, "alice", func(u apiUser) bool { return true })
	if !a.IsAdmin || a.FullName != "Alice Liddell" || a.Email != "alice@example.org" || a.SourceID != id || !a.Active {
		t.Fatalf("alice: %+v", a)
	}
	waitForUser(t, s, "bob", func(u apiUser) bool { return !u.IsAdmin && u.Active })
	waitForUser(t, s, "carol", func(u apiUser) bool { return u.Active })
	if r := s.API("GET", "users/alice/keys", s.AdminTok, nil); !strings.Contains(string(r.Body), "ssh-ed25519") {
		t.Fatalf("alice's key: %s", r.Body)
	}
	// Accounts made by the synchronisation sign in with the directory's password.
	if r := s.Do("GET", "api/v1/user", Basic("carol", "carol-secret")); r.Status != 200 {
		t.Fatalf("carol: %d %s", r.Status, r.Body)
	}

	sync := func(wantErr bool) string {
		t.Helper()
		out, err := s.Cairn("admin", "auth", "sync", "--id", sid)
		if (err != nil) != wantErr {
			t.Fatalf("auth sync: %v\n%s", err, out)
		}
		return out
	}

	// Updates: e-mail, full name, admin flag both ways.
	d.Modify(bob, "replace", "mail", "robert@example.org")
	d.Modify(bob, "replace", "givenName", "Robert")
	d.Modify(admins, "add", "member", bob)
	d.Modify(admins, "delete", "member", alice)
	sync(false)
	if u, _ := adminGetUser(t, s, "bob"); u.Email != "robert@example.org" || u.FullName != "Robert Builder" || !u.IsAdmin {
		t.Fatalf("bob after the sync: %+v", u)
	}
	if u, _ := adminGetUser(t, s, "alice"); u.IsAdmin {
		t.Fatalf("alice left the admins group but the sync kept her an administrator: %+v", u)
	}

	// Gone from the directory: deactivated.
	d.Delete(carol)
	sync(false)
	if u, _ := adminGetUser(t, s, "carol"); u.Active {
		t.Fatalf("carol is gone from the directory but still active: %+v", u)
	}
	if r := s.Do("GET", "api/v1/user", Basic("carol", "carol-secret")); r.Status == 200 {
		t.Fatal("a deactivated account signed in")
	}

	// Directory down: the sync fails, nobody is deactivated (the scheduled
	// task runs meanwhile too).
	d.Stop()
	if out := sync(true); !strings.Contains(out, "connect") {
		t.Fatalf("sync with the directory down says: %s", out)
	}
	time.Sleep(2500 * time.Millisecond)
	for _, name := range []string{"alice", "bob"} {
		if u, _ := adminGetUser(t, s, name); !u.Active {
			t.Fatalf("%s deactivated while the directory was down", name)
		}
	}
	if !s.LogsContain("no account was deactivated", 5*time.Second) {
		t.Fatalf("the scheduled task did not log its failure:\n%s", s.Logs())
	}
	d.Start()

	// A listing with no entries at all deactivates nobody…
	if out, err := s.Cairn("admin", "auth", "update-ldap", "--id", sid, "--user-filter", "(&(objectClass=inetOrgPerson)(uid=%s)(employeeType=nobody))"); err != nil {
		t.Fatalf("update-ldap: %v\n%s", err, out)
	}
	if out := sync(false); !strings.Contains(out, "no account was deactivated") {
		t.Fatalf("empty listing: %s", out)
	}
	time.Sleep(1500 * time.Millisecond)
	for _, name := range []string{"alice", "bob"} {
		if u, _ := adminGetUser(t, s, name); !u.Active {
			t.Fatalf("%s deactivated by an empty listing", name)
		}
	}
	// …unless the source allows it.
	if out, err := s.Cairn("admin", "auth", "update-ldap", "--id", sid, "--allow-deactivate-all"); err != nil {
		t.Fatalf("update-ldap: %v\n%s", err, out)
	}
	sync(false)
	if u, _ := adminGetUser(t, s, "alice"); u.Active {
		t.Fatalf("alice still active after an allowed empty listing: %+v", u)
	}
	// Back to the real filter: the accounts in the directory are active again.
	if out, err := s.Cairn("admin", "auth", "update-ldap", "--id", sid, "--user-filter", ldapUserFilter); err != nil {
		t.Fatalf("update-ldap: %v\n%s", err, out)
	}
	sync(false)
	for _, name := range []string{"alice", "bob"} {
		if u, _ := adminGetUser(t, s, name); !u.Active {
			t.Fatalf("%s not reactivated", name)
		}
	}
	if u, _ := adminGetUser(t, s, "carol"); u.Active {
		t.Fatal("carol reactivated though gone from the directory")
	}
	// The local administrator is never touched by a source's synchronisation.
	if u, _ := adminGetUser(t, s, adminName); !u.Active || !u.IsAdmin {
		t.Fatalf("root: %+v", u)
	}
}

// TestLDAPSyncAdminCron: with [cron.sync_external_users] ENABLED = false
// nothing runs on its own; POST /admin/cron/sync_external_users (Gitea's
// route, admins only) runs it, and GET /admin/cron reports it.
func TestLDAPSyncAdminCron(t *testing.T) {
	d := StartDirectory(t, "")
	d.AddUser("alice", "alice-secret", "Alice", "Liddell", "alice@example.org")
	s := StartServer(t, WithEnv("CAIRN_CRON_SYNC_EXTERNAL_USERS_ENABLED=false", "CAIRN_CRON_SYNC_EXTERNAL_USERS_SCHEDULE=@every 1s"))
	addLDAPSource(t, s, append(bindDNSourceArgs(d, "corp", "Unencrypted", d.Port), "--synchronize-users")...)
	type cron struct {
		Name      string    `json:"name"`
		Schedule  string    `json:"schedule"`
		Next      time.Time `json:"next"`
		Prev      time.Time `json:"prev"`
		ExecTimes int64     `json:"exec_times"`
	}
	list := func() cron {
		t.Helper()
		r := s.API("GET", "admin/cron", s.AdminTok, nil)
		var out []cron
		r.Decode(t, &out)
		if r.Status != 200 || len(out) != 1 || out[0].Name != "sync_external_users" || out[0].Schedule != "@every 1s" || r.Header.Get("X-Total-Count") != "1" {
			t.Fatalf("GET /admin/cron: %d %s", r.Status, r.Body)
		}
		return out[0]
	}
	time.Sleep(1500 * time.Millisecond)
	if _, found := adminGetUser(t, s, "alice"); found {
		t.Fatal("a disabled task synchronised")
	}
	if c := list(); c.ExecTimes != 0 || !c.Next.IsZero() {
		t.Fatalf("disabled task: %+v", c)
	}
	user := s.CreateUser("plain")
	if r := s.API("POST", "admin/cron/sync_external_users", user.Token, nil); r.Status != 403 {
		t.Fatalf("a non-admin ran the task: %d %s", r.Status, r.Body)
	}
	if r := s.API("GET", "admin/cron", user.Token, nil); r.Status != 403 {
		t.Fatalf("a non-admin listed the tasks: %d %s", r.Status, r.Body)
	}
	if r := s.API("POST", "admin/cron/no_such_task", s.AdminTok, nil); r.Status != 404 {
		t.Fatalf("unknown task: %d %s", r.Status, r.Body)
	}
	if r := s.API("POST", "admin/cron/sync_external_users", s.AdminTok, nil); r.Status != 204 {
		t.Fatalf("run the task: %d %s", r.Status, r.Body)
	}
	waitForUser(t, s, "alice", func(u apiUser) bool { return u.Active })
	if c := list(); c.ExecTimes != 1 || c.Prev.IsZero() {
		t.Fatalf("after one run: %+v", c)
	}
}
