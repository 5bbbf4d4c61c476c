package mail

import (
	"strings"
	"testing"
	"time"
)

func TestMentions(t *testing.T) {
	for _, c := range []struct {
		text, name string
		want       bool
	}{
		{"ping @alice please", "alice", true},
		{"@Alice at the start", "alice", true},
		{"(@alice)", "alice", true},
		{"@alice-bob is someone else", "alice", false},
		{"mail alice@alice.org", "alice", false},
		{"@alicex", "alice", false},
		{"", "alice", false},
	} {
		if got := mentions(c.text, c.name); got != c.want {
			t.Errorf("mentions(%q, %q) = %v, want %v", c.text, c.name, got, c.want)
		}
	}
}

func TestMentionedNames(t *testing.T) {
	// The names the fan-out looks up: issue.FindMentions, as every mention.
	text := "@alice and @Bob., not a@b.c nor x/@y; again @ALICE, @dev.team-1"
	for name, want := range map[string]bool{"alice": true, "Bob": true, "dev.team-1": true, "b": false, "y": false, "b.c": false} {
		if got := mentions(text, name); got != want {
			t.Errorf("mentions(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{3 * time.Hour: "3 hours", time.Hour: "1 hour", 90 * time.Minute: "90 minutes", time.Minute: "1 minute"} {
		if got := humanDuration(d); got != want {
			t.Errorf("humanDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

// TestViewsEscape: the HTML part escapes user text, the text part keeps it.
func TestViewsEscape(t *testing.T) {
	v, err := loadViews()
	if err != nil {
		t.Fatal(err)
	}
	m, err := v.render("text", map[string]any{"Body": `<script>x</script> & "q"`, "AppName": "Cairn", "RootURL": "http://h/"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Text, `<script>x</script> & "q"`) || strings.Contains(m.HTML, "<script>") ||
		!strings.Contains(m.HTML, "&lt;script&gt;x&lt;/script&gt; &amp; &#34;q&#34;") {
		t.Fatalf("text:\n%s\nhtml:\n%s", m.Text, m.HTML)
	}
}
