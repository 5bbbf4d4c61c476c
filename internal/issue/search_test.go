package issue

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-forge/cairn/internal/repo"
)

// searchFixture is what the test knows about each issue it wrote, to compute
// the expected answer of a search without the database.
type searchFixture struct {
	id, repoID     int64
	pull, closed   bool
	title, content string
}

func (f searchFixture) hasWord(prefix string) bool {
	for _, w := range searchWords(f.title + " " + f.content) {
		if strings.HasPrefix(w, prefix) {
			return true
		}
	}
	return false
}

// TestSearchFromTextIndex checks searches answered from SQLite's full-text
// index alone (words, repositories, kind and state as index tokens) against
// the answer computed from the issues themselves: totals, pages from both
// ends, both orders, kinds readable in different repositories, and the index
// kept in step when issues are edited, closed, moved between kinds and deleted.
func TestSearchFromTextIndex(t *testing.T) {
	e := lblSetup(t)
	other := &repo.Repository{OwnerID: e.doer.ID, OwnerName: e.doer.Name, Name: "other", DefaultBranch: "main", ObjectFormat: "sha1",
		Units: e.s.repos.DefaultUnits(), Settings: repo.DefaultSettings(true, true)}
	if err := e.s.repos.Store.Insert(e.ctx, other); err != nil {
		t.Fatal(err)
	}
	third := &repo.Repository{OwnerID: e.doer.ID, OwnerName: e.doer.Name, Name: "third", DefaultBranch: "main", ObjectFormat: "sha1",
		Units: e.s.repos.DefaultUnits(), Settings: repo.DefaultSettings(true, true)}
	if err := e.s.repos.Store.Insert(e.ctx, third); err != nil {
		t.Fatal(err)
	}
	repos := []int64{e.repo.ID, other.ID, third.ID}
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "beta", "gamma", "leak", "leaking", "crash"}
	// Text that looks like the index's tag tokens must not match them.
	decoys := []string{"open", "closed", fmt.Sprintf("i%do", e.repo.ID), fmt.Sprintf("p%d", other.ID)}
	var fixtures []searchFixture
	const n = 2600
	err := e.db.WithTx(e.ctx, func(ctx context.Context) error {
		for i := range n {
			f := searchFixture{repoID: repos[rng.IntN(len(repos))], pull: rng.IntN(4) == 0, closed: rng.IntN(3) == 0}
			var tw []string
			for range 3 {
				tw = append(tw, words[rng.IntN(len(words))])
			}
			f.title = strings.Join(tw, " ")
			f.content = decoys[rng.IntN(len(decoys))] + " body " + fmt.Sprint(i)
			if i%500 == 0 {
				f.content += " zephyr"
			}
			id, err := e.db.Insert(ctx, "INSERT INTO issue (repo_id, idx, poster_id, title, content, is_closed, is_pull, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
				f.repoID, i+1, e.doer.ID, f.title, f.content, f.closed, f.pull, 1_700_000_000+i, 1_700_000_000+i)
			if err != nil {
				return err
			}
			f.id = id
			fixtures = append(fixtures, f)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	type search struct {
		name string
		o    ListOptions
	}
	pulls, issues := true, false
	searches := []search{
		{"one repository, open", ListOptions{RepoIDs: []int64{e.repo.ID}, Keyword: "leak"}},
		{"one repository, all", ListOptions{RepoIDs: []int64{e.repo.ID}, Keyword: "leak", State: "all"}},
		{"one repository, closed, oldest", ListOptions{RepoIDs: []int64{e.repo.ID}, Keyword: "leak", State: "closed", Sort: "oldest"}},
		{"readable units differ", ListOptions{UnitRepos: &UnitRepos{Issues: []int64{e.repo.ID, other.ID}, Pulls: []int64{third.ID}},
			Keyword: "leak", State: "all"}},
		{"pulls only", ListOptions{UnitRepos: &UnitRepos{Issues: repos, Pulls: repos}, Keyword: "lea", State: "all", IsPull: &pulls}},
		{"issues only, two words", ListOptions{UnitRepos: &UnitRepos{Issues: repos, Pulls: repos}, Keyword: "Leak, alpha!", IsPull: &issues}},
		{"rare word", ListOptions{UnitRepos: &UnitRepos{Issues: repos, Pulls: repos}, Keyword: "zephyr", State: "all"}},
		{"word of a tag", ListOptions{UnitRepos: &UnitRepos{Issues: repos, Pulls: repos}, Keyword: "open", State: "all"}},
		{"a tag token as a word", ListOptions{UnitRepos: &UnitRepos{Issues: repos, Pulls: repos}, Keyword: fmt.Sprintf("i%do", e.repo.ID), State: "all"}},
	}
	expect := func(o ListOptions) []int64 {
		var ids []int64
		for _, f := range fixtures {
			visible := slices.Contains(o.RepoIDs, f.repoID)
			if o.UnitRepos != nil {
				visible = slices.Contains(o.UnitRepos.Issues, f.repoID) && !f.pull || slices.Contains(o.UnitRepos.Pulls, f.repoID) && f.pull
			}
			state := o.State == "all" || f.closed == (o.State == "closed")
			kind := o.IsPull == nil || *o.IsPull == f.pull
			text := true
			for _, w := range searchWords(o.Keyword) {
				text = text && f.hasWord(w)
			}
			if visible && state && kind && text {
				ids = append(ids, f.id)
			}
		}
		if o.Sort != "oldest" {
			slices.Reverse(ids)
		}
		return ids
	}
	check := func(t *testing.T, s search) {
		t.Helper()
		want := expect(s.o)
		for _, page := range []struct{ limit, offset int }{{30, 0}, {7, 21}, {50, len(want) / 2}, {30, max(len(want)-10, 0)}, {30, len(want) + 5}} {
			o := s.o
			o.Limit, o.Offset = page.limit, page.offset
			list, total, err := e.s.Search(e.ctx, o)
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			if total != int64(len(want)) {
				t.Fatalf("%s: total %d, want %d", s.name, total, len(want))
			}
			var got []int64
			for _, is := range list {
				got = append(got, is.ID)
			}
			wantPage := want[min(page.offset, len(want)):min(page.offset+page.limit, len(want))]
			if !slices.Equal(got, wantPage) && !(len(got) == 0 && len(wantPage) == 0) {
				t.Fatalf("%s, limit %d offset %d: got %v, want %v", s.name, page.limit, page.offset, got, wantPage)
			}
		}
	}
	for _, s := range searches {
		check(t, s)
	}
	// The common-word searches are the ones answered from the index alone.
	for _, s := range searches[:6] {
		if s.o.textOnlyMatch() == "" {
			t.Fatalf("%s: not answerable from the index alone", s.name)
		}
	}

	// Edits, state changes, kind changes and deletions keep the index in step.
	for i := range fixtures {
		f := &fixtures[i]
		var err error
		switch i % 7 {
		case 0:
			f.closed = !f.closed
			_, err = e.db.Exec(e.ctx, "UPDATE issue SET is_closed = ? WHERE id = ?", f.closed, f.id)
		case 1:
			f.title = "gamma crash"
			_, err = e.db.Exec(e.ctx, "UPDATE issue SET title = ? WHERE id = ?", f.title, f.id)
		case 2:
			f.pull = !f.pull
			_, err = e.db.Exec(e.ctx, "UPDATE issue SET is_pull = ? WHERE id = ?", f.pull, f.id)
		case 3:
			_, err = e.db.Exec(e.ctx, "DELETE FROM issue WHERE id = ?", f.id)
			f.repoID = -1
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range searches {
		check(t, s)
	}
}

// TestTextOnlyMatch checks which searches the full-text index answers alone
// and the index query they become.
func TestTextOnlyMatch(t *testing.T) {
	pull := true
	got := ListOptions{RepoIDs: []int64{4}, Keyword: "Memory leak"}.textOnlyMatch()
	if want := `{title content} : ("memory"* AND "leak"*) AND tags : (i4o OR p4o)`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	got = ListOptions{UnitRepos: &UnitRepos{Issues: []int64{1}, Pulls: []int64{2, 3}}, Keyword: "leak", State: "all", IsPull: &pull}.textOnlyMatch()
	if want := `{title content} : ("leak"*) AND tags : (p2 OR p3)`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	for name, o := range map[string]ListOptions{
		"number":          {RepoIDs: []int64{1}, Keyword: "#12"},
		"label filter":    {RepoIDs: []int64{1}, Keyword: "leak", LabelIDs: []int64{3}},
		"sort by update":  {RepoIDs: []int64{1}, Keyword: "leak", Sort: "recentupdate"},
		"condition":       {RepoCond: "i.repo_id IN (1)", Keyword: "leak"},
		"no repositories": {UnitRepos: &UnitRepos{}, Keyword: "leak"},
		"no words":        {RepoIDs: []int64{1}, Keyword: "!!"},
		"bad state":       {RepoIDs: []int64{1}, Keyword: "leak", State: "shut"},
	} {
		if got := o.textOnlyMatch(); got != "" {
			t.Errorf("%s: answered from the index alone: %s", name, got)
		}
	}
}
