package pull

import "testing"

func TestParseAGitOptions(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want agitOptions
	}{
		{nil, agitOptions{}},
		{[]string{"topic=feat/x", "title=  A title ", "description=Line one=two"},
			agitOptions{topic: "feat/x", title: "A title", description: "Line one=two"}},
		{[]string{"force-push"}, agitOptions{force: true}},
		{[]string{"force-push=true"}, agitOptions{force: true}},
		{[]string{"force-push=1"}, agitOptions{force: true}},
		{[]string{"force-push=false"}, agitOptions{}},
		{[]string{"force-push=maybe"}, agitOptions{}},
		{[]string{"force-push", "force-push=false"}, agitOptions{}},
		{[]string{"topic=a", "topic=b", "other=x"}, agitOptions{topic: "b"}},
	} {
		if got := parseAGitOptions(c.in); got != c.want {
			t.Errorf("%q = %+v, want %+v", c.in, got, c.want)
		}
	}
}
