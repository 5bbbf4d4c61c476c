package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestPasswordHashAlgo: [security] PASSWORD_HASH_ALGO chooses the argon2id
// parameters of new hashes (OWASP's by default, Gitea's for argon2, or given
// ones), each hash keeps its own, so passwords set before a change still
// sign in; Gitea's other algorithms start with a warning and the default.
func TestPasswordHashAlgo(t *testing.T) {
	const algo = "CAIRN_SECURITY_PASSWORD_HASH_ALGO="
	s := StartServer(t, WithEnv(algo+"argon2id"))
	ids := map[string]int64{}
	hashOf := func(name string) string {
		t.Helper()
		var h string
		if err := fndServerDB(t, s).QueryRow(fmt.Sprintf("SELECT passwd FROM users WHERE id = %d", ids[name])).Scan(&h); err != nil {
			t.Fatalf("hash of %s: %v", name, err)
		}
		return h
	}
	create := func(name string) *User {
		u := s.CreateUser(name)
		ids[name] = u.ID
		return u
	}
	owasp := create("owasp")
	if h := hashOf("owasp"); !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("default hash %s", h)
	}

	s.Stop()
	s.Env = append(s.Env, algo+"argon2")
	s.Restart()
	gitea := create("gitea")
	if h := hashOf("gitea"); !strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=2,p=8$") {
		t.Fatalf("argon2 hash %s", h)
	}
	s.CreateToken(owasp.Name, owasp.Password, "after-change", "all")

	s.Stop()
	s.Env = append(s.Env, algo+"argon2$1$64$1$16")
	s.Restart()
	create("cheap")
	if h := hashOf("cheap"); !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") || len(h[strings.LastIndex(h, "$")+1:]) != 22 {
		t.Fatalf("argon2$1$64$1$16 hash %s", h)
	}
	s.CreateToken(gitea.Name, gitea.Password, "after-change", "all")
	if r := s.Do("GET", "api/v1/user", Basic(gitea.Name, "wrong-password")); r.Status != 401 {
		t.Fatalf("wrong password: %d", r.Status)
	}

	s.Stop()
	s.Env = append(s.Env, algo+"pbkdf2")
	s.Restart()
	create("giteadefault")
	if h := hashOf("giteadefault"); !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash with pbkdf2 asked %s", h)
	}
	if !s.LogsContain("Cairn hashes passwords with argon2id only", 5*time.Second) {
		t.Fatal("no warning about PASSWORD_HASH_ALGO = pbkdf2")
	}
}
