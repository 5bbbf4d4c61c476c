package issue

import (
	"testing"

	"github.com/cairn-forge/cairn/internal/db"
)

func TestReverseOrder(t *testing.T) {
	cases := map[string]string{
		"i.created_unix DESC, i.id DESC": "i.created_unix ASC, i.id ASC",
		"i.num_comments ASC, i.id DESC":  "i.num_comments DESC, i.id ASC",
		"CASE WHEN i.deadline_unix = 0 THEN 1 ELSE 0 END, i.deadline_unix ASC, i.id DESC": "CASE WHEN i.deadline_unix = 0 THEN 1 ELSE 0 END DESC, i.deadline_unix DESC, i.id ASC",
	}
	for in, want := range cases {
		if got := reverseOrder(in); got != want {
			t.Errorf("reverseOrder(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKeywordCond(t *testing.T) {
	c, args := keywordCond(db.SQLite, "Memory leak!")
	if c != "(i.id IN (SELECT rowid FROM issue_fts WHERE issue_fts MATCH ?))" || len(args) != 1 || args[0] != `{title content} : ("memory"* AND "leak"*)` {
		t.Fatalf("sqlite: %s %v", c, args)
	}
	c, args = keywordCond(db.Postgres, "#12")
	if len(args) != 2 || args[0] != "12:*" || args[1] != int64(12) {
		t.Fatalf("postgres: %s %v", c, args)
	}
	c, args = keywordCond(db.MySQL, "go leak")
	if len(args) != 5 || args[0] != "+leak*" || args[1] != "%go%" || args[2] != "(^|[^[:alnum:]])go" {
		t.Fatalf("mysql: %s %v", c, args)
	}
	// Stop-listed words are not in InnoDB's index: matched like short words.
	c, args = keywordCond(db.MySQL, "the leak")
	if len(args) != 5 || args[0] != "+leak*" || args[1] != "%the%" {
		t.Fatalf("mysql stop word: %s %v", c, args)
	}
	if c, _ := keywordCond(db.SQLite, "!!!"); c != "1 = 0" {
		t.Fatalf("punctuation only: %s", c)
	}
}
