package cdsapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/contacts"
)

// The messages a campaign answer embeds with fields=messages: a campaign
// fetched alone, and each campaign of a listing's page.
const (
	getMessages  = 1000
	listMessages = 100
)

// campaignJSON is a campaign as the CDS interface answers it: strings
// without a value are "", times without one null; tasks and messages only
// when fields asks for them.
type campaignJSON struct {
	UUID             string        `json:"uuid"`
	Name             string        `json:"name"`
	Status           string        `json:"status"`
	SendingType      string        `json:"sending_type"`
	ScheduleType     string        `json:"schedule_type"`
	ScheduleRRule    string        `json:"schedule_rrule"`
	Template         string        `json:"template"`
	WebpushTitle     string        `json:"webpush_title"`
	WebpushBody      string        `json:"webpush_body"`
	WebpushTargetURL string        `json:"webpush_target_url"`
	WebpushIcon      string        `json:"webpush_icon"`
	WebpushImage     string        `json:"webpush_image"`
	Sender           string        `json:"sender"`
	RecipientLists   string        `json:"recipient_lists"`
	QueryType        string        `json:"query_type"`
	Query            string        `json:"query"`
	TemplateParts    int           `json:"template_parts"`
	CreatedDt        string        `json:"created_dt"`
	UpdatedDt        string        `json:"updated_dt"`
	NextDt           *string       `json:"next_dt"`
	LastDt           *string       `json:"last_dt"`
	Tasks            []taskJSON    `json:"tasks,omitzero"`
	Messages         []messageJSON `json:"messages,omitzero"`
}

// taskJSON is one run of a campaign (fields=tasks).
type taskJSON struct {
	ID          int64   `json:"id"`
	ScheduledDt string  `json:"scheduled_dt"`
	Status      string  `json:"status"`
	Recipients  int     `json:"recipients"`
	Sent        int     `json:"sent"`
	Failed      int     `json:"failed"`
	CreatedDt   string  `json:"created_dt"`
	FinishedDt  *string `json:"finished_dt"`
}

// messageJSON is one recipient's message of a run (fields=messages).
type messageJSON struct {
	TaskID      int64  `json:"task_id"`
	ContactUUID string `json:"contact_uuid"`
	Address     string `json:"address"`
	Status      string `json:"status"`
	MsgID       string `json:"msg_id"`
	Error       string `json:"error"`
	UpdatedDt   string `json:"updated_dt"`
}

// timePtr is t as the interface writes it, nil for the zero time.
func timePtr(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := timeJSON(t)
	return &s
}

func campaignOf(c campaign.Campaign) campaignJSON {
	return campaignJSON{
		UUID: c.UUID, Name: c.Name, Status: string(c.Status), SendingType: string(c.Channel),
		ScheduleType: string(c.Schedule.Type), ScheduleRRule: c.Schedule.RRule(), Template: c.Template,
		WebpushTitle: c.Webpush.Title, WebpushBody: c.Webpush.Body, WebpushTargetURL: c.Webpush.TargetURL,
		WebpushIcon: c.Webpush.Icon, WebpushImage: c.Webpush.Image,
		Sender: c.Sender, RecipientLists: strings.Join(c.Lists, ","), QueryType: string(c.QueryType), Query: c.Query,
		TemplateParts: c.Parts, CreatedDt: timeJSON(c.Created), UpdatedDt: timeJSON(c.Updated),
		NextDt: timePtr(c.Next), LastDt: timePtr(c.Last),
	}
}

func taskOf(t campaign.Task) taskJSON {
	return taskJSON{ID: t.ID, ScheduledDt: timeJSON(t.ScheduledAt), Status: string(t.State), Recipients: t.Recipients,
		Sent: t.Sent, Failed: t.Failed, CreatedDt: timeJSON(t.Created), FinishedDt: timePtr(t.Finished)}
}

func messageOf(m campaign.Message) messageJSON {
	return messageJSON{TaskID: m.Task, ContactUUID: m.Contact, Address: m.Address, Status: string(m.Status),
		MsgID: m.MsgID, Error: m.Error, UpdatedDt: timeJSON(m.Updated)}
}

