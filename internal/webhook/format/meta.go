package format

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// The settings of each hook type, stored as the hook's meta (JSON), with
// Gitea's names.
type (
	slackMeta struct {
		Channel  string `json:"channel"`
		Username string `json:"username"`
		IconURL  string `json:"icon_url"`
		Color    string `json:"color"`
	}
	discordMeta struct {
		Username string `json:"username"`
		IconURL  string `json:"icon_url"`
	}
	telegramMeta struct {
		BotToken string `json:"bot_token"`
		ChatID   string `json:"chat_id"`
		ThreadID string `json:"thread_id"`
	}
	matrixMeta struct {
		HomeserverURL string `json:"homeserver_url"`
		Room          string `json:"room_id"`
		MessageType   int    `json:"message_type"`
	}
	packagistMeta struct {
		Username   string `json:"username"`
		APIToken   string `json:"api_token"`
		PackageURL string `json:"package_url"`
	}
)

// metaKeys are the config keys of each type's settings.
var metaKeys = map[string][]string{
	"slack":     {"channel", "username", "icon_url", "color"},
	"discord":   {"username", "icon_url"},
	"telegram":  {"bot_token", "chat_id", "thread_id"},
	"matrix":    {"homeserver_url", "room_id", "message_type"},
	"packagist": {"username", "api_token", "package_url"},
}

// MetaError is a refused setting; Status is Gitea's answer to it (422
// for a missing option, 400 for a malformed Slack channel).
type MetaError struct {
	Status  int
	Message string
}

func (e *MetaError) Error() string { return e.Message }

var slackChannel = regexp.MustCompile(`^#?[a-z0-9_-]{1,80}$`)

// ValidSlackChannel reports whether name is a channel Slack accepts
// (lowercase letters, digits, - and _, up to 80, an optional leading #).
func ValidSlackChannel(name string) bool { return slackChannel.MatchString(name) }

// HasMetaKeys reports whether config carries settings of hookType. For
// Slack it is the channel: as in Gitea, an edit rebuilds Slack's
// settings only when it names the channel.
func HasMetaKeys(hookType string, config map[string]string) bool {
	if hookType == "slack" {
		_, ok := config["channel"]
		return ok
	}
	for _, k := range metaKeys[hookType] {
		if _, ok := config[k]; ok {
			return true
		}
	}
	return false
}

// ValidateMeta builds the meta of a hook of hookType from the config of
// CreateHookOption or EditHookOption. Slack needs a channel ("Missing
// config option: channel", 422) that Slack accepts ("Invalid slack
// channel name", 400); matrix's message_type is 1 (m.notice, the
// default) or 2 (m.text), by number or name. Types without settings
// get nil.
func ValidateMeta(hookType string, config map[string]string) ([]byte, error) {
	get := func(k string) string { return strings.TrimSpace(config[k]) }
	var meta any
	switch hookType {
	case "slack":
		channel, ok := config["channel"]
		if !ok {
			return nil, &MetaError{http.StatusUnprocessableEntity, "Missing config option: channel"}
		}
		channel = strings.TrimSpace(channel)
		if !ValidSlackChannel(channel) {
			return nil, &MetaError{http.StatusBadRequest, "Invalid slack channel name"}
		}
		meta = slackMeta{Channel: channel, Username: config["username"], IconURL: config["icon_url"], Color: config["color"]}
	case "discord":
		meta = discordMeta{Username: config["username"], IconURL: config["icon_url"]}
	case "telegram":
		meta = telegramMeta{BotToken: get("bot_token"), ChatID: get("chat_id"), ThreadID: get("thread_id")}
	case "matrix":
		m := matrixMeta{HomeserverURL: get("homeserver_url"), Room: get("room_id"), MessageType: 1}
		switch t := get("message_type"); t {
		case "", "1", "m.notice":
		case "2", "m.text":
			m.MessageType = 2
		default:
			return nil, &MetaError{http.StatusUnprocessableEntity, "Invalid matrix message type: " + t}
		}
		meta = m
	case "packagist":
		meta = packagistMeta{Username: get("username"), APIToken: get("api_token"), PackageURL: get("package_url")}
	default:
		return nil, nil
	}
	return json.Marshal(meta)
}

// MetaConfig is what the API's Hook.config shows of a hook's meta: as in
// Gitea, Slack's channel, username, icon_url and color; nothing of the
// other types (their tokens stay hidden).
func MetaConfig(hookType string, meta []byte) map[string]string {
	if hookType != "slack" {
		return nil
	}
	var m slackMeta
	_ = json.Unmarshal(meta, &m)
	return map[string]string{"channel": m.Channel, "username": m.Username, "icon_url": m.IconURL, "color": m.Color}
}

// readMeta decodes meta into v; empty meta leaves v as it is.
func readMeta(meta []byte, v any) error {
	if len(strings.TrimSpace(string(meta))) == 0 {
		return nil
	}
	if err := json.Unmarshal(meta, v); err != nil {
		return &MetaError{http.StatusUnprocessableEntity, "Custom metadata is invalid: " + err.Error()}
	}
	return nil
}

// matrixMsgType is the msgtype of a matrix message_type.
func matrixMsgType(t int) string {
	if t == 2 {
		return "m.text"
	}
	return "m.notice"
}

// Types lists the hook types Render formats.
func Types() []string {
	return []string{"slack", "discord", "msteams", "telegram", "matrix", "dingtalk", "feishu", "wechatwork", "packagist"}
}

// Supported reports whether Render formats hooks of type t.
func Supported(t string) bool { return slices.Contains(Types(), t) }
