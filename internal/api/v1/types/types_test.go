package types

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// apiDescription is Gitea 1.23's type catalogue (testdata/gitea/gitea-1.23-api.json).
type apiDescription struct {
	Types map[string]map[string]struct {
		Type     string `json:"type"`
		Optional bool   `json:"optional"`
	} `json:"types"`
}

// wireType is checked against the description: same name, same JSON keys.
// Option types may leave out keys a client can send (they are ignored), but
// response types must carry every key Gitea's has.
type wireType struct {
	v        any
	response bool
	// extra are keys Gitea sends that its description leaves out.
	extra []string
}

// foundationWireTypes are the account, organization and settings types.
var foundationWireTypes = []wireType{
	{User{}, true, []string{"username"}}, {UserSettings{}, true, nil}, {UserSettingsOptions{}, false, nil}, {Email{}, true, nil},
	{CreateEmailOption{}, false, nil}, {DeleteEmailOption{}, false, nil}, {PublicKey{}, true, nil}, {CreateKeyOption{}, false, nil},
	{AccessToken{}, true, nil}, {CreateAccessTokenOption{}, false, nil}, {CreateUserOption{}, false, nil}, {EditUserOption{}, false, nil},
	{RenameUserOption{}, false, nil}, {Organization{}, true, nil}, {CreateOrgOption{}, false, nil}, {EditOrgOption{}, false, nil},
	{OrganizationPermissions{}, true, nil}, {Team{}, true, nil}, {CreateTeamOption{}, false, nil}, {EditTeamOption{}, false, nil},
	{APIError{}, true, []string{"errors"}}, {Cron{}, true, nil}, {ServerVersion{}, true, nil}, {GeneralAPISettings{}, true, nil}, {GeneralUISettings{}, true, nil},
	{GeneralRepoSettings{}, true, nil}, {GeneralAttachmentSettings{}, true, nil},
	{PayloadUser{}, true, nil}, {PayloadCommitVerification{}, true, nil}, {GPGKey{}, true, nil}, {GPGKeyEmail{}, true, nil},
	{CreateGPGKeyOption{}, false, nil}, {PayloadCommit{}, true, nil}, {Branch{}, true, nil},
	{CreateBranchRepoOption{}, false, nil}, {UpdateBranchRepoOption{}, false, nil}, {CommitMeta{}, true, nil}, {CommitUser{}, true, nil},
	{RepoCommit{}, true, nil}, {CommitStats{}, true, nil}, {CommitAffectedFiles{}, true, nil}, {Commit{}, true, nil},
	{Compare{}, true, nil}, {Tag{}, true, nil}, {CreateTagOption{}, false, nil}, {AnnotatedTagObject{}, true, nil},
	{AnnotatedTag{}, true, nil}, {GitObject{}, true, nil}, {Reference{}, true, nil}, {GitEntry{}, true, nil},
	{GitTreeResponse{}, true, nil}, {GitBlobResponse{}, true, nil},
	{Label{}, true, nil}, {Milestone{}, true, nil}, {PullRequestMeta{}, true, nil}, {RepositoryMeta{}, true, nil},
	{Attachment{}, true, nil}, {Issue{}, true, nil}, {CreateIssueOption{}, false, nil}, {EditIssueOption{}, false, nil},
	{Comment{}, true, nil}, {CreateIssueCommentOption{}, false, nil}, {EditIssueCommentOption{}, false, nil},
	{IssueDeadline{}, true, nil}, {EditDeadlineOption{}, false, nil}, {NewIssuePinsAllowed{}, true, nil},
	{IssueTemplate{}, true, nil}, {IssueFormField{}, true, nil}, {IssueConfig{}, true, nil}, {IssueConfigContactLink{}, true, nil},
	{IssueConfigValidation{}, true, nil}, {Note{}, true, nil}, {MergeUpstreamRequest{}, false, nil}, {MergeUpstreamResponse{}, true, nil},
	{MarkdownOption{}, false, nil}, {MarkupOption{}, false, nil}, {UpdateUserAvatarOption{}, false, nil}, {UpdateRepoAvatarOption{}, false, nil},
	{CommitStatus{}, true, nil}, {CombinedStatus{}, true, nil}, {CreateStatusOption{}, false, nil},
	{Repository{}, true, nil}, {CreateRepoOption{}, false, nil}, {EditRepoOption{}, false, nil}, {Permission{}, true, nil},
	{InternalTracker{}, true, nil}, {ExternalTracker{}, true, nil}, {ExternalWiki{}, true, nil}, {RepoTransfer{}, true, nil},
	{SearchResults{}, true, nil},
	{ContentsResponse{}, true, nil}, {FileLinksResponse{}, true, nil}, {FileCommitResponse{}, true, nil}, {FileResponse{}, true, nil},
	{FilesResponse{}, true, nil}, {FileDeleteResponse{}, true, nil}, {Identity{}, false, nil}, {CommitDateOptions{}, false, nil},
	{CreateFileOptions{}, false, nil}, {UpdateFileOptions{}, false, nil}, {DeleteFileOptions{}, false, nil},
	{ChangeFileOperation{}, false, nil}, {ChangeFilesOptions{}, false, nil},
	{GitignoreTemplateInfo{}, true, nil}, {LicensesTemplateListEntry{}, true, nil}, {LicenseTemplateInfo{}, true, nil}, {LabelTemplate{}, true, nil},
	{DeployKey{}, true, nil},
	{RepoCollaboratorPermission{}, true, nil}, {AddCollaboratorOption{}, false, nil}, {CreateForkOption{}, false, nil}, {TransferRepoOption{}, false, nil}, {GenerateRepoOption{}, false, nil}, {MigrateRepoOptions{}, false, nil}, {WatchInfo{}, true, nil}, {TopicName{}, true, nil}, {RepoTopicOptions{}, false, nil}, {TopicResponse{}, true, nil},
	{PullRequest{}, true, nil}, {PRBranchInfo{}, true, nil}, {CreatePullRequestOption{}, false, nil},
	{EditPullRequestOption{}, false, nil}, {MergePullRequestOption{}, false, nil}, {ChangedFile{}, true, nil},
	{PullReview{}, true, nil}, {PullReviewComment{}, true, nil}, {CreatePullReviewOptions{}, false, nil},
	{CreatePullReviewComment{}, false, nil}, {SubmitPullReviewOptions{}, false, nil}, {DismissPullReviewOptions{}, false, nil},
	{PullReviewRequestOptions{}, false, nil},
	{BranchProtection{}, true, nil}, {CreateBranchProtectionOption{}, false, nil}, {EditBranchProtectionOption{}, false, nil},
	{UpdateBranchProtectionPriories{}, false, nil}, {TagProtection{}, true, nil}, {CreateTagProtectionOption{}, false, nil},
	{EditTagProtectionOption{}, false, nil},
	{Release{}, true, nil}, {CreateReleaseOption{}, false, nil}, {EditReleaseOption{}, false, nil},
	{Hook{}, true, []string{"disabled_reason"}}, {CreateHookOption{}, false, nil}, {EditHookOption{}, false, nil},
}

