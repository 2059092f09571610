package campaign

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
)

// Store keeps a tenant's campaigns. Every method is one atomic
// operation; a campaign of another tenant is NotFound.
type Store interface {
	// Create stores c; a UUID taken is Conflict.
	Create(ctx context.Context, tenant msgkit.ServiceUUID, c Campaign) (Campaign, error)
	Campaign(ctx context.Context, tenant msgkit.ServiceUUID, id string) (Campaign, error)
	// Campaigns lists the tenant's campaigns as Spec says, by created
	// time then UUID when q has no sort.
	Campaigns(ctx context.Context, tenant msgkit.ServiceUUID, q msgkit.ListQuery) (msgkit.Page[Campaign], error)
	// Update applies fn to the stored campaign under a lock and stores
	// what it leaves, unless it fails.
	Update(ctx context.Context, tenant msgkit.ServiceUUID, id string, fn func(c *Campaign) error) (Campaign, error)
	Delete(ctx context.Context, tenant msgkit.ServiceUUID, id string) error
	// SetPayer keeps account as the tenant's payer (see Service.SetPayer),
	// replacing the one it had; "" removes it.
	SetPayer(ctx context.Context, tenant msgkit.ServiceUUID, account string) error
	// Payer returns the tenant's payer, "" when it has none.
	Payer(ctx context.Context, tenant msgkit.ServiceUUID) (string, error)
}

// ListChecker tells which of a tenant's list UUIDs do not exist (or are
// deleted), in the order given. The contacts stores of memstore and
// pgstore satisfy it.
type ListChecker interface {
	MissingLists(ctx context.Context, tenant msgkit.ServiceUUID, ids []string) ([]string, error)
}

// ListSpec is what the campaign listing filters and sorts by. Its times
// filter as the family shows them, in whole seconds (contacts.ShownTime).
func ListSpec() msgkit.ListSpec {
	return msgkit.ListSpec{
		TimePrecision: contacts.ShownTime,
		Filter: map[string]msgkit.AttrType{
			"sending_type": msgkit.AttrString, "status": msgkit.AttrString, "name": msgkit.AttrString,
			"schedule_type": msgkit.AttrString, "created_dt": msgkit.AttrDateTime, "updated_dt": msgkit.AttrDateTime,
			"next_dt": msgkit.AttrDateTime, "last_dt": msgkit.AttrDateTime,
		},
		Sort:   []string{"name", "status", "sending_type", "schedule_type", "created_dt", "updated_dt", "next_dt", "last_dt"},
		Search: []string{"name"},
		Ignore: []string{"fields"},
	}
}

// Service keeps campaigns by the rules of this package.
type Service struct {
	store   Store
	lists   ListChecker
	runs    Runs
	clock   msgkit.Clock
	newUUID func() string
}

// NewService returns a service over store, checking lists with lists.
// newUUID nil draws random UUIDs.
func NewService(store Store, lists ListChecker, clock msgkit.Clock, newUUID func() string) *Service {
	if newUUID == nil {
		newUUID = uuid.NewString
	}
	return &Service{store: store, lists: lists, clock: clock, newUUID: newUUID}
}

// WithRuns returns a copy of s that reads campaigns' tasks and messages
// from runs (Tasks, Messages): a platform that runs campaigns keeps them.
func (s *Service) WithRuns(runs Runs) *Service {
	c := *s
	c.runs = runs
	return &c
}

// HasRuns reports whether s reads campaigns' runs (WithRuns).
func (s *Service) HasRuns() bool { return s != nil && s.runs != nil }

// CodeRunsNotKept is the code of a call for campaigns' runs on a service
// that reads none (see WithRuns).
const CodeRunsNotKept = "runs_not_kept"

func (s *Service) runsKept() error {
	if s.runs == nil {
		return msgkit.New(msgkit.Unavailable, CodeRunsNotKept, "this platform keeps no campaign runs")
	}
	return nil
}

// Tasks lists the tasks of the tenant's campaign by scheduled time.
func (s *Service) Tasks(ctx context.Context, tenant msgkit.ServiceUUID, campaign string) ([]Task, error) {
	if err := s.runsKept(); err != nil {
		return nil, err
	}
	return s.runs.Tasks(ctx, tenant, campaign)
}

// Messages lists up to limit of the messages of the tenant's campaign,
// by task, then contact UUID.
func (s *Service) Messages(ctx context.Context, tenant msgkit.ServiceUUID, campaign string, limit int) ([]Message, error) {
	if err := s.runsKept(); err != nil {
		return nil, err
	}
	return s.runs.Messages(ctx, tenant, campaign, limit)
}

