package campaign

import (
	"errors"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
)

// Channel is a campaign's sending_type.
type Channel string

// The channels.
const (
	SMS      Channel = "sms"
	Webpush  Channel = "webpush"
	Email    Channel = "email"
	Telegram Channel = "telegram"
	RBM      Channel = "rbm"
	Viber    Channel = "viber"
	WhatsApp Channel = "whatsapp"
)

// Channels lists the channels in the interface's order.
func Channels() []Channel { return []Channel{SMS, Webpush, Email, Telegram, RBM, Viber, WhatsApp} }

// Status is where a campaign is.
type Status string

// The statuses.
const (
	Active   Status = "active"
	Stopped  Status = "stopped"
	Finished Status = "finished"
	Draft    Status = "draft"
)

// Statuses lists the statuses.
func Statuses() []Status { return []Status{Active, Stopped, Finished, Draft} }

// QueryType says whom of the lists' contacts a campaign targets.
type QueryType string

// The query types.
const (
	All          QueryType = "all"
	Segmentation QueryType = "segmentation"
)

// Limits of a campaign.
const (
	MaxNameLen     = 255
	MaxLists       = 50
	MaxTemplateLen = 64 << 10 // bytes
	MaxVars        = 100
	MaxURLLen      = 2048
)

// WebpushContent is the content of a webpush campaign.
type WebpushContent struct {
	Title, Body            string
	TargetURL, Icon, Image string
}

// Campaign is a campaign as stored.
type Campaign struct {
	UUID     string
	Name     string
	Status   Status
	Channel  Channel
	Schedule Schedule
	Template string
	// Parts is how many SMS parts one message of an sms template takes
	// (gsm.CountText); 0 for other channels.
	Parts     int
	Webpush   WebpushContent
	Sender    string
	Lists     []string // list UUIDs, in the order given, without repeats
	QueryType QueryType
	Query     string // the segmentation query as sent (JSON), "" for all
	Created   time.Time
	Updated   time.Time
	// Next is when the campaign runs next (next_dt), zero when it does
	// not; NextSeq is that occurrence's ordinal in a Scheduled series.
	// Last is when it last ran (last_dt), LastSeq its ordinal.
	Next    time.Time
	NextSeq int
	Last    time.Time
	LastSeq int
}

// Input is a create or update body as sent: each member nil when absent.
type Input struct {
	Name          *string           `json:"name"`
	Status        *string           `json:"status"`
	SendingType   *string           `json:"sending_type"`
	ScheduleType  *string           `json:"schedule_type"`
	ScheduleRRule *string           `json:"schedule_rrule"`
	Template      *string           `json:"template"`
	WebpushTitle  *string           `json:"webpush_title"`
	WebpushBody   *string           `json:"webpush_body"`
	WebpushTarget *string           `json:"webpush_target_url"`
	WebpushIcon   *string           `json:"webpush_icon"`
	WebpushImage  *string           `json:"webpush_image"`
	Sender        *string           `json:"sender"`
	Lists         *string           `json:"recipient_lists"`
	QueryType     *string           `json:"query_type"`
	Query         *string           `json:"query"`
	CloneUUID     *string           `json:"clone_uuid"`
	TemplateVars  map[string]string `json:"template_vars"`
}

// The codes of a campaign's errors.
const (
	CodeInvalidCampaign = "invalid_campaign"
	CodeNotFound        = "campaign_not_found"
	CodeInvalidStatus   = "invalid_status_change"
)

// NotFound is the error of a campaign the tenant does not have.
func NotFound(id string) error {
	return msgkit.Errorf(msgkit.NotFound, CodeNotFound, "campaign %s not found", id)
}

// problems are the field problems of one body, named all at once.
type problems []msgkit.FieldError

func (p *problems) add(name, msg string) {
	*p = append(*p, msgkit.FieldError{Name: name, Message: msg})
}

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	e := msgkit.New(msgkit.Invalid, CodeInvalidCampaign, "the campaign is invalid")
	e.Fields = p
	return e
}

