package campaign

import (
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/msgkit/msgkit"
)

// MaxMessages bounds the messages of a template document.
const MaxMessages = 20

// checkDocument checks a template of a channel other than sms and
// webpush: a JSON object {"messages": [...]}, each message {"body":
// {"textMessage": {"content"}} or {"cardMessage": {"content":
// {"description", "media": {"url"}, "suggestions": [{"text", "openUrl":
// {"url"}}]}}}, "allowedChannels": [...]}. Every problem is named by its
// path under template ("template.messages[0].body.textMessage.content").
// Members the format does not have are refused, so a misspelt one is not
// silently dropped.
func checkDocument(doc string) []msgkit.FieldError {
	var out []msgkit.FieldError
	bad := func(path, format string, args ...any) {
		out = append(out, msgkit.FieldError{Name: path, Message: path + " " + msgkit.Sprintf(format, args...)})
	}
	root, ok := object(doc)
	if !ok {
		bad("template", "must be a JSON object with messages, an array of messages")
		return out
	}
	known(root, "template", bad, "messages")
	var msgs []json.RawMessage
	if raw, ok := root["messages"]; !ok || json.Unmarshal(raw, &msgs) != nil || len(msgs) == 0 {
		bad("template.messages", "must be an array of 1 to %d messages", MaxMessages)
		return out
	}
	if len(msgs) > MaxMessages {
		bad("template.messages", "must hold at most %d messages", MaxMessages)
		return out
	}
	for i, raw := range msgs {
		path := "template.messages[" + strconv.Itoa(i) + "]"
		m, ok := object(string(raw))
		if !ok {
			bad(path, "must be an object with body")
			continue
		}
		known(m, path, bad, "body", "allowedChannels")
		if raw, ok := m["allowedChannels"]; ok {
			var chans []string
			if json.Unmarshal(raw, &chans) != nil {
				bad(path+".allowedChannels", "must be an array of channel names")
			}
			for _, c := range chans {
				if !slices.Contains(Channels(), Channel(c)) {
					bad(path+".allowedChannels", "holds %q, which is no channel (sms, webpush, email, telegram, rbm, viber, whatsapp)", c)
				}
			}
		}
		body, ok := object(string(m["body"]))
		if !ok {
			bad(path+".body", "must be an object with textMessage or cardMessage")
			continue
		}
		known(body, path+".body", bad, "textMessage", "cardMessage")
		text, hasText := body["textMessage"]
		card, hasCard := body["cardMessage"]
		switch {
		case hasText == hasCard:
			bad(path+".body", "must hold one of textMessage and cardMessage")
		case hasText:
			checkText(text, path+".body.textMessage", bad)
		default:
			checkCard(card, path+".body.cardMessage", bad)
		}
	}
	return out
}

func checkText(raw json.RawMessage, path string, bad func(string, string, ...any)) {
	t, ok := object(string(raw))
	if !ok {
		bad(path, "must be an object with content")
		return
	}
	known(t, path, bad, "content")
	nonEmptyString(t["content"], path+".content", bad)
}

func checkCard(raw json.RawMessage, path string, bad func(string, string, ...any)) {
	c, ok := object(string(raw))
	if !ok {
		bad(path, "must be an object with content")
		return
	}
	known(c, path, bad, "content")
	content, ok := object(string(c["content"]))
	path += ".content"
	if !ok {
		bad(path, "must be an object with description, media and suggestions")
		return
	}
	known(content, path, bad, "description", "media", "suggestions")
	nonEmptyString(content["description"], path+".description", bad)
	if raw, ok := content["media"]; ok {
		media, ok := object(string(raw))
		if !ok {
			bad(path+".media", "must be an object with url")
		} else {
			known(media, path+".media", bad, "url")
			urlString(media["url"], path+".media.url", bad)
		}
	}
	if raw, ok := content["suggestions"]; ok {
		var sugg []json.RawMessage
		if json.Unmarshal(raw, &sugg) != nil {
			bad(path+".suggestions", "must be an array of suggestions")
			return
		}
		for i, s := range sugg {
			sp := path + ".suggestions[" + strconv.Itoa(i) + "]"
			o, ok := object(string(s))
			if !ok {
				bad(sp, "must be an object with text and openUrl")
				continue
			}
			known(o, sp, bad, "text", "openUrl")
			nonEmptyString(o["text"], sp+".text", bad)
			open, ok := object(string(o["openUrl"]))
			if !ok {
				bad(sp+".openUrl", "must be an object with url")
				continue
			}
			known(open, sp+".openUrl", bad, "url")
			urlString(open["url"], sp+".openUrl.url", bad)
		}
	}
}

// object decodes a JSON object; ok is false for anything else.
func object(s string) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || json.Unmarshal([]byte(s), &m) != nil {
		return nil, false
	}
	return m, true
}

// known names the members of m that are not among names, in order.
func known(m map[string]json.RawMessage, path string, bad func(string, string, ...any), names ...string) {
	var extra []string
	for k := range m {
		if !slices.Contains(names, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		bad(path+"."+k, "is not a member of the template format")
	}
}

func nonEmptyString(raw json.RawMessage, path string, bad func(string, string, ...any)) {
	var s string
	if raw == nil || json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" {
		bad(path, "must be a non-empty string")
	}
}

func urlString(raw json.RawMessage, path string, bad func(string, string, ...any)) {
	var s string
	if raw == nil || json.Unmarshal(raw, &s) != nil || !webURL(s) {
		bad(path, "must be an absolute http or https URL")
	}
}

// placeholder is a template variable: {name}, the name a letter or '_'
// and then letters, digits or '_'. A JSON object's "{" is followed by a
// quote or a space, so documents do not look like placeholders.
var placeholder = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// ApplyVars replaces each {name} placeholder of template that vars holds
// a value for; a placeholder without one stays as written, as in a clone
// sent without template_vars. A variable without a placeholder is
// refused (a misspelt name would otherwise be lost), naming
// template_vars. In a JSON document the values are inserted as JSON
// string content (escaped), so the document stays JSON.
func ApplyVars(template string, vars map[string]string, document bool) (string, error) {
	var p problems
	if len(vars) > MaxVars {
		p.add("template_vars", "template_vars holds at most "+strconv.Itoa(MaxVars)+" variables")
		return "", p.err()
	}
	used := map[string]bool{}
	out := placeholder.ReplaceAllStringFunc(template, func(m string) string {
		name := m[1 : len(m)-1]
		v, ok := vars[name]
		if !ok {
			return m
		}
		used[name] = true
		if document {
			b, _ := json.Marshal(v)
			return string(b[1 : len(b)-1])
		}
		return v
	})
	var unused []string
	for name := range vars {
		if !used[name] {
			unused = append(unused, name)
		}
	}
	sort.Strings(unused)
	for _, name := range unused {
		p.add("template_vars", "template_vars."+name+" has no {"+name+"} placeholder in the template")
	}
	if err := p.err(); err != nil {
		return "", err
	}
	return out, nil
}
