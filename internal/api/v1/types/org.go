package types

// Organization is Gitea's Organization.
type Organization struct {
	ID                        int64  `json:"id"`
	Name                      string `json:"name"`
	FullName                  string `json:"full_name"`
	Email                     string `json:"email"`
	AvatarURL                 string `json:"avatar_url"`
	Description               string `json:"description"`
	Website                   string `json:"website"`
	Location                  string `json:"location"`
	Visibility                string `json:"visibility"`
	RepoAdminChangeTeamAccess bool   `json:"repo_admin_change_team_access"`
	UserName                  string `json:"username"`
}

// CreateOrgOption is the body of POST /orgs.
type CreateOrgOption struct {
	UserName                  string `json:"username" binding:"MaxSize(40)"`
	FullName                  string `json:"full_name" binding:"MaxSize(100)"`
	Email                     string `json:"email"`
	Description               string `json:"description"`
	Website                   string `json:"website"`
	Location                  string `json:"location" binding:"MaxSize(50)"`
	Visibility                string `json:"visibility"`
	RepoAdminChangeTeamAccess bool   `json:"repo_admin_change_team_access"`
}

// EditOrgOption is the body of PATCH /orgs/{org}.
type EditOrgOption struct {
	FullName                  *string `json:"full_name" binding:"MaxSize(100)"`
	Email                     *string `json:"email"`
	Description               *string `json:"description"`
	Website                   *string `json:"website"`
	Location                  *string `json:"location" binding:"MaxSize(50)"`
	Visibility                *string `json:"visibility"`
	RepoAdminChangeTeamAccess *bool   `json:"repo_admin_change_team_access"`
}

// OrganizationPermissions is Gitea's OrganizationPermissions.
type OrganizationPermissions struct {
	IsOwner             bool `json:"is_owner"`
	IsAdmin             bool `json:"is_admin"`
	CanWrite            bool `json:"can_write"`
	CanRead             bool `json:"can_read"`
	CanCreateRepository bool `json:"can_create_repository"`
}

// Team is Gitea's Team.
type Team struct {
	ID                      int64             `json:"id"`
	Name                    string            `json:"name"`
	Description             string            `json:"description"`
	Organization            *Organization     `json:"organization"`
	IncludesAllRepositories bool              `json:"includes_all_repositories"`
	Permission              string            `json:"permission"`
	Units                   []string          `json:"units"`
	UnitsMap                map[string]string `json:"units_map"`
	CanCreateOrgRepo        bool              `json:"can_create_org_repo"`
}

// CreateTeamOption is the body of POST /orgs/{org}/teams.
type CreateTeamOption struct {
	Name                    string            `json:"name"`
	Description             string            `json:"description"`
	IncludesAllRepositories bool              `json:"includes_all_repositories"`
	Permission              string            `json:"permission"`
	Units                   []string          `json:"units"`
	UnitsMap                map[string]string `json:"units_map"`
	CanCreateOrgRepo        bool              `json:"can_create_org_repo"`
}

// EditTeamOption is the body of PATCH /teams/{id}: every field is optional.
type EditTeamOption struct {
	Name                    *string           `json:"name"`
	Description             *string           `json:"description"`
	IncludesAllRepositories *bool             `json:"includes_all_repositories"`
	Permission              *string           `json:"permission"`
	Units                   []string          `json:"units"`
	UnitsMap                map[string]string `json:"units_map"`
	CanCreateOrgRepo        *bool             `json:"can_create_org_repo"`
}

// TeamSearchResult is the envelope of GET /orgs/{org}/teams/search.
type TeamSearchResult struct {
	OK   bool    `json:"ok"`
	Data []*Team `json:"data"`
}