func TestWireTypesMatchGitea(t *testing.T) { checkWireTypes(t, foundationWireTypes) }

// checkWireTypes compares each type's JSON keys with Gitea's description.
func checkWireTypes(t *testing.T, wireTypes []wireType) {
	t.Helper()
	raw, err := os.ReadFile("../../../../testdata/gitea/gitea-1.23-api.json")
	if err != nil {
		t.Fatal(err)
	}
	var desc apiDescription
	if err := json.Unmarshal(raw, &desc); err != nil {
		t.Fatal(err)
	}
	for _, wt := range wireTypes {
		typ := reflect.TypeOf(wt.v)
		want, ok := desc.Types[typ.Name()]
		if !ok {
			t.Errorf("%s: no such type in Gitea's API", typ.Name())
			continue
		}
		have := map[string]bool{}
		for i := 0; i < typ.NumField(); i++ {
			key := strings.Split(typ.Field(i).Tag.Get("json"), ",")[0]
			if key == "" || key == "-" {
				continue
			}
			have[key] = true
			if _, ok := want[key]; !ok && !contains(wt.extra, key) {
				t.Errorf("%s.%s: Gitea's %s has no key %q", typ.Name(), typ.Field(i).Name, typ.Name(), key)
			}
		}
		for key, f := range want {
			if !have[key] && (wt.response || !f.Optional) {
				t.Errorf("%s: key %q of Gitea's type is missing", typ.Name(), key)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
