package repo

import "context"

// CollaboratorModes returns the access mode (CollabRead, CollabWrite,
// CollabAdmin) of every collaborator of repository repoID, by user id: one
// query.
func (s *Service) CollaboratorModes(ctx context.Context, repoID int64) (map[int64]int, error) {
	rows, err := s.db.Query(ctx, "SELECT user_id, mode FROM collaboration WHERE repo_id = ?", repoID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]int{}
	for rows.Next() {
		var uid int64
		var mode int
		if err := rows.Scan(&uid, &mode); err != nil {
			return nil, err
		}
		out[uid] = mode
	}
	return out, rows.Err()
}
