// Package org owns organizations: their creation and settings, membership,
// teams (with per-unit access), team members and the repositories a team is
// given. An organization is a row of the users table with type 1; membership is
// org_user (with the public flag), teams are team, team_user and team_repo.
//
// Permission decisions (who may call what) stay in internal/access and the API
// layer; this package enforces the rules of the data: names, the Owners team and
// its last member, unit access of teams.
package org

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// OwnerTeamName is the name of the team every organization is created with.
const OwnerTeamName = "Owners"

// Field length limits, as in Gitea's request bindings.
const (
	maxFullNameLength    = 100
	maxDescriptionLength = 255
	maxWebsiteLength     = 255
	maxLocationLength    = 50
	maxTeamNameLength    = 255
)

// RepoCounter counts the repositories an owner (user or organization) has. The
// repository package implements it; organization deletion refuses while the
// count is not zero.
type RepoCounter interface {
	CountOwnedRepos(ctx context.Context, ownerID int64) (int64, error)
}

// Service applies the organization and team rules.
type Service struct {
	db          *db.DB
	users       *user.Service
	repos       RepoCounter
	deleteHooks []DeleteHook
}

// DeleteHook runs inside the transaction that deletes an organization, to
// remove what other services keep for it; an error undoes the deletion.
type DeleteHook func(ctx context.Context, org *user.User) error

// AddDeleteHook registers h for every organization deletion. Call it only
// while wiring.
func (s *Service) AddDeleteHook(h DeleteHook) { s.deleteHooks = append(s.deleteHooks, h) }

// NewService returns the organization service.
func NewService(d *db.DB, users *user.Service) *Service {
	return &Service{db: d, users: users}
}

// SetRepoCounter gives the service the repository count used by Delete. Call
// it only while wiring; without it an organization is taken to own no repositories.
func (s *Service) SetRepoCounter(rc RepoCounter) { s.repos = rc }

// CreateOptions describes a new organization.
type CreateOptions struct {
	Name                      string
	FullName                  string
	Email                     string
	Description               string
	Website                   string
	Location                  string
	Visibility                user.Visibility
	RepoAdminChangeTeamAccess bool
}

// Create stores a new organization owned by doer: doer becomes the only member
// of its Owners team. The caller decides whether doer may create organizations.
func (s *Service) Create(ctx context.Context, doer *user.User, o CreateOptions) (*user.User, error) {
	if doer == nil || doer.IsOrganization() || doer.ID <= 0 {
		return nil, errs.Invalid("an organization must be created by an individual user")
	}
	if err := user.ValidateName(o.Name); err != nil {
		return nil, orgNameError(err)
	}
	o.Email = strings.TrimSpace(o.Email)
	if err := validateProfile(o.FullName, o.Email, o.Description, o.Website, o.Location); err != nil {
		return nil, err
	}
	if err := validateVisibility(o.Visibility); err != nil {
		return nil, err
	}
	org := &user.User{
		Type:                      user.TypeOrganization,
		Name:                      o.Name,
		FullName:                  o.FullName,
		Email:                     o.Email,
		Description:               o.Description,
		Website:                   o.Website,
		Location:                  o.Location,
		Visibility:                o.Visibility,
		RepoAdminChangeTeamAccess: o.RepoAdminChangeTeamAccess,
		IsActive:                  true,
		MaxRepoCreation:           -1,
	}
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.users.CheckNameFree(ctx, org.Name); err != nil {
			return err
		}
		if err := s.users.Store.Insert(ctx, org); err != nil {
			return err
		}
		owners := &Team{
			OrgID:                   org.ID,
			Name:                    OwnerTeamName,
			Authorize:               access.ModeOwner,
			Units:                   allUnits(access.ModeOwner),
			IncludesAllRepositories: true,
			CanCreateOrgRepo:        true,
		}
		if err := s.insertTeam(ctx, owners); err != nil {
			return err
		}
		return s.addTeamMember(ctx, owners, doer.ID)
	})
	if err != nil {
		return nil, err
	}
	return org, nil
}

// orgNameError rewords a user-name validation error for an organization name,
// keeping its kind, status and field.
func orgNameError(err error) error {
	var e *errs.Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Message = strings.Replace(c.Message, "username", "organization name", 1)
	return &c
}

