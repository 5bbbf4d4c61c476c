package web

import (
	"testing"
	"time"
)

// TestEveryPageParses: pages are parsed on first use, so a broken one would
// only show when it is rendered; this parses every page onto the layout.
func TestEveryPageParses(t *testing.T) {
	h := &Handler{Deps: Deps{Now: time.Now}}
	v, err := loadViews(h.funcs())
	if err != nil {
		t.Fatal(err)
	}
	if len(v.pages) < 50 {
		t.Fatalf("only %d pages found", len(v.pages))
	}
	for name := range v.pages {
		tpl, err := v.page(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if tpl.Lookup("layout") == nil {
			t.Errorf("%s: no layout", name)
		}
	}
	if _, err := v.page("no-such-page"); err == nil {
		t.Fatal("a missing page has a template")
	}
}
