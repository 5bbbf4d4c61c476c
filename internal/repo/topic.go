package repo

import (
	"context"
	"regexp"
	"sort"
	"strings"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
)

var topicPattern = regexp.MustCompile(`^[a-z0-9][-.a-z0-9]*$`)

// ValidateTopics lower-cases, de-duplicates and checks topics: letters,
// digits, '-' and '.', starting with a letter or digit, at most 35
// characters, at most 25 topics.
func ValidateTopics(in []string) ([]string, []string) {
	seen := map[string]bool{}
	var ok, bad []string
	for _, t := range in {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		if len(t) > 35 || !topicPattern.MatchString(t) {
			bad = append(bad, t)
			continue
		}
		ok = append(ok, t)
	}
	sort.Strings(ok)
	return ok, bad
}

// TopicsOf returns the topics of many repositories in one query.
func (s *Service) TopicsOf(ctx context.Context, ids []int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, "SELECT repo_id, topic FROM repo_topic WHERE repo_id IN "+db.In(len(ids))+" ORDER BY topic", db.Int64Args(ids)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var t string
		if err := rows.Scan(&id, &t); err != nil {
			return nil, err
		}
		out[id] = append(out[id], t)
	}
	return out, rows.Err()
}

// SetTopics replaces the topics of repository id.
func (s *Service) SetTopics(ctx context.Context, id int64, topics []string) error {
	ok, bad := ValidateTopics(topics)
	if len(bad) > 0 {
		return errs.InvalidField("topics", "invalid topics: %s (topics must start with a letter or digit, contain only letters, digits, '-' and '.', and be at most 35 characters)", strings.Join(bad, ", "))
	}
	if len(ok) > 25 {
		return errs.InvalidField("topics", "too many topics: at most 25")
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.Exec(ctx, "DELETE FROM repo_topic WHERE repo_id = ?", id); err != nil {
			return err
		}
		for _, t := range ok {
			if _, err := s.db.Insert(ctx, "INSERT INTO repo_topic (repo_id, topic, created_unix) VALUES (?, ?, ?)", id, t, db.Now()); err != nil {
				return err
			}
		}
		return nil
	})
}

// AddTopic adds one topic to repository id.
func (s *Service) AddTopic(ctx context.Context, id int64, topic string) error {
	ok, bad := ValidateTopics([]string{topic})
	if len(bad) > 0 || len(ok) != 1 {
		return errs.InvalidField("topic", "invalid topic %q", topic)
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		n, err := s.db.Count(ctx, "SELECT COUNT(*) FROM repo_topic WHERE repo_id = ?", id)
		if err != nil {
			return err
		}
		exists, err := s.db.Exists(ctx, "SELECT 1 FROM repo_topic WHERE repo_id = ? AND topic = ?", id, ok[0])
		if err != nil || exists {
			return err
		}
		if n >= 25 {
			return errs.InvalidField("topics", "too many topics: at most 25")
		}
		_, err = s.db.Insert(ctx, "INSERT INTO repo_topic (repo_id, topic, created_unix) VALUES (?, ?, ?)", id, ok[0], db.Now())
		return err
	})
}

// DeleteTopic removes one topic from repository id.
func (s *Service) DeleteTopic(ctx context.Context, id int64, topic string) error {
	_, err := s.db.Exec(ctx, "DELETE FROM repo_topic WHERE repo_id = ? AND topic = ?", id, strings.ToLower(strings.TrimSpace(topic)))
	return err
}