// validateProfile checks an organization's profile fields. Lengths are in
// characters, as Gitea's MaxSize bindings count them.
func validateProfile(fullName, email, description, website, location string) error {
	if utf8.RuneCountInString(fullName) > maxFullNameLength {
		return errs.InvalidField("full_name", "full name is too long: at most %d characters", maxFullNameLength)
	}
	if email != "" {
		if err := user.ValidateEmail(email); err != nil {
			return err
		}
	}
	if utf8.RuneCountInString(description) > maxDescriptionLength {
		return errs.InvalidField("description", "description is too long: at most %d characters", maxDescriptionLength)
	}
	if utf8.RuneCountInString(location) > maxLocationLength {
		return errs.InvalidField("location", "location is too long: at most %d characters", maxLocationLength)
	}
	return validateWebsite(website)
}

func validateWebsite(website string) error {
	if website == "" {
		return nil
	}
	if utf8.RuneCountInString(website) > maxWebsiteLength {
		return errs.InvalidField("website", "website is too long: at most %d characters", maxWebsiteLength)
	}
	u, err := url.Parse(website)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errs.InvalidField("website", "website %q is not a valid http or https URL", website)
	}
	return nil
}

func validateVisibility(v user.Visibility) error {
	switch v {
	case user.VisibilityPublic, user.VisibilityLimited, user.VisibilityPrivate:
		return nil
	}
	return errs.InvalidField("visibility", "visibility %d is not one of public, limited, private", int(v))
}

// EditOptions changes an organization's settings; nil fields stay unchanged.
type EditOptions struct {
	FullName                  *string
	Email                     *string
	Description               *string
	Website                   *string
	Location                  *string
	Visibility                *user.Visibility
	RepoAdminChangeTeamAccess *bool
}

// Edit applies o to org and returns the updated organization; org itself is
// not modified.
func (s *Service) Edit(ctx context.Context, org *user.User, o EditOptions) (*user.User, error) {
	if err := requireOrg(org); err != nil {
		return nil, err
	}
	c := *org
	if o.FullName != nil {
		c.FullName = *o.FullName
	}
	if o.Email != nil {
		c.Email = strings.TrimSpace(*o.Email)
	}
	if o.Description != nil {
		c.Description = *o.Description
	}
	if o.Website != nil {
		c.Website = *o.Website
	}
	if o.Location != nil {
		c.Location = *o.Location
	}
	if o.Visibility != nil {
		if err := validateVisibility(*o.Visibility); err != nil {
			return nil, err
		}
		c.Visibility = *o.Visibility
	}
	if o.RepoAdminChangeTeamAccess != nil {
		c.RepoAdminChangeTeamAccess = *o.RepoAdminChangeTeamAccess
	}
	if err := validateProfile(c.FullName, c.Email, c.Description, c.Website, c.Location); err != nil {
		return nil, err
	}
	if err := s.users.Store.Update(ctx, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// Delete removes org with its teams and memberships. It refuses while the
// organization still owns repositories. The caller checks that the doer is an owner.
func (s *Service) Delete(ctx context.Context, org *user.User) error {
	if err := requireOrg(org); err != nil {
		return err
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if s.repos != nil {
			n, err := s.repos.CountOwnedRepos(ctx, org.ID)
			if err != nil {
				return err
			}
			if n > 0 {
				return errs.Invalid("organization still has ownership of repositories [uid: %d, count: %d]", org.ID, n)
			}
		}
		// Keep the following counters of the organization's followers right.
		if _, err := s.db.Exec(ctx, "UPDATE users SET num_following = num_following - 1 WHERE id IN (SELECT user_id FROM follow WHERE follow_id = ?)", org.ID); err != nil {
			return err
		}
		for _, q := range []string{
			"DELETE FROM team_repo WHERE org_id = ?",
			"DELETE FROM team_user WHERE org_id = ?",
			"DELETE FROM team WHERE org_id = ?",
			"DELETE FROM org_user WHERE org_id = ?",
			"DELETE FROM follow WHERE follow_id = ?",
			"DELETE FROM email_address WHERE uid = ?",
			// Organization labels: no issue can carry them any more, since an
			// organization is deleted only once it owns no repositories.
			"DELETE FROM label WHERE org_id = ?",
			"DELETE FROM users WHERE id = ? AND type = 1",
		} {
			if _, err := s.db.Exec(ctx, q, org.ID); err != nil {
				return err
			}
		}
		for _, h := range s.deleteHooks {
			if err := h(ctx, org); err != nil {
				return err
			}
		}
		return nil
	})
}

func requireOrg(org *user.User) error {
	if org == nil || !org.IsOrganization() {
		name := ""
		if org != nil {
			name = org.Name
		}
		return errs.Invalid("%s is not an organization", name)
	}
	return nil
}

// ErrNameNotExist is the error for an organization name that does not exist.
// The API answers exactly the same for one the caller may not see.
func ErrNameNotExist(name string) *errs.Error {
	return errs.NotFound("org does not exist [name: %s]", name)
}

// GetByName loads the organization called name (case-insensitive). A missing
// name, or one that belongs to an individual user, is not found.
func (s *Service) GetByName(ctx context.Context, name string) (*user.User, error) {
	list, err := s.users.Store.List(ctx, "WHERE u.lower_name = ? AND u.type = 1", strings.ToLower(name))
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, ErrNameNotExist(name)
	}
	return list[0], nil
}

