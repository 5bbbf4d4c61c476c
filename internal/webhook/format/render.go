// Package format turns Gitea's webhook payloads into the messages of chat
// services (Slack, Discord, MS Teams, Telegram, Matrix, DingTalk, Feishu,
// WeChat Work) and Packagist's update request, in the shapes Gitea 1.23
// sends.
package format

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
)

// Message is the request a hook sends instead of the payload.
type Message struct {
	Body        []byte
	ContentType string            // the request's Content-Type
	Method      string            // "" = the hook's method
	URL         string            // "" = the hook's URL
	Headers     map[string]string // extra headers, nil when none
}

// Render turns payload, Gitea's payload of event (a HookEventType such as
// "push" or "pull_request_review_approved"), into the request a hook of
// hookType sends; meta is the hook's settings (JSON) and hookURL its URL.
// A nil Message and nil error mean the hook sends nothing for the event.
func Render(hookType, event string, payload []byte, meta []byte, hookURL string) (*Message, error) {
	if !Supported(hookType) {
		return nil, fmt.Errorf("hook type %q has no message format", hookType)
	}
	if hookType == "packagist" {
		return renderPackagist(event, payload, meta, hookURL)
	}
	n, err := describe(event, payload)
	if err != nil {
		return nil, err
	}
	var body any
	msg := &Message{ContentType: "application/json"}
	switch hookType {
	case "slack":
		var m slackMeta
		if err := readMeta(meta, &m); err != nil {
			return nil, err
		}
		body = slack(n, &m)
	case "discord":
		var m discordMeta
		if err := readMeta(meta, &m); err != nil {
			return nil, err
		}
		body = discord(n, &m)
	case "msteams":
		body = msteams(n)
	case "telegram":
		var m telegramMeta
		if err := readMeta(meta, &m); err != nil {
			return nil, err
		}
		body = telegram(n)
		msg.URL = telegramURL(hookURL, &m)
	case "matrix":
		var m matrixMeta
		if err := readMeta(meta, &m); err != nil {
			return nil, err
		}
		return matrixMessage(n, &m, hookURL)
	case "dingtalk":
		body = dingtalk(n)
	case "feishu":
		body = feishu(n)
	case "wechatwork":
		body = wechatwork(n)
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	msg.Body = b
	return msg, nil
}

// Link styles.

func plainLink(_, text string) string { return text }

func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func slackLink(u, text string) string {
	if u == "" {
		return slackEscape(text)
	}
	return "<" + u + "|" + slackEscape(text) + ">"
}

func htmlLink(u, text string) string {
	if u == "" {
		return html.EscapeString(text)
	}
	return `<a href="` + html.EscapeString(u) + `">` + html.EscapeString(text) + `</a>`
}

func markdownLink(u, text string) string {
	if u == "" {
		return text
	}
	return "[" + text + "](" + u + ")"
}

// commitLines lists a push's commits, one line each: the short id linked,
// the subject, the author.
func commitLines(n *note, link linker, escape func(string) string) []string {
	out := make([]string, 0, len(n.commits))
	for _, c := range n.commits {
		if c == nil {
			continue
		}
		line := link(c.URL, shortSHA(c.ID)) + ": " + escape(firstLine(c.Message))
		if c.Author != nil && c.Author.Name != "" {
			line += " - " + escape(c.Author.Name)
		}
		out = append(out, line)
	}
	return out
}

func hexColor(c int) string { return fmt.Sprintf("%06x", c) }

// Slack.

type slackAttachment struct {
	Fallback  string `json:"fallback"`
	Color     string `json:"color"`
	Title     string `json:"title"`
	TitleLink string `json:"title_link"`
	Text      string `json:"text"`
}

type slackPayload struct {
	Channel     string            `json:"channel"`
	Text        string            `json:"text"`
	Username    string            `json:"username"`
	IconURL     string            `json:"icon_url"`
	UnfurlLinks int               `json:"unfurl_links"`
	LinkNames   int               `json:"link_names"`
	Attachments []slackAttachment `json:"attachments"`
}

func slack(n *note, m *slackMeta) slackPayload {
	p := slackPayload{Channel: m.Channel, Username: m.Username, IconURL: m.IconURL, Text: n.headline(slackLink)}
	switch {
	case len(n.commits) > 0:
		color := m.Color
		if color == "" {
			color = hexColor(n.color)
		}
		p.Attachments = []slackAttachment{{Color: color, Title: repoName(n.repo), TitleLink: repoURL(n.repo),
			Text: strings.Join(commitLines(n, slackLink, slackEscape), "\n")}}
	case n.body != "":
		p.Attachments = []slackAttachment{{Color: hexColor(n.color), Title: slackEscape(n.factValue), TitleLink: n.url,
			Text: slackEscape(n.body)}}
	}
	return p
}

// Discord.

type discordEmbed struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	URL         string `json:"url"`
	Color       int    `json:"color"`
	Footer      struct {
		Text string `json:"text"`
	} `json:"footer"`
	Author struct {
		Name    string `json:"name"`
		URL     string `json:"url"`
		IconURL string `json:"icon_url"`
	} `json:"author"`
	Fields []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"fields"`
}

type discordPayload struct {
	Wait      bool           `json:"wait"`
	Content   string         `json:"content"`
	Username  string         `json:"username"`
	AvatarURL string         `json:"avatar_url"`
	TTS       bool           `json:"tts"`
	Embeds    []discordEmbed `json:"embeds"`
}

// discordLimit is the longest description Discord takes.
const discordLimit = 4096

func discord(n *note, m *discordMeta) discordPayload {
	e := discordEmbed{Title: n.title, URL: n.url, Color: n.color, Description: n.body}
	if len(n.commits) > 0 {
		e.Description = strings.Join(commitLines(n, markdownLink, func(s string) string { return s }), "\n")
	}
	if r := []rune(e.Description); len(r) > discordLimit {
		e.Description = string(r[:discordLimit-1]) + "…"
	}
	if n.sender != nil {
		e.Author.Name, e.Author.URL, e.Author.IconURL = n.sender.UserName, n.sender.HTMLURL, n.sender.AvatarURL
	}
	return discordPayload{Username: m.Username, AvatarURL: m.IconURL, Embeds: []discordEmbed{e}}
}

// MS Teams (a MessageCard).

type msteamsFact struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type msteamsSection struct {
	ActivityTitle    string        `json:"activityTitle"`
	ActivitySubtitle string        `json:"activitySubtitle"`
	ActivityImage    string        `json:"activityImage"`
	Facts            []msteamsFact `json:"facts"`
	Text             string        `json:"text"`
}

type msteamsTarget struct {
	OS  string `json:"os"`
	URI string `json:"uri"`
}

type msteamsAction struct {
	Type    string          `json:"@type"`
	Name    string          `json:"name"`
	Targets []msteamsTarget `json:"targets,omitempty"`
}

type msteamsPayload struct {
	Type            string           `json:"@type"`
	Context         string           `json:"@context"`
	ThemeColor      string           `json:"themeColor"`
	Title           string           `json:"title"`
	Summary         string           `json:"summary"`
	Sections        []msteamsSection `json:"sections"`
	PotentialAction []msteamsAction  `json:"potentialAction"`
}

func msteams(n *note) msteamsPayload {
	facts := []msteamsFact{{Name: "Repository:", Value: repoName(n.repo)}}
	if n.factName != "" {
		facts = append(facts, msteamsFact{Name: n.factName + ":", Value: n.factValue})
	}
	if len(n.commits) > 0 {
		facts = append(facts, msteamsFact{Name: "Commits:", Value: fmt.Sprint(len(n.commits))})
	}
	s := msteamsSection{Facts: facts, Text: n.body}
	if len(n.commits) > 0 {
		s.Text = strings.Join(commitLines(n, markdownLink, func(s string) string { return s }), "\n\n")
	}
	if n.sender != nil {
		s.ActivityTitle, s.ActivitySubtitle, s.ActivityImage = n.sender.FullName, n.sender.UserName, n.sender.AvatarURL
	}
	p := msteamsPayload{Type: "MessageCard", Context: "https://schema.org/extensions", ThemeColor: hexColor(n.color),
		Title: n.title, Summary: n.title, Sections: []msteamsSection{s}}
	p.PotentialAction = []msteamsAction{{Type: "OpenUri", Name: "Open in Cairn", Targets: []msteamsTarget{{OS: "default", URI: n.url}}}}
	return p
}

// Telegram.

type telegramPayload struct {
	Text              string `json:"text"`
	ParseMode         string `json:"parse_mode"`
	DisableWebPreview bool   `json:"disable_web_page_preview"`
}

// telegramLimit is the longest text Telegram takes.
const telegramLimit = 4096

func telegram(n *note) telegramPayload {
	text := n.headline(htmlLink)
	if len(n.commits) > 0 {
		text += "\n" + strings.Join(commitLines(n, htmlLink, html.EscapeString), "\n")
	} else if n.body != "" {
		text += "\n\n" + html.EscapeString(n.body)
	}
	if r := []rune(text); len(r) > telegramLimit {
		text = string(r[:telegramLimit-1]) + "…"
	}
	return telegramPayload{Text: strings.TrimSpace(text), ParseMode: "HTML", DisableWebPreview: true}
}

// telegramURL is the sendMessage URL: the hook's, with the chat and
// thread of the settings when it lacks them; or built from the bot token.
func telegramURL(hookURL string, m *telegramMeta) string {
	base := hookURL
	if base == "" && m.BotToken != "" {
		base = "https://api.telegram.org/bot" + m.BotToken + "/sendMessage"
	}
	u, err := url.Parse(base)
	if err != nil || (m.ChatID == "" && m.ThreadID == "") {
		return ""
	}
	q := u.Query()
	if m.ChatID != "" && q.Get("chat_id") == "" {
		q.Set("chat_id", m.ChatID)
	}
	if m.ThreadID != "" && q.Get("message_thread_id") == "" {
		q.Set("message_thread_id", m.ThreadID)
	}
	u.RawQuery = q.Encode()
	if s := u.String(); s != hookURL {
		return s
	}
	return ""
}

// Matrix.

type matrixPayload struct {
	Body          string                 `json:"body"`
	MsgType       string                 `json:"msgtype"`
	Format        string                 `json:"format"`
	FormattedBody string                 `json:"formatted_body"`
	Commits       []*types.PayloadCommit `json:"io.gitea.commits,omitempty"`
}

// matrixSizeLimit is the largest event Gitea sends to Matrix (64 KiB).
const matrixSizeLimit = 64 << 10

var htmlAnchor = regexp.MustCompile(`<a href="([^"]*)">(.*?)</a>`)