// campaignMembers are the members of a create or replace body and where
// each goes in campaign.Input: the names of its json tags (a test holds
// the two together), matched exactly, where encoding/json would also take
// "NAME" for name.
var campaignMembers = map[string]func(*campaign.Input) **string{
	"name":               func(in *campaign.Input) **string { return &in.Name },
	"status":             func(in *campaign.Input) **string { return &in.Status },
	"sending_type":       func(in *campaign.Input) **string { return &in.SendingType },
	"schedule_type":      func(in *campaign.Input) **string { return &in.ScheduleType },
	"schedule_rrule":     func(in *campaign.Input) **string { return &in.ScheduleRRule },
	"template":           func(in *campaign.Input) **string { return &in.Template },
	"webpush_title":      func(in *campaign.Input) **string { return &in.WebpushTitle },
	"webpush_body":       func(in *campaign.Input) **string { return &in.WebpushBody },
	"webpush_target_url": func(in *campaign.Input) **string { return &in.WebpushTarget },
	"webpush_icon":       func(in *campaign.Input) **string { return &in.WebpushIcon },
	"webpush_image":      func(in *campaign.Input) **string { return &in.WebpushImage },
	"sender":             func(in *campaign.Input) **string { return &in.Sender },
	"recipient_lists":    func(in *campaign.Input) **string { return &in.Lists },
	"query_type":         func(in *campaign.Input) **string { return &in.QueryType },
	"query":              func(in *campaign.Input) **string { return &in.Query },
	"clone_uuid":         func(in *campaign.Input) **string { return &in.CloneUUID },
}

// campaignReadOnly are the members of an answer a body may send back:
// they are ignored, so a fetched campaign can be replaced as it is.
var campaignReadOnly = map[string]bool{"uuid": true, "template_parts": true, "created_dt": true, "updated_dt": true,
	"next_dt": true, "last_dt": true, "tasks": true, "messages": true}

// campaignInput reads a create or replace body: the members strings or
// null (null is a member not sent), template_vars an object of strings;
// members of the wrong type and unknown ones are named all at once. The
// rules of the values are the campaign package's.
func campaignInput(body map[string]json.RawMessage) (campaign.Input, error) {
	var in campaign.Input
	var bad []msgkit.FieldError
	for name, raw := range body {
		to := campaignMembers[name]
		switch {
		case campaignReadOnly[name]:
		case name == "template_vars":
			vars, ok := templateVars(raw)
			if !ok {
				bad = append(bad, msgkit.FieldError{Name: name, Message: "template_vars must be an object whose values are strings"})
				continue
			}
			in.TemplateVars = vars
		case to != nil:
			s, ok := contacts.StringOrNull(raw)
			if !ok {
				bad = append(bad, msgkit.FieldError{Name: name, Message: name + " must be a string or null"})
				continue
			}
			*to(&in) = s
		default:
			bad = append(bad, msgkit.FieldError{Name: name, Message: "unknown field " + strconv.Quote(name) + " of a campaign"})
		}
	}
	if len(bad) > 0 {
		return campaign.Input{}, typeError(bad)
	}
	return in, nil
}

// templateVars reads template_vars: null, or an object whose values are
// all strings (null is no string).
func templateVars(raw json.RawMessage) (map[string]string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	if m == nil {
		return nil, true
	}
	vars := make(map[string]string, len(m))
	for k, v := range m {
		s, ok := contacts.StringOrNull(v)
		if !ok || s == nil {
			return nil, false
		}
		vars[k] = *s
	}
	return vars, true
}

// statusInput reads a PATCH body: {"status": "active" | "stopped"}; any
// other member is named, and status must be given.
func statusInput(body map[string]json.RawMessage) (campaign.Status, error) {
	var bad []msgkit.FieldError
	var status *string
	for name, raw := range body {
		if name != "status" {
			bad = append(bad, msgkit.FieldError{Name: name, Message: name + " cannot be changed by PATCH: it takes status (active or stopped); PUT replaces the campaign"})
			continue
		}
		s, ok := contacts.StringOrNull(raw)
		if !ok {
			bad = append(bad, msgkit.FieldError{Name: name, Message: "status must be a string"})
			continue
		}
		status = s
	}
	if len(bad) > 0 {
		return "", typeError(bad)
	}
	if status == nil {
		return "", msgkit.Invalidf(campaign.CodeInvalidCampaign, "status", "the body must give status: active or stopped")
	}
	return campaign.Status(strings.TrimSpace(*status)), nil
}

