package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// golden is a rendered message as recorded in testdata/.
type golden struct {
	Skip   bool            `json:"skip,omitempty"`
	Method string          `json:"method,omitempty"`
	URL    string          `json:"url,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"`
}

func render(t *testing.T, hookType, event string) *Message {
	t.Helper()
	msg, err := Render(hookType, event, mustJSON(t, allEvents()[event]), metaFor(t, hookType), testURL[hookType])
	if err != nil {
		t.Fatalf("%s %s: %v", hookType, event, err)
	}
	return msg
}

func toGolden(t *testing.T, msg *Message) golden {
	if msg == nil {
		return golden{Skip: true}
	}
	var pretty any
	if err := json.Unmarshal(msg.Body, &pretty); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, msg.Body)
	}
	return golden{Method: msg.Method, URL: msg.URL, Body: msg.Body}
}

// readable is v as indented JSON without HTML escapes.
func readable(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decode reads JSON generically, for a structural comparison.
func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return v
}

// TestGolden compares the messages of a push and of an issue event, for
// every type, with those recorded in testdata/ (-update rewrites them).
func TestGolden(t *testing.T) {
	for _, hookType := range Types() {
		for _, event := range []string{"push", "issues", "pull_request_review_approved"} {
			name := hookType + "_" + event
			t.Run(name, func(t *testing.T) {
				got := toGolden(t, render(t, hookType, event))
				gotJSON := readable(t, got)
				path := filepath.Join("testdata", name+".json")
				if *update {
					if err := os.WriteFile(path, gotJSON, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to record)", err)
				}
				if !reflect.DeepEqual(decode(t, want), decode(t, gotJSON)) {
					t.Errorf("%s differs from the recorded message\n got: %s\nwant: %s", name, gotJSON, want)
				}
			})
		}
	}
}

// path reads a value of a decoded JSON document: keys and array indexes.
func path(v any, keys ...any) (any, bool) {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[k]; !ok {
				return nil, false
			}
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil, false
			}
			v = a[k]
		}
	}
	return v, true
}

// required are, per type, the values a message must carry: a path and
// the value expected ("" = any non-empty string, nil = present).
var required = map[string][]struct {
	keys []any
	want any
}{
	"slack": {{[]any{"channel"}, "#dev"}, {[]any{"text"}, ""}, {[]any{"username"}, "forge"},
		{[]any{"icon_url"}, "https://forge.test/icon.png"}, {[]any{"attachments"}, nil}},
	"discord": {{[]any{"username"}, "forge"}, {[]any{"avatar_url"}, "https://forge.test/icon.png"},
		{[]any{"embeds", 0, "title"}, ""}, {[]any{"embeds", 0, "url"}, ""}, {[]any{"embeds", 0, "color"}, nil},
		{[]any{"embeds", 0, "author", "name"}, ""}},
	"msteams": {{[]any{"@type"}, "MessageCard"}, {[]any{"@context"}, "https://schema.org/extensions"},
		{[]any{"themeColor"}, ""}, {[]any{"title"}, ""}, {[]any{"summary"}, ""},
		{[]any{"sections", 0, "facts", 0, "name"}, "Repository:"},
		{[]any{"potentialAction", 0, "@type"}, "OpenUri"}, {[]any{"potentialAction", 0, "targets", 0, "uri"}, ""}},
	"telegram": {{[]any{"text"}, ""}, {[]any{"parse_mode"}, "HTML"}, {[]any{"disable_web_page_preview"}, true}},
	"matrix": {{[]any{"body"}, ""}, {[]any{"msgtype"}, "m.text"}, {[]any{"format"}, "org.matrix.custom.html"},
		{[]any{"formatted_body"}, ""}},
	"dingtalk": {{[]any{"msgtype"}, "actionCard"}, {[]any{"actionCard", "text"}, ""}, {[]any{"actionCard", "title"}, ""},
		{[]any{"actionCard", "hideAvatar"}, "0"}, {[]any{"actionCard", "singleTitle"}, ""}, {[]any{"actionCard", "singleURL"}, ""}},
	"feishu":     {{[]any{"msg_type"}, "text"}, {[]any{"content", "text"}, ""}},
	"wechatwork": {{[]any{"msgtype"}, "markdown"}, {[]any{"markdown", "content"}, ""}},
	"packagist":  {{[]any{"repository", "url"}, "https://packagist.org/packages/alice/tools"}},
}