// matrixPlain is the plain body of an HTML text: links in markdown,
// breaks as new lines.
func matrixPlain(s string) string {
	s = htmlAnchor.ReplaceAllString(s, "[$2]($1)")
	s = strings.ReplaceAll(s, "<br>", "\n")
	return html.UnescapeString(s)
}

func matrixMessage(n *note, m *matrixMeta, hookURL string) (*Message, error) {
	text := n.headline(htmlLink)
	if len(n.commits) > 0 {
		text += ":<br>" + strings.Join(commitLines(n, htmlLink, html.EscapeString), "<br>")
	}
	p := matrixPayload{Body: matrixPlain(text), MsgType: matrixMsgType(m.MessageType), Format: "org.matrix.custom.html",
		FormattedBody: text, Commits: n.commits}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	if len(b) >= matrixSizeLimit {
		return nil, fmt.Errorf("matrix message of %d bytes exceeds %d", len(b), matrixSizeLimit)
	}
	sum := sha1.Sum(b)
	base := strings.TrimRight(hookURL, "/")
	if !strings.Contains(base, "/send/") && m.Room != "" {
		hs := strings.TrimRight(m.HomeserverURL, "/")
		if hs == "" {
			hs = base
		}
		base = hs + "/_matrix/client/r0/rooms/" + url.PathEscape(m.Room) + "/send/m.room.message"
	}
	return &Message{Body: b, ContentType: "application/json", Method: http.MethodPut,
		URL: base + "/" + hex.EncodeToString(sum[:])}, nil
}