// checkRuns refuses fields tasks and messages when the campaign service
// reads no runs.
func (a *api) checkRuns(embed map[string]bool) error {
	if len(embed) > 0 && !a.b.Campaigns.HasRuns() {
		return msgkit.Invalidf(msgkit.CodeInvalidQuery, "fields", "fields tasks and messages show campaign runs, which this platform does not keep")
	}
	return nil
}

// embedRuns adds to c the tasks and up to limit messages that embed asks
// for; each asked for is an array, [] until its runs are read.
func (a *api) embedRuns(ctx context.Context, svc msgkit.ServiceUUID, c *campaignJSON, embed map[string]bool, limit int) error {
	if embed["tasks"] {
		c.Tasks = []taskJSON{}
	}
	if embed["messages"] {
		c.Messages = []messageJSON{}
	}
	if embed["tasks"] {
		ts, err := a.b.Campaigns.Tasks(ctx, svc, c.UUID)
		if err != nil {
			return err
		}
		for _, t := range ts {
			c.Tasks = append(c.Tasks, taskOf(t))
		}
	}
	if embed["messages"] {
		ms, err := a.b.Campaigns.Messages(ctx, svc, c.UUID, limit)
		if err != nil {
			return err
		}
		for _, m := range ms {
			c.Messages = append(c.Messages, messageOf(m))
		}
	}
	return nil
}

func (a *api) listCampaigns(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	v := r.URL.Query()
	embed, err := fieldsParam(v, "tasks", "messages")
	if err == nil {
		err = a.checkRuns(embed)
	}
	if err != nil {
		return err
	}
	q, err := msgkit.ParseListQuery(v, campaign.ListSpec())
	if err != nil {
		return err
	}
	page, err := a.b.Campaigns.List(r.Context(), svc, q)
	if err != nil {
		return err
	}
	out := envelopeOf(r, page, q, campaignOf)
	for i := range out.Data {
		// A campaign deleted since the page was read keeps its empty runs.
		if err := a.embedRuns(r.Context(), svc, &out.Data[i], embed, listMessages); err != nil && msgkit.KindOf(err) != msgkit.NotFound {
			return err
		}
	}
	return httpapi.WriteJSON(w, http.StatusOK, out)
}

func (a *api) createCampaign(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	if err := onlyParams(r.URL.Query()); err != nil {
		return err
	}
	in, err := readInput(w, r, campaignInput)
	if err != nil {
		return err
	}
	c, err := a.b.Campaigns.Create(r.Context(), svc, in)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusCreated, campaignOf(c))
}

func (a *api) getCampaign(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	id, embed, err := itemAt(r, "campaignUuid", "campaign", "tasks", "messages")
	if err == nil {
		err = a.checkRuns(embed)
	}
	if err != nil {
		return err
	}
	c, err := a.b.Campaigns.Get(r.Context(), svc, id)
	if err != nil {
		return err
	}
	out := campaignOf(c)
	if err := a.embedRuns(r.Context(), svc, &out, embed, getMessages); err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, out)
}

func (a *api) replaceCampaign(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	id, _, err := itemAt(r, "campaignUuid", "campaign")
	if err != nil {
		return err
	}
	in, err := readInput(w, r, campaignInput)
	if err != nil {
		return err
	}
	c, err := a.b.Campaigns.Replace(r.Context(), svc, id, in)
	if err != nil {
		return validation(err)
	}
	return httpapi.WriteJSON(w, http.StatusOK, campaignOf(c))
}

func (a *api) patchCampaign(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	id, _, err := itemAt(r, "campaignUuid", "campaign")
	if err != nil {
		return err
	}
	status, err := readInput(w, r, statusInput)
	if err != nil {
		return err
	}
	c, err := a.b.Campaigns.SetStatus(r.Context(), svc, id, status)
	if err != nil {
		return validation(err)
	}
	return httpapi.WriteJSON(w, http.StatusOK, campaignOf(c))
}

func (a *api) deleteCampaign(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	id, _, err := itemAt(r, "campaignUuid", "campaign")
	if err != nil {
		return err
	}
	if err := a.b.Campaigns.Delete(r.Context(), svc, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
