package authsource

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-forge/cairn/internal/errs"
)

func TestListAllShowsTheSourcesThisBinaryCannotUse(t *testing.T) {
	ctx := context.Background()
	s, _, d := newTestService(t, &fakeDir{})
	good := &Source{Type: TypeLDAP, Name: "corp", IsActive: true, Config: &fakeConfig{Secret: "s"}}
	if err := s.Create(ctx, good); err != nil {
		t.Fatal(err)
	}
	insert := func(typ Type, name, cfg string) int64 {
		id, err := d.Insert(ctx, "INSERT INTO login_source (type, name, is_active, is_sync_enabled, cfg, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?)",
			typ, name, true, false, cfg, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	smtp := insert(TypeSMTP, "mail", "{}")
	broken := insert(TypeLDAP, "broken", "not json")
	list, err := s.ListAll(ctx)
	if err != nil || len(list) != 3 {
		t.Fatalf("ListAll: %d sources, %v", len(list), err)
	}
	if list[0].ID != good.ID || list[0].Problem != "" || list[0].Config.(*fakeConfig).Secret != "s" {
		t.Fatalf("the usable source: %+v", list[0])
	}
	if list[1].ID != smtp || list[1].Name != "mail" || list[1].Config != nil || !strings.Contains(list[1].Problem, "not supported by this binary") {
		t.Fatalf("the source of a missing kind: %+v", list[1])
	}
	if list[2].ID != broken || list[2].Config != nil || !strings.Contains(list[2].Problem, "cannot be read") {
		t.Fatalf("the unreadable source: %+v", list[2])
	}
	if l, err := s.Lookup(ctx, smtp); err != nil || l.Problem == "" || l.Name != "mail" {
		t.Fatalf("Lookup of the missing kind: %+v %v", l, err)
	}
	if _, err := s.Lookup(ctx, 999); !errs.IsNotFound(err) {
		t.Fatalf("Lookup of no source: %v", err)
	}
	// They can be deleted all the same.
	if err := s.Delete(ctx, smtp); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.ListAll(ctx); len(list) != 2 {
		t.Fatalf("after the delete: %d sources", len(list))
	}
}