// DingTalk (an action card).

type dingtalkPayload struct {
	MsgType    string `json:"msgtype"`
	ActionCard struct {
		Text        string `json:"text"`
		Title       string `json:"title"`
		HideAvatar  string `json:"hideAvatar"`
		SingleTitle string `json:"singleTitle"`
		SingleURL   string `json:"singleURL"`
	} `json:"actionCard"`
}

func dingtalk(n *note) dingtalkPayload {
	text := n.headline(markdownLink)
	if len(n.commits) > 0 {
		text += "\r\n\r\n" + strings.Join(commitLines(n, markdownLink, func(s string) string { return s }), "\r\n")
	} else if n.body != "" {
		text += "\r\n\r\n" + n.body
	}
	var p dingtalkPayload
	p.MsgType = "actionCard"
	p.ActionCard.Text = strings.TrimSpace(text)
	p.ActionCard.Title = n.title
	p.ActionCard.HideAvatar = "0"
	p.ActionCard.SingleTitle = n.view
	p.ActionCard.SingleURL = n.url
	return p
}

// Feishu (plain text).

type feishuPayload struct {
	MsgType string `json:"msg_type"`
	Content struct {
		Text string `json:"text"`
	} `json:"content"`
}

func feishu(n *note) feishuPayload {
	lines := []string{n.headline(plainLink)}
	if len(n.commits) > 0 {
		lines = append(lines, "")
		lines = append(lines, commitLines(n, plainLink, func(s string) string { return s })...)
	} else if n.body != "" {
		lines = append(lines, "", n.body)
	}
	if n.url != "" {
		lines = append(lines, "", n.url)
	}
	var p feishuPayload
	p.MsgType = "text"
	p.Content.Text = strings.Join(lines, "\r\n")
	return p
}