// TestEveryEvent renders every event for every type and checks each
// message carries its service's keys.
func TestEveryEvent(t *testing.T) {
	events := allEvents()
	names := make([]string, 0, len(events))
	for e := range events {
		names = append(names, e)
	}
	sort.Strings(names)
	if len(names) != 24 {
		t.Fatalf("%d events in the fixtures, want 24", len(names))
	}
	for _, hookType := range Types() {
		for _, event := range names {
			t.Run(hookType+"/"+event, func(t *testing.T) {
				msg := render(t, hookType, event)
				if hookType == "packagist" && event != "push" {
					if msg != nil {
						t.Fatalf("packagist sends for %s: %s", event, msg.Body)
					}
					return
				}
				if msg == nil {
					t.Fatal("no message")
				}
				if msg.ContentType != "application/json" {
					t.Errorf("content type %q", msg.ContentType)
				}
				doc := decode(t, msg.Body)
				for _, r := range required[hookType] {
					got, ok := path(doc, r.keys...)
					if !ok {
						t.Errorf("missing %v in %s", r.keys, msg.Body)
						continue
					}
					switch w := r.want.(type) {
					case nil:
					case string:
						if s, _ := got.(string); (w == "" && s == "") || (w != "" && s != w) {
							t.Errorf("%v = %#v, want %q", r.keys, got, w)
						}
					default:
						if got != w {
							t.Errorf("%v = %#v, want %#v", r.keys, got, w)
						}
					}
				}
				if hookType == "matrix" {
					if msg.Method != http.MethodPut || !strings.HasPrefix(msg.URL, testURL["matrix"]+"/") || len(msg.URL) != len(testURL["matrix"])+41 {
						t.Errorf("matrix request %s %s", msg.Method, msg.URL)
					}
				}
			})
		}
	}
}

func TestSlackEscapesAndLinks(t *testing.T) {
	msg := render(t, "slack", "issues")
	var p slackPayload
	if err := json.Unmarshal(msg.Body, &p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Text, "<https://forge.test/alice/tools/issues/3|#3 Crash on &lt;empty&gt; input>") {
		t.Errorf("text %q lacks the escaped issue link", p.Text)
	}
	if !strings.HasSuffix(p.Text, " by <https://forge.test/alice|alice>") {
		t.Errorf("text %q lacks the sender", p.Text)
	}
	if len(p.Attachments) != 1 || p.Attachments[0].Text != "Steps:\n1. run &amp; see" || p.Attachments[0].Color != "eb6420" {
		t.Errorf("attachments %+v", p.Attachments)
	}
}

func TestPullMergedAndReviewRequest(t *testing.T) {
	var d discordPayload
	if err := json.Unmarshal(render(t, "discord", "pull_request").Body, &d); err != nil {
		t.Fatal(err)
	}
	if d.Embeds[0].Title != "[alice/tools] Pull request merged: #5 Add the frobnicator" || d.Embeds[0].Color != colorPurple {
		t.Errorf("merged pull: %+v", d.Embeds[0])
	}
	var tg telegramPayload
	if err := json.Unmarshal(render(t, "telegram", "pull_request_review_request").Body, &tg); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tg.Text, `review requested (<a href="https://forge.test/bob">bob</a>)`) {
		t.Errorf("review request text %q", tg.Text)
	}
}

func TestMatrixTxnIDIsTheBodyHash(t *testing.T) {
	a, b := render(t, "matrix", "push"), render(t, "matrix", "push")
	if a.URL != b.URL {
		t.Errorf("transaction ids differ for the same body: %s %s", a.URL, b.URL)
	}
	if c := render(t, "matrix", "issues"); c.URL == a.URL {
		t.Error("two messages share a transaction id")
	}
	var p matrixPayload
	if err := json.Unmarshal(a.Body, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Commits) != 2 || !strings.Contains(p.Body, "[0123456789](https://forge.test/alice/tools/commit/") {
		t.Errorf("matrix push %+v", p)
	}
	// A bare homeserver URL with the room in the settings.
	meta, _ := ValidateMeta("matrix", map[string]string{"room_id": "!r:m.test", "homeserver_url": "https://m.test/"})
	msg, err := Render("matrix", "fork", mustJSON(t, allEvents()["fork"]), meta, "https://m.test")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(msg.URL, "https://m.test/_matrix/client/r0/rooms/%21r:m.test/send/m.room.message/") {
		t.Errorf("matrix URL %s", msg.URL)
	}
	if !strings.Contains(string(msg.Body), `"msgtype":"m.notice"`) {
		t.Errorf("default msgtype: %s", msg.Body)
	}
}

