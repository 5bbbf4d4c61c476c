package password

import "testing"

func TestHashVerify(t *testing.T) {
	p := Params{MemoryKiB: 1024, Time: 1, Threads: 1}
	for _, pw := range []string{"", "x", "correct horse battery staple", "ünïcødé"} {
		h, err := Hash(pw, p)
		if err != nil {
			t.Fatal(err)
		}
		if !Verify(h, pw) {
			t.Errorf("Verify(%q) = false for its own hash", pw)
		}
		if Verify(h, pw+"!") {
			t.Errorf("Verify accepted a wrong password for %q", pw)
		}
	}
	h1, _ := Hash("same", p)
	h2, _ := Hash("same", p)
	if h1 == h2 {
		t.Error("two hashes of one password are equal: salt not random")
	}
	for _, bad := range []string{"", "$argon2id$", "plain", "$argon2id$v=19$m=x$a$b"} {
		if Verify(bad, "x") {
			t.Errorf("Verify accepted malformed hash %q", bad)
		}
	}
}
