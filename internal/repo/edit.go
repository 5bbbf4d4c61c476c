package repo

import (
	"context"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// EditOptions are the changes of a repository edit (the API's PATCH and the
// settings page): nil fields and units not named stay as they are.
type EditOptions struct {
	Name        *string
	Description *string
	Website     *string
	Private     *bool
	Template    *bool
	// Units turns the named units on or off (UnitIssues, UnitPulls, ...).
	Units map[string]bool
	// InternalTracker sets the issue tracker's options.
	InternalTracker *InternalTracker
	// ExternalTracker and ExternalWikiURL apply only when the edit turns
	// the issues, or the wiki, unit on: the external unit replaces it.
	ExternalTracker *ExternalTracker
	ExternalWikiURL *string

	IgnoreWhitespaceConflicts     *bool
	AllowMergeCommits             *bool
	AllowRebase                   *bool
	AllowRebaseExplicit           *bool
	AllowSquashMerge              *bool
	AllowFastForwardOnly          *bool
	AllowManualMerge              *bool
	AutodetectManualMerge         *bool
	AllowRebaseUpdate             *bool
	DefaultDeleteBranchAfterMerge *bool
	DefaultAllowMaintainerEdit    *bool
	DefaultMergeStyle             *string
	ProjectsMode                  *string
	DefaultBranch                 *string
	// MirrorInterval and EnablePrune apply to mirrors only.
	MirrorInterval *string
	EnablePrune    *bool
	Archived       *bool
}

// InternalTracker are the options of the built-in issue tracker.
type InternalTracker struct {
	EnableTimeTracker            bool
	AllowOnlyContributorsToTrack bool
	EnableIssueDependencies      bool
}

// ExternalTracker points the issues tab at another tracker.
type ExternalTracker struct {
	URL, Format, Style, Regexp string
}

// Editor is who edits: only the owner (an organization owner, a site admin)
// renames; FORCE_PRIVATE does not bind site administrators.
type Editor struct {
	Owner     bool
	SiteAdmin bool
	// Doer is who edits, told to the move hooks of a rename (nil: the system).
	Doer *user.User
}

// MergeStyles are the merge styles a repository may default to, Gitea's.
var mergeStyles = []string{"merge", "rebase", "rebase-merge", "squash", "fast-forward-only", "manually-merged"}

// MergeStyles lists the merge styles a repository may default to.
func MergeStyles() []string { return append([]string(nil), mergeStyles...) }

func validMergeStyle(s string) bool {
	for _, m := range mergeStyles {
		if m == s {
			return true
		}
	}
	return false
}

// maxSize refuses a value longer than n characters, in Gitea's binding form.
func maxSize(field, title, v string, n int) error {
	if len([]rune(v)) > n {
		return errs.InvalidField(field, "[%s]: MaxSize (at most %d characters)", title, n)
	}
	return nil
}

// Edit applies o to r, checking each change as Gitea does, and returns the
// repository as stored afterwards. Units that are disabled site-wide keep
// their stored state; turning one on is refused.
func (s *Service) Edit(ctx context.Context, r *Repository, o EditOptions, by Editor) (*Repository, error) {
	rp := *r
	rp.Units = map[string]bool{}
	stored, err := s.Store.GetByID(ctx, rp.ID)
	if err != nil {
		return nil, err
	}
	for u, on := range stored.Units {
		rp.Units[u] = on
	}
	if o.Name != nil && *o.Name != rp.Name {
		if err := ValidateName(*o.Name); err != nil {
			return nil, err
		}
		if !by.Owner {
			return nil, errs.Forbidden("user should be the owner of the repo")
		}
		rp.Name = *o.Name
	}
	if o.Description != nil {
		if err := maxSize("description", "Description", *o.Description, 2048); err != nil {
			return nil, err
		}
		rp.Description = *o.Description
	}
	if o.Website != nil {
		if err := maxSize("website", "Website", *o.Website, 1024); err != nil {
			return nil, err
		}
		if err := user.ValidateWebsite(*o.Website); err != nil {
			return nil, err
		}
		rp.Website = *o.Website
	}
	if o.Private != nil {
		if s.cfg.Repository.ForcePrivate && !*o.Private && !by.SiteAdmin {
			return nil, errs.InvalidField("private", "all repositories must be private on this site ([repository] FORCE_PRIVATE)")
		}
		rp.IsPrivate = *o.Private
	}
	if o.Template != nil {
		rp.IsTemplate = *o.Template
	}
	for unit, on := range o.Units {
		if on && s.UnitDisabled(unit) {
			return nil, errs.InvalidField("units", "the unit %s is disabled on this site", unit)
		}
		rp.Units[unit] = on
	}
	st := &rp.Settings
	if o.InternalTracker != nil {
		st.EnableTimeTracker = o.InternalTracker.EnableTimeTracker
		st.AllowOnlyContributorsToTrack = o.InternalTracker.AllowOnlyContributorsToTrack
		st.EnableIssueDependencies = o.InternalTracker.EnableIssueDependencies
	}
	if o.ExternalTracker != nil && o.Units[UnitIssues] {
		t := o.ExternalTracker
		if err := user.ValidateWebsite(t.URL); err != nil || t.URL == "" {
			return nil, errs.InvalidField("external_tracker", "external tracker URL is not valid")
		}
		st.ExternalTrackerURL, st.ExternalTrackerFormat, st.ExternalTrackerStyle, st.ExternalTrackerRegexp = t.URL, t.Format, t.Style, t.Regexp
		rp.Units[UnitExtIssues] = true
		rp.Units[UnitIssues] = false
	}
	if o.ExternalWikiURL != nil && o.Units[UnitWiki] {
		if err := user.ValidateWebsite(*o.ExternalWikiURL); err != nil || *o.ExternalWikiURL == "" {
			return nil, errs.InvalidField("external_wiki", "external wiki URL is not valid")
		}
		st.ExternalWikiURL = *o.ExternalWikiURL
		rp.Units[UnitExtWiki] = true
		rp.Units[UnitWiki] = false
	}
	setBool := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	setBool(&st.IgnoreWhitespaceConflicts, o.IgnoreWhitespaceConflicts)
	setBool(&st.AllowMergeCommits, o.AllowMergeCommits)
	setBool(&st.AllowRebase, o.AllowRebase)
	setBool(&st.AllowRebaseExplicit, o.AllowRebaseExplicit)
	setBool(&st.AllowSquashMerge, o.AllowSquashMerge)
	setBool(&st.AllowFastForwardOnly, o.AllowFastForwardOnly)
	setBool(&st.AllowManualMerge, o.AllowManualMerge)
	setBool(&st.AutodetectManualMerge, o.AutodetectManualMerge)
	setBool(&st.AllowRebaseUpdate, o.AllowRebaseUpdate)
	setBool(&st.DefaultDeleteBranchAfterMerge, o.DefaultDeleteBranchAfterMerge)
	setBool(&st.DefaultAllowMaintainerEdit, o.DefaultAllowMaintainerEdit)
	if o.DefaultMergeStyle != nil {
		if !validMergeStyle(*o.DefaultMergeStyle) {
			return nil, errs.InvalidField("default_merge_style", "invalid default merge style %q", *o.DefaultMergeStyle)
		}
		st.DefaultMergeStyle = *o.DefaultMergeStyle
	}
	if o.ProjectsMode != nil {
		switch *o.ProjectsMode {
		case "repo", "owner", "all":
			st.ProjectsMode = *o.ProjectsMode
		default:
			return nil, errs.InvalidField("projects_mode", "invalid projects mode %q", *o.ProjectsMode)
		}
	}
	if o.DefaultBranch != nil && *o.DefaultBranch != rp.DefaultBranch {
		if err := s.CheckDefaultBranch(ctx, &rp, *o.DefaultBranch); err != nil {
			return nil, err
		}
		rp.DefaultBranch = *o.DefaultBranch
	}
	if o.MirrorInterval != nil || o.EnablePrune != nil {
		if !rp.IsMirror {
			return nil, errs.InvalidField("mirror_interval", "repository is not a mirror")
		}
		if err := s.UpdateMirrorSettings(ctx, rp.ID, o.MirrorInterval, o.EnablePrune); err != nil {
			return nil, err
		}
	}
	if o.Archived != nil && *o.Archived != rp.IsArchived {
		rp.IsArchived = *o.Archived
		if rp.IsArchived {
			rp.Archived = rp.Updated
		}
	}
	update := func(ctx context.Context) error { return s.Update(ctx, &rp) }
	if rp.Name != stored.Name {
		update = func(ctx context.Context) error {
			return s.db.WithTx(ctx, func(ctx context.Context) error {
				if err := s.Update(ctx, &rp); err != nil {
					return err
				}
				return s.runMoveHooks(ctx, by.Doer, &rp, stored.OwnerName, stored.Name)
			})
		}
	}
	if err := update(ctx); err != nil {
		return nil, err
	}
	return s.GetByID(ctx, rp.ID)
}