// GetByID loads the organization with id.
func (s *Service) GetByID(ctx context.Context, id int64) (*user.User, error) {
	list, err := s.users.Store.List(ctx, "WHERE u.id = ? AND u.type = 1", id)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, errs.NotFound("org does not exist [id: %d]", id)
	}
	return list[0], nil
}

// SearchOrgs lists organizations matching cond (a condition on users alias
// "u", e.g. access.OrgCond(doer); empty means all) alphabetically, with the
// total count. limit <= 0 means no limit.
func (s *Service) SearchOrgs(ctx context.Context, cond string, args []any, limit, offset int) ([]*user.User, int64, error) {
	where := "WHERE u.type = 1 AND " + condOrTrue(cond)
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM users u "+where, args...)
	if err != nil {
		return nil, 0, err
	}
	list, err := s.users.Store.List(ctx, where+" ORDER BY u.lower_name"+page(limit, offset), args...)
	return list, total, err
}

// ListUserOrgs lists the organizations uid belongs to, alphabetically, with the
// total count. With includePrivate false only public memberships count (what
// others may see of uid); with it true every membership counts (uid himself, a
// site admin). visibleCond, a condition on users alias "u" with visibleArgs
// (the API passes access.OrgCond(doer)), restricts the organizations further;
// empty means no restriction. limit <= 0 means no limit.
func (s *Service) ListUserOrgs(ctx context.Context, uid int64, includePrivate bool, visibleCond string, visibleArgs []any, limit, offset int) ([]*user.User, int64, error) {
	tail := "JOIN org_user om ON om.org_id = u.id WHERE om.uid = ? AND u.type = 1"
	args := []any{uid}
	if !includePrivate {
		tail += " AND om.is_public = ?"
		args = append(args, true)
	}
	tail += " AND " + condOrTrue(visibleCond)
	args = append(args, visibleArgs...)
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM users u "+tail, args...)
	if err != nil {
		return nil, 0, err
	}
	list, err := s.users.Store.List(ctx, tail+" ORDER BY u.lower_name"+page(limit, offset), args...)
	return list, total, err
}

func condOrTrue(cond string) string {
	if strings.TrimSpace(cond) == "" {
		return "1 = 1"
	}
	return "(" + cond + ")"
}

// page renders LIMIT/OFFSET; limit <= 0 means no limit.
func page(limit, offset int) string {
	if limit <= 0 {
		return ""
	}
	return db.LimitOffset(limit, max(offset, 0))
}

// likePattern turns a keyword into a LIKE pattern matching it anywhere, with
// "!" as the escape character (portable across the three dialects).
func likePattern(q string) string {
	r := strings.NewReplacer("!", "!!", "%", "!%", "_", "!_")
	return "%" + r.Replace(strings.ToLower(q)) + "%"
}