// Fill applies in to c and checks the whole campaign, naming every
// problem at once. base is c's content before (for a create, the zero
// Campaign, or the clone's source): a member in is absent from keeps
// base's value. creating says the status may only be active or draft.
// now is the time of the request: a once time must be after it, and a
// rule without DTSTART starts at it. Existence of the lists is the
// Service's to check. Fill does not set UUID, times or Next.
func Fill(c *Campaign, in Input, creating bool, now time.Time) error {
	var p problems
	str := func(v *string, cur string) string {
		if v == nil {
			return cur
		}
		return strings.TrimSpace(*v)
	}
	c.Name = str(in.Name, c.Name)
	switch {
	case c.Name == "":
		p.add("name", "name is required")
	case utf8.RuneCountInString(c.Name) > MaxNameLen || !printable(c.Name):
		p.add("name", "name must be up to "+strconv.Itoa(MaxNameLen)+" printable characters")
	}
	status := Status(str(in.Status, string(c.Status)))
	switch {
	case status == "":
		p.add("status", "status is required")
	case !slices.Contains(Statuses(), status):
		p.add("status", "status must be one of active, stopped, finished, draft")
	case creating && status != Active && status != Draft:
		p.add("status", "a new campaign's status is active or draft")
	}
	c.Status = status
	channel := Channel(str(in.SendingType, string(c.Channel)))
	switch {
	case channel == "":
		p.add("sending_type", "sending_type is required")
	case !slices.Contains(Channels(), channel):
		p.add("sending_type", "sending_type must be one of sms, webpush, email, telegram, rbm, viber, whatsapp")
	}
	c.Channel = channel

	typ := ScheduleType(str(in.ScheduleType, string(c.Schedule.Type)))
	rule := ""
	if in.ScheduleRRule != nil {
		rule = *in.ScheduleRRule
	} else if typ == c.Schedule.Type {
		rule = c.Schedule.raw()
	}
	switch {
	case typ == "":
		p.add("schedule_type", "schedule_type is required")
	case typ != Now && typ != Once && typ != Scheduled:
		p.add("schedule_type", "schedule_type must be now, once or scheduled")
	default:
		s, err := ParseSchedule(typ, rule, now)
		if err != nil {
			p.add("schedule_rrule", err.Error())
		}
		c.Schedule = s
	}

	c.Template = str(in.Template, c.Template)
	if in.Template != nil {
		c.Template = *in.Template // templates keep their spaces
	}
	c.Parts = 0
	switch {
	case c.Template == "" || strings.TrimSpace(c.Template) == "":
		p.add("template", "template is required")
	case len(c.Template) > MaxTemplateLen:
		p.add("template", "template must be at most "+strconv.Itoa(MaxTemplateLen)+" bytes")
	case strings.ContainsFunc(c.Template, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' }):
		p.add("template", "template must not hold control characters other than tabs and line breaks")
	case c.Channel == SMS:
		n, err := gsm.CountText(c.Template, gsm.DCSAuto)
		if err != nil {
			p.add("template", "template cannot be sent as SMS: "+msgkit.MessageOf(err))
		} else {
			c.Parts = n.Parts
		}
	case c.Channel == Webpush:
		if !utf8.ValidString(c.Template) {
			p.add("template", "template must be UTF-8 text")
		}
	case slices.Contains(Channels(), c.Channel):
		for _, f := range checkDocument(c.Template) {
			p.add(f.Name, f.Message)
		}
	}

	c.Webpush = WebpushContent{
		Title: str(in.WebpushTitle, c.Webpush.Title), Body: str(in.WebpushBody, c.Webpush.Body),
		TargetURL: str(in.WebpushTarget, c.Webpush.TargetURL), Icon: str(in.WebpushIcon, c.Webpush.Icon), Image: str(in.WebpushImage, c.Webpush.Image),
	}
	webpush := []struct{ name, v string }{
		{"webpush_title", c.Webpush.Title}, {"webpush_body", c.Webpush.Body},
		{"webpush_target_url", c.Webpush.TargetURL}, {"webpush_icon", c.Webpush.Icon}, {"webpush_image", c.Webpush.Image},
	}
	for i, f := range webpush {
		switch {
		case c.Channel != Webpush && f.v != "":
			p.add(f.name, f.name+" is for webpush campaigns only")
		case c.Channel != Webpush:
		case i < 2 && f.v == "":
			p.add(f.name, f.name+" is required for a webpush campaign")
		case i < 2 && (len(f.v) > 1000 || !utf8.ValidString(f.v)):
			p.add(f.name, f.name+" must be up to 1000 bytes of text")
		case i >= 2 && f.v != "" && !webURL(f.v):
			p.add(f.name, f.name+" must be an absolute http or https URL")
		}
	}

	c.Sender = str(in.Sender, c.Sender)
	if msg := checkSender(c.Channel, c.Sender); msg != "" {
		p.add("sender", msg)
	}

	malformed := false
	if in.Lists != nil {
		c.Lists = nil
		for _, l := range strings.Split(*in.Lists, ",") {
			l = strings.ToLower(strings.TrimSpace(l))
			if l == "" || slices.Contains(c.Lists, l) {
				continue
			}
			if _, err := uuid.Parse(l); err != nil || len(l) != 36 {
				p.add("recipient_lists", "recipient_lists must be list UUIDs separated by commas, got "+strconv.Quote(truncate(l, 40)))
				malformed = true
				break
			}
			c.Lists = append(c.Lists, l)
		}
	}
	switch {
	case malformed:
	case len(c.Lists) == 0:
		p.add("recipient_lists", "recipient_lists is required: one or more list UUIDs, separated by commas")
	case len(c.Lists) > MaxLists:
		p.add("recipient_lists", "recipient_lists holds at most "+strconv.Itoa(MaxLists)+" lists")
	}

	c.QueryType = QueryType(str(in.QueryType, string(c.QueryType)))
	if c.QueryType == "" {
		c.QueryType = All
	}
	c.Query = str(in.Query, c.Query)
	switch c.QueryType {
	case All:
		if c.Query != "" {
			p.add("query", "query is for query_type segmentation; query_type all targets every contact of the lists")
		}
	case Segmentation:
		if c.Query == "" {
			p.add("query", "query is required with query_type segmentation")
		} else if _, err := segmentation.Parse([]byte(c.Query)); err != nil {
			var fields []msgkit.FieldError
			if e, ok := errors.AsType[*msgkit.Error](err); ok {
				fields = e.Fields
			}
			if len(fields) == 0 {
				p.add("query", "query is not a valid segmentation query: "+msgkit.MessageOf(err))
			}
			for _, f := range fields {
				p.add("query", f.Name+": "+f.Message)
			}
		}
	default:
		p.add("query_type", "query_type must be all or segmentation")
	}
	return p.err()
}

// raw is the schedule_rrule a schedule was read from, in normal form.
func (s Schedule) raw() string {
	switch s.Type {
	case Once:
		return s.At.UTC().Format(OnceLayout)
	case Scheduled:
		return s.Rule
	}
	return ""
}

// RRule is schedule_rrule as answered: the once time, the rule in its
// normal form, "" for now.
func (s Schedule) RRule() string { return s.raw() }

// checkSender says what is wrong with a channel's sender, "" when
// nothing is: an SMS sender ID, an e-mail address, a WhatsApp business
// phone number ID (digits); other channels' sender ids are 1 to 100
// printable characters.
func checkSender(ch Channel, s string) string {
	if s == "" {
		return "sender is required"
	}
	switch ch {
	case SMS:
		if _, err := sms.ParseSender(s); err != nil {
			return "sender must be an SMS sender ID: up to 11 letters, digits and spaces, or an international number of up to 15 digits"
		}
	case Email:
		a, err := mail.ParseAddress(s)
		if err != nil || a.Name != "" || a.Address != s || len(s) > 254 {
			return "sender must be an e-mail address, such as news@example.com"
		}
	case WhatsApp:
		if len(s) > 20 || strings.Trim(s, "0123456789") != "" {
			return "sender must be a WhatsApp business phone number ID: up to 20 digits"
		}
	default:
		if utf8.RuneCountInString(s) > 100 || !printable(s) {
			return "sender must be up to 100 printable characters"
		}
	}
	return ""
}

// printable reports whether s is UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// webURL reports whether s is an absolute http or https URL.
func webURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && len(s) <= MaxURLLen && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsAny(s, " \t\r\n")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