// Create makes a campaign from in, or clones in.CloneUUID with in's
// members over it, and plans its first run.
func (s *Service) Create(ctx context.Context, tenant msgkit.ServiceUUID, in Input) (Campaign, error) {
	now := s.clock.Now().UTC()
	var c Campaign
	if in.CloneUUID != nil && strings.TrimSpace(*in.CloneUUID) != "" {
		src, err := s.store.Campaign(ctx, tenant, strings.ToLower(strings.TrimSpace(*in.CloneUUID)))
		if msgkit.KindOf(err) == msgkit.NotFound {
			return Campaign{}, msgkit.Invalidf(CodeInvalidCampaign, "clone_uuid", "clone_uuid names no campaign of this tenant")
		}
		if err != nil {
			return Campaign{}, err
		}
		if c, err = Clone(src, in, now); err != nil {
			return Campaign{}, err
		}
	} else {
		if len(in.TemplateVars) > 0 {
			return Campaign{}, msgkit.Invalidf(CodeInvalidCampaign, "template_vars", "template_vars is for clones: give clone_uuid")
		}
		if err := Fill(&c, in, true, now); err != nil {
			return Campaign{}, err
		}
	}
	if err := s.checkLists(ctx, tenant, c.Lists); err != nil {
		return Campaign{}, err
	}
	c.UUID, c.Created, c.Updated = s.newUUID(), now, now
	if err := c.Plan(now); err != nil {
		return Campaign{}, err
	}
	return s.store.Create(ctx, tenant, c)
}

// Clone is src copied, with in's members over it and template_vars put
// into the template. Its name, when not sent, is src's; its status, when
// not sent, is src's if that is active or draft, else draft. It has a
// UUID, times and runs of its own (none yet).
func Clone(src Campaign, in Input, now time.Time) (Campaign, error) {
	c := src
	c.UUID, c.Created, c.Updated = "", time.Time{}, time.Time{}
	c.Next, c.NextSeq, c.Last, c.LastSeq = time.Time{}, 0, time.Time{}, 0
	c.Lists = append([]string(nil), src.Lists...)
	if in.Status == nil && c.Status != Active && c.Status != Draft {
		c.Status = Draft
	}
	if len(in.TemplateVars) > 0 {
		channel := c.Channel
		if in.SendingType != nil {
			channel = Channel(strings.TrimSpace(*in.SendingType))
		}
		template := c.Template
		if in.Template != nil {
			template = *in.Template
		}
		out, err := ApplyVars(template, in.TemplateVars, channel != SMS && channel != Webpush)
		if err != nil {
			return Campaign{}, err
		}
		in.Template = &out
	}
	if err := Fill(&c, in, true, now); err != nil {
		return Campaign{}, err
	}
	return c, nil
}

func (s *Service) checkLists(ctx context.Context, tenant msgkit.ServiceUUID, ids []string) error {
	missing, err := s.lists.MissingLists(ctx, tenant, ids)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return msgkit.Invalidf(CodeInvalidCampaign, "recipient_lists", "recipient_lists names lists this tenant does not have: %s", strings.Join(missing, ", "))
	}
	return nil
}

// Get returns a campaign.
func (s *Service) Get(ctx context.Context, tenant msgkit.ServiceUUID, id string) (Campaign, error) {
	return s.store.Campaign(ctx, tenant, id)
}

// List lists the tenant's campaigns.
func (s *Service) List(ctx context.Context, tenant msgkit.ServiceUUID, q msgkit.ListQuery) (msgkit.Page[Campaign], error) {
	return s.store.Campaigns(ctx, tenant, q)
}

// Replace is a PUT: in is the whole campaign (clone_uuid and
// template_vars are refused); the status may move as CheckReplace says.
// Its runs so far stay; its next run is planned anew.
func (s *Service) Replace(ctx context.Context, tenant msgkit.ServiceUUID, id string, in Input) (Campaign, error) {
	switch {
	case in.CloneUUID != nil:
		return Campaign{}, msgkit.Invalidf(CodeInvalidCampaign, "clone_uuid", "clone_uuid is for creating a campaign")
	case len(in.TemplateVars) > 0:
		return Campaign{}, msgkit.Invalidf(CodeInvalidCampaign, "template_vars", "template_vars is for creating a clone")
	}
	if _, err := s.store.Campaign(ctx, tenant, id); err != nil {
		return Campaign{}, err // an unknown campaign is 404 whatever the body
	}
	now := s.clock.Now().UTC()
	var checked Campaign
	if err := Fill(&checked, in, false, now); err != nil {
		return Campaign{}, err
	}
	if err := s.checkLists(ctx, tenant, checked.Lists); err != nil {
		return Campaign{}, err
	}
	return s.store.Update(ctx, tenant, id, func(c *Campaign) error {
		if err := CheckReplace(c.Status, checked.Status); err != nil {
			return err
		}
		next := checked
		next.UUID, next.Created, next.Updated = c.UUID, c.Created, now
		next.Last = c.Last
		if next.Schedule.Type == Scheduled && next.Schedule.Rule == c.Schedule.Rule {
			next.LastSeq = c.LastSeq // the same series: count on from its last run
		}
		if err := next.Plan(now); err != nil {
			return err
		}
		*c = next
		return nil
	})
}

// SetStatus is a PATCH of the status.
func (s *Service) SetStatus(ctx context.Context, tenant msgkit.ServiceUUID, id string, status Status) (Campaign, error) {
	now := s.clock.Now().UTC()
	return s.store.Update(ctx, tenant, id, func(c *Campaign) error {
		before := c.Status
		if err := ChangeStatus(c, status, now); err != nil {
			return err
		}
		if c.Status != before {
			c.Updated = now
		}
		return nil
	})
}

// Delete deletes a campaign; a run in progress stops.
func (s *Service) Delete(ctx context.Context, tenant msgkit.ServiceUUID, id string) error {
	return s.store.Delete(ctx, tenant, id)
}
