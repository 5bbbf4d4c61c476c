package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cairn-forge/cairn/internal/password"
)

// BenchmarkPasswordSignIn compares an API call signed in with a password
// (basic auth: the account's argon2id hash is verified on every call, as in
// Gitea) with the key derivation alone: the difference is what Cairn adds
// to the KDF's cost (routing, the throttle's bookkeeping, the database).
// Run serially: the KDF's memory and time parameters decide the figure.
func BenchmarkPasswordSignIn(b *testing.B) {
	a, u, _ := benchUser(b)
	b.Run("kdf", func(b *testing.B) {
		for b.Loop() {
			if !password.Verify(u.PasswdHash, "x") {
				b.Fatal("the password does not verify")
			}
		}
	})
	h := a.handler()
	b.Run("basic-auth", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req := httptest.NewRequest("GET", "/api/v1/user", nil)
			req.SetBasicAuth("bench", "x")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatalf("status %d: %s", w.Code, w.Body)
			}
		}
	})
}
