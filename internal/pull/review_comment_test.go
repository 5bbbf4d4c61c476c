package pull

import (
	"strings"
	"testing"

	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/user"
)

const sampleDiff = `diff --git a/f.txt b/f.txt
index 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644
--- a/f.txt
+++ b/f.txt
@@ -1,6 +1,7 @@
 one
-two
+TWO
+two and a half
 three
 four
 five
@@ -20,3 +21,3 @@ func x() {
 twenty
-twenty-one
+21
 twenty-two
`

const sampleHeader = "diff --git a/f.txt b/f.txt\n" +
	"index 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644\n" +
	"--- a/f.txt\n+++ b/f.txt\n"

func TestCutDiffAroundLine(t *testing.T) {
	cases := []struct {
		name string
		line int64
		old  bool
		keep int
		want string // "" when the line is not shown
	}{
		{"new line", 3, false, 4, "@@ -1,2 +1,3 @@\n one\n-two\n+TWO\n+two and a half"},
		{"window bounds", 3, false, 2, "@@ -3,0 +2,2 @@\n+TWO\n+two and a half"},
		{"old line", 2, true, 4, "@@ -1,2 +1,1 @@\n one\n-two"},
		{"context line on the new side", 5, false, 3, "@@ -3,2 +3,3 @@\n+two and a half\n three\n four"},
		{"context line on the old side", 4, true, 1, "@@ -4,1 +5,1 @@\n four"},
		{"second hunk", 22, false, 4, "@@ -20,2 +21,2 @@\n twenty\n-twenty-one\n+21"},
		{"first line", 1, false, 4, "@@ -1,1 +1,1 @@\n one"},
		{"removed line is not on the new side", 2, false, 4, "@@ -1,2 +1,2 @@\n one\n-two\n+TWO"},
		{"line outside the hunks", 12, false, 4, ""},
		{"no line", 0, false, 4, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := cutDiffAroundLine(strings.NewReader(sampleDiff), c.line, c.old, c.keep)
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if want != "" {
				want = sampleHeader + want
			}
			if got != want {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
			if want != "" && diffHunkOf(got) == "" {
				t.Fatal("the API would show no hunk")
			}
		})
	}
}

// diffHunkOf mirrors the API's view of a stored patch.
func diffHunkOf(patch string) string {
	parts := strings.Split(patch, "\n@@")
	if len(parts) == 2 {
		return "@@" + parts[1]
	}
	return ""
}

func TestCheckReviewEvent(t *testing.T) {
	p := &PullRequest{Issue: &issue.Issue{PosterID: 1}}
	cases := []struct {
		name     string
		doer     int64
		typ      ReviewType
		body     string
		comments bool
		bad      bool
	}{
		{"approve own", 1, ReviewApprove, "", false, true},
		{"approve", 2, ReviewApprove, "", false, false},
		{"reject own", 1, ReviewReject, "no", false, true},
		{"reject without body", 2, ReviewReject, " ", true, true},
		{"reject", 2, ReviewReject, "no", false, false},
		{"comment without anything", 2, ReviewComment, "", false, true},
		{"comment with line comments", 2, ReviewComment, "", true, false},
		{"comment on own", 1, ReviewComment, "note", false, false},
		{"pending without body", 2, ReviewPending, "", true, true},
		{"pending", 2, ReviewPending, "later", true, false},
		{"unknown", 2, ReviewType(9), "x", true, true},
	}
	for _, c := range cases {
		err := CheckReviewEvent(&user.User{ID: c.doer}, p, c.typ, c.body, c.comments)
		if (err != nil) != c.bad {
			t.Errorf("%s: err = %v", c.name, err)
		}
	}
}
