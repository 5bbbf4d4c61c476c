package web

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/cairn-forge/cairn/internal/git"
)

// codeLanguagesMaxEntries bounds the tree entries the languages bar looks at.
const codeLanguagesMaxEntries = 200_000

// codeLanguageColors is how many colors the languages bar cycles through
// (classes lang-0 ... in cairn.css).
const codeLanguageColors = 8

// codeHome is the summary at the top of a repository's home page.
type codeHome struct {
	Description, Website string
	Topics               []string
	// CloneHTTP and CloneSSH are the clone addresses ("" when SSH is off).
	CloneHTTP, CloneSSH string
	Stars, Watchers     int
	Forks               int
	Languages           []codeLanguage
}

// codeLanguage is one language of the languages bar.
type codeLanguage struct {
	Name string
	// Percent is the share, with one decimal ("42.1"); X where its segment
	// of the bar starts, both in percent.
	Percent, X string
	// Class colors the segment.
	Class string
}

// summary reads the summary: one query (the topics).
func (c *codePages) summary(ctx context.Context, rc *repoCtx) (*codeHome, error) {
	full := rc.Owner.Name + "/" + rc.Repo.Name
	hi := &codeHome{Description: rc.Repo.Description, Website: rc.Repo.Website,
		CloneHTTP: c.h.rootURL + escapeSegments(full) + ".git",
		Stars:     rc.Repo.NumStars, Watchers: rc.Repo.NumWatches, Forks: rc.Repo.NumForks}
	if addr := c.h.Config.SSHAddr; addr != "" && addr != "off" {
		hi.CloneSSH = c.h.Config.SSHCloneURL(full)
	}
	topics, err := c.h.Repos.TopicsOf(ctx, []int64{rc.Repo.ID})
	if err != nil {
		return nil, err
	}
	hi.Topics = topics[rc.Repo.ID]
	return hi, nil
}

// languages is the languages bar of a commit's tree, largest first:
// counted once per repository and commit, then cached.
func (c *codePages) languages(ctx context.Context, repoID int64, repoPath, commit string) ([]codeLanguage, error) {
	key := strconv.FormatInt(repoID, 10) + "\x00" + commit
	if l, ok := c.languageCache.get(key); ok {
		return l, nil
	}
	stats, err := c.h.Git.LanguageStats(ctx, repoPath, commit, codeLanguagesMaxEntries)
	if errors.Is(err, git.ErrNotFound) {
		stats, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	var total int64
	names := make([]string, 0, len(stats))
	for name, n := range stats {
		total += n
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		if stats[names[i]] != stats[names[j]] {
			return stats[names[i]] > stats[names[j]]
		}
		return names[i] < names[j]
	})
	var out []codeLanguage
	x := 0.0
	for i, name := range names {
		pct := float64(stats[name]) * 100 / float64(total)
		out = append(out, codeLanguage{Name: name, Percent: fmt.Sprintf("%.1f", pct), X: fmt.Sprintf("%.2f", x),
			Class: "lang-" + strconv.Itoa(i%codeLanguageColors)})
		x += pct
	}
	c.languageCache.put(key, out, 1)
	return out, nil
}
