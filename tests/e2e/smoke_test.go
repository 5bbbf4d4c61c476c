package e2e

import (
	"strings"
	"testing"
)

func TestSmokeVersionAndUser(t *testing.T) {
	s := StartServer(t)
	v, _, err := s.Admin.ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v, "1.23.0+cairn.") {
		t.Fatalf("version = %q", v)
	}
	alice := s.CreateUser("alice")
	me, _, err := s.Client(alice.Token).GetMyUserInfo()
	if err != nil {
		t.Fatal(err)
	}
	if me.UserName != "alice" || me.Email != "alice@example.com" || me.ID != alice.ID {
		t.Fatalf("GET /user = %+v", me)
	}
	anon := s.Do("GET", "api/v1/users/alice")
	if anon.Status != 200 || strings.Contains(string(anon.Body), "alice@example.com") {
		t.Fatalf("signed-out GET /users/alice leaked the e-mail or failed: %d %s", anon.Status, anon.Body)
	}
}