func TestTelegramAndPackagistURLs(t *testing.T) {
	msg := render(t, "telegram", "push")
	if msg.URL != "https://api.telegram.org/botTOKEN/sendMessage?chat_id=-100123&message_thread_id=7" {
		t.Errorf("telegram URL %q", msg.URL)
	}
	msg, err := Render("telegram", "push", mustJSON(t, allEvents()["push"]), nil, "https://api.telegram.org/botT/sendMessage?chat_id=1")
	if err != nil || msg.URL != "" {
		t.Errorf("telegram without settings: %v %q", err, msg.URL)
	}
	msg = render(t, "packagist", "push")
	if msg.URL != "https://packagist.org/api/update-package?apiToken=tok&username=alice" {
		t.Errorf("packagist URL %q", msg.URL)
	}
}

func TestRenderErrors(t *testing.T) {
	if _, err := Render("gitea", "push", []byte(`{}`), nil, ""); err == nil {
		t.Error("gitea hooks have no format")
	}
	if _, err := Render("slack", "no_such_event", []byte(`{}`), nil, ""); err == nil {
		t.Error("unknown event accepted")
	}
	if _, err := Render("slack", "push", []byte(`{"ref":`), nil, ""); err == nil {
		t.Error("broken payload accepted")
	}
	if _, err := Render("slack", "push", mustJSON(t, allEvents()["push"]), []byte(`{"channel":`), ""); err == nil {
		t.Error("broken meta accepted")
	}
	// An empty payload renders without panicking.
	for _, hookType := range Types() {
		for event := range allEvents() {
			if _, err := Render(hookType, event, []byte(`{}`), nil, ""); err != nil {
				t.Errorf("%s %s of {}: %v", hookType, event, err)
			}
		}
	}
}

func TestValidateMeta(t *testing.T) {
	var me *MetaError
	_, err := ValidateMeta("slack", map[string]string{"url": "x"})
	if !errors.As(err, &me) || me.Status != http.StatusUnprocessableEntity || me.Message != "Missing config option: channel" {
		t.Errorf("missing channel: %v", err)
	}
	_, err = ValidateMeta("slack", map[string]string{"channel": "Dev Team"})
	if !errors.As(err, &me) || me.Status != http.StatusBadRequest || me.Message != "Invalid slack channel name" {
		t.Errorf("bad channel: %v", err)
	}
	b, err := ValidateMeta("slack", map[string]string{"channel": " #dev ", "color": "#ff0000"})
	if err != nil || string(b) != `{"channel":"#dev","username":"","icon_url":"","color":"#ff0000"}` {
		t.Errorf("slack meta %s %v", b, err)
	}
	if _, err := ValidateMeta("matrix", map[string]string{"message_type": "3"}); err == nil {
		t.Error("matrix message type 3 accepted")
	}
	b, _ = ValidateMeta("matrix", map[string]string{"message_type": "m.text", "room_id": "!a:b"})
	if string(b) != `{"homeserver_url":"","room_id":"!a:b","message_type":2}` {
		t.Errorf("matrix meta %s", b)
	}
	for _, typ := range []string{"msteams", "dingtalk", "feishu", "wechatwork", "gitea"} {
		if b, err := ValidateMeta(typ, map[string]string{"channel": "x"}); b != nil || err != nil {
			t.Errorf("%s meta %s %v", typ, b, err)
		}
	}
	for name, ok := range map[string]bool{"dev": true, "#dev-ops_2": true, "Dev": false, "": false, "#": false,
		strings.Repeat("a", 80): true, strings.Repeat("a", 81): false} {
		if ValidSlackChannel(name) != ok {
			t.Errorf("ValidSlackChannel(%q) != %v", name, ok)
		}
	}
}

func TestMetaConfigAndKeys(t *testing.T) {
	b, _ := ValidateMeta("slack", map[string]string{"channel": "dev", "username": "bot"})
	got := MetaConfig("slack", b)
	want := map[string]string{"channel": "dev", "username": "bot", "icon_url": "", "color": ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("slack config %v", got)
	}
	if c := MetaConfig("telegram", []byte(`{"bot_token":"secret"}`)); c != nil {
		t.Errorf("telegram settings shown: %v", c)
	}
	if HasMetaKeys("slack", map[string]string{"username": "x"}) || !HasMetaKeys("slack", map[string]string{"channel": ""}) {
		t.Error("slack settings are rebuilt only with a channel")
	}
	if !HasMetaKeys("packagist", map[string]string{"api_token": "t"}) || HasMetaKeys("msteams", map[string]string{"url": "u"}) {
		t.Error("HasMetaKeys")
	}
	for _, typ := range Types() {
		if !Supported(typ) {
			t.Errorf("%s unsupported", typ)
		}
	}
	if Supported("gitea") || Supported("gogs") {
		t.Error("payload types are not formats")
	}
	_ = fmt.Sprint
}
