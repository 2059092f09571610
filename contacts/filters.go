package contacts

import (
	"slices"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
)

// Codes of the listing filters' errors.
const (
	// CodeUnresolvedQuery is a contact listing whose subscription_uuids
	// or group_uuid were handed to a store before the caller resolved
	// them (ResolveSubscriptions, ResolveGroup): a store cannot know a
	// subscription's options nor a group's lists.
	CodeUnresolvedQuery = "unresolved_query"
)

// channelNames are the values of channel_name: the channels a contact
// keeps.
var channelNames = []string{ChannelTelegram, ChannelWhatsApp, ChannelWebpush}

// unkeptChannels are the channels the interface names for channel_name
// that no contact can have (no field of a contact body or status change
// sets them): channel_name refuses them by name.
var unkeptChannels = []string{"facebook", "instagram"}

// MembershipFilter selects the contacts that are members of any of UUIDs
// (subscription options, touchpoints or interests), with Status when it
// is given ("" is either status). No UUIDs select no contact: a
// subscription without options has no members.
type MembershipFilter struct {
	UUIDs  []string
	Status MemberStatus
}

// Selects reports whether memberships ms hold one f asks for.
func (f *MembershipFilter) Selects(ms map[string]MemberStatus) bool {
	for _, id := range f.UUIDs {
		if st, ok := ms[id]; ok && (f.Status == "" || st == f.Status) {
			return true
		}
	}
	return false
}

// ChannelFilter selects the contacts having a channel (Contact.Channels)
// with Name, Identifier and OptStatus, each when given: one channel
// holding all three. Name is one of telegram, whatsapp and webpush;
// another selects no contact. A WhatsApp channel's identifier is the
// contact's mobile number in E.164, a webpush channel's its web push
// subscription.
type ChannelFilter struct {
	Name       string
	Identifier string
	OptStatus  OptStatus
}

// IsZero reports whether f filters nothing.
func (f ChannelFilter) IsZero() bool { return f == ChannelFilter{} }

// Selects reports whether c has a channel f asks for.
func (f ChannelFilter) Selects(c *Contact) bool {
	// As Channels lists them, without building the list.
	holds := func(id string, opt OptStatus) bool {
		return (f.Identifier == "" || id == f.Identifier) && (f.OptStatus == "" || opt == f.OptStatus)
	}
	t := &c.Telegram
	if (f.Name == "" || f.Name == ChannelTelegram) && (t.Identifier != "" || t.OptStatus != "" || len(t.Data) > 0) &&
		holds(t.Identifier, t.OptStatus) {
		return true
	}
	if (f.Name == "" || f.Name == ChannelWhatsApp) && c.OptStatusWhatsApp != "" &&
		holds(c.values[segmentation.Mobile], c.OptStatusWhatsApp) {
		return true
	}
	return (f.Name == "" || f.Name == ChannelWebpush) && c.WebpushSubscription != "" &&
		holds(c.WebpushSubscription, c.OptStatusWebpush)
}

// GroupFilter is a group resolved into what selects its contacts: those
// of its lists (none: no contact) that every one of its segmentation
// queries (its group segmentation records; none: no condition) selects.
type GroupFilter struct {
	ListUUIDs []string
	Segments  []*segmentation.Query
}

// ResolveSubscriptions turns the subscription_uuids of q into the
// options of those subscriptions (the catalog knows them): q then selects
// the members of any of options, with SubscriptionStatus when given, and
// SubscriptionUUIDs is cleared. No options select no contact.
func (q *ContactQuery) ResolveSubscriptions(options []string) {
	q.Options = &MembershipFilter{UUIDs: slices.Clone(options), Status: q.SubscriptionStatus}
	q.SubscriptionUUIDs = nil
}

// ResolveGroup turns the group_uuid of q into the group's lists and
// segmentation query (the catalog knows them), and clears GroupUUID.
func (q *ContactQuery) ResolveGroup(lists []string, segs []*segmentation.Query) {
	q.Group = &GroupFilter{ListUUIDs: slices.Clone(lists), Segments: slices.Clone(segs)}
	q.GroupUUID = ""
}

// Resolved is nil when q holds nothing a store cannot know: its
// subscription_uuids and group_uuid resolved. Otherwise it is an Invalid
// error naming the parameter (code CodeUnresolvedQuery), which every
// store answers rather than ignoring the filter.
func (q *ContactQuery) Resolved() error {
	switch {
	case len(q.SubscriptionUUIDs) > 0:
		return msgkit.Invalidf(CodeUnresolvedQuery, "subscription_uuids",
			"subscription_uuids were not resolved into subscription options before listing")
	case q.GroupUUID != "":
		return msgkit.Invalidf(CodeUnresolvedQuery, "group_uuid",
			"group_uuid was not resolved into the group's lists and segmentation before listing")
	}
	return nil
}

// Matchers are the compiled segmentation queries of a ContactQuery: its
// own (nil without one) and its group's.
type Matchers struct {
	Segment *segmentation.Matcher
	Group   []*segmentation.Matcher
}
