package pam

import (
	"context"
	"errors"
	"testing"

	"github.com/cairn-forge/cairn/internal/authsource"
)

func TestPAMValidate(t *testing.T) {
	if !Built {
		if err := (&Config{ServiceName: "login"}).Validate(); !errors.Is(err, authsource.ErrNotBuilt) {
			t.Fatalf("without the pam tag: %v", err)
		}
		if _, err := Kind().Decode([]byte(`{"ServiceName":"login"}`), nil); !errors.Is(err, authsource.ErrNotBuilt) {
			t.Fatalf("decode without the pam tag: %v", err)
		}
		return
	}
	c := &Config{ServiceName: " cairn ", EmailDomain: " example.org "}
	if err := c.Validate(); err != nil || c.ServiceName != "cairn" || c.EmailDomain != "example.org" {
		t.Fatalf("%+v: %v", c, err)
	}
	for _, bad := range []Config{{}, {ServiceName: "../etc/passwd"}, {ServiceName: "a b"}, {ServiceName: ".."}, {ServiceName: "x", EmailDomain: "a@b"}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v validated", bad)
		}
	}
}

func TestPAMRefusedWithoutAsking(t *testing.T) {
	c := &Config{ServiceName: "cairn-no-such-service"}
	for _, lp := range [][2]string{{"", "pw"}, {"a", ""}, {"a\x00b", "pw"}, {"a\nb", "pw"}, {"a", "p\x00w"}} {
		if _, err := c.Authenticate(context.Background(), lp[0], lp[1]); !errors.Is(err, authsource.ErrRejected) {
			t.Errorf("%q/%q: %v, want ErrRejected", lp[0], lp[1], err)
		}
	}
}