// WeChat Work (markdown).

type wechatworkPayload struct {
	MsgType  string `json:"msgtype"`
	Markdown struct {
		Content string `json:"content"`
	} `json:"markdown"`
}

func wechatwork(n *note) wechatworkPayload {
	lines := []string{"# " + n.title}
	if n.sender != nil {
		lines = append(lines, "> by "+n.sender.UserName)
	}
	if len(n.commits) > 0 {
		lines = append(lines, commitLines(n, markdownLink, func(s string) string { return s })...)
	} else if n.body != "" {
		lines = append(lines, n.body)
	}
	if n.url != "" {
		lines = append(lines, markdownLink(n.url, n.view))
	}
	var p wechatworkPayload
	p.MsgType = "markdown"
	p.Markdown.Content = strings.Join(lines, "\n")
	return p
}

// Packagist.

type packagistPayload struct {
	Repository struct {
		URL string `json:"url"`
	} `json:"repository"`
}

// packagistEndpoint is where Packagist takes update requests.
const packagistEndpoint = "https://packagist.org/api/update-package"

// renderPackagist asks Packagist to update the package on a push; other
// events send nothing. The URL carries the settings' username and
// apiToken when set.
func renderPackagist(event string, payload, meta []byte, hookURL string) (*Message, error) {
	if event != "push" {
		return nil, nil
	}
	var m packagistMeta
	if err := readMeta(meta, &m); err != nil {
		return nil, err
	}
	var p packagistPayload
	p.Repository.URL = m.PackageURL
	if p.Repository.URL == "" {
		var push types.PushPayload
		if err := unmarshal(payload, &push); err != nil {
			return nil, err
		}
		p.Repository.URL = repoURL(push.Repo)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	msg := &Message{Body: b, ContentType: "application/json"}
	if m.Username != "" || m.APIToken != "" {
		base := hookURL
		if base == "" {
			base = packagistEndpoint
		}
		u, err := url.Parse(base)
		if err != nil {
			return nil, fmt.Errorf("packagist URL: %w", err)
		}
		q := u.Query()
		if m.Username != "" {
			q.Set("username", m.Username)
		}
		if m.APIToken != "" {
			q.Set("apiToken", m.APIToken)
		}
		u.RawQuery = q.Encode()
		if s := u.String(); s != hookURL {
			msg.URL = s
		}
	}
	return msg, nil
}
