package contacts

import (
	"context"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
)

// List is a tenant's contact list, with its counts: contacts in use that
// belong to it, subscribed and unsubscribed.
type List struct {
	UUID          string
	Name          string
	Status        string // list_status: active unless the client says otherwise
	Created       time.Time
	Updated       time.Time
	Deleted       time.Time // zero: in use
	Subscribed    int
	Unsubscribed  int
	ContactsCount int
}

// ContactQuery selects contacts: the listing engine's paging, sort and
// filters over ContactSpec (List), and what the engine cannot say.
type ContactQuery struct {
	List        msgkit.ListQuery
	ListUUIDs   []string             // any of these lists; none: every list
	UUIDs       []string             // any of these contacts; none: every contact
	Required    []segmentation.Field // each has a value
	Segment     *segmentation.Query  // the segmentation query, nil: none
	Today       msgkit.Date          // the day ann_in_days counts from
	ShowDeleted bool                 // soft-deleted contacts too
	CountOnly   bool                 // the total only, no page

	// Memberships: each nil when not filtered by. Options are subscription
	// options; the parameters name subscriptions (SubscriptionUUIDs), which
	// the Service resolves into Options with ResolveSubscriptions before
	// calling a store, since only the catalog knows a subscription's
	// options. A store refuses a query with SubscriptionUUIDs left
	// (Resolved).
	SubscriptionUUIDs  []string          // subscription_uuids, to resolve
	SubscriptionStatus MemberStatus      // subscription_status, applied on resolving
	Options            *MembershipFilter // subscription options
	Touchpoints        *MembershipFilter // touchpoints, either status
	Interests          *MembershipFilter // interests, either status
	// Group: GroupUUID is group_uuid, which the Service resolves into
	// Group (the group's lists and segmentation) with ResolveGroup; a
	// store refuses it unresolved. Group holds beside ListUUIDs and
	// Segment.
	GroupUUID string
	Group     *GroupFilter
	Channel   ChannelFilter // channel_name, channel_identifier, channel_opt_status
}

// Store keeps the customer data of every tenant, each apart: a call for
// one serviceUuid never reads nor changes another's records, and another
// tenant's record is NotFound. Every method is one atomic operation.
type Store interface {
	// CreateList stores l under its UUID (which the caller makes).
	CreateList(ctx context.Context, svc msgkit.ServiceUUID, l List) (List, error)
	// List returns a list with its counts, NotFound when deleted.
	List(ctx context.Context, svc msgkit.ServiceUUID, uuid string) (List, error)
	// UpdateList runs change on the stored list and stores what it
	// returns (name and status), atomically; an error from change stores
	// nothing.
	UpdateList(ctx context.Context, svc msgkit.ServiceUUID, uuid string, change func(List) (List, error)) (List, error)
	// DeleteList deletes a list softly; its contacts stay, listed by
	// list_uuids no more.
	DeleteList(ctx context.Context, svc msgkit.ServiceUUID, uuid string, at time.Time) error
	// Lists lists the tenant's lists (the deleted too with showDeleted)
	// over ListSpec, store order created then uuid.
	Lists(ctx context.Context, svc msgkit.ServiceUUID, q msgkit.ListQuery, showDeleted bool) (msgkit.Page[List], error)
	// ListNames returns the names of the tenant's lists in use among
	// uuids, by uuid, in one call and without their counts; a uuid of no
	// list in use (unknown, deleted, another tenant's) is left out, and
	// no list found is an empty map, never nil.
	ListNames(ctx context.Context, svc msgkit.ServiceUUID, uuids []string) (map[string]string, error)

	// CreateContact stores c under its UUID. Its list must be one of the
	// tenant's lists in use: another is Invalid naming list_uuid.
	CreateContact(ctx context.Context, svc msgkit.ServiceUUID, c Contact) (Contact, error)
	// Contact returns a contact; a deleted one is NotFound unless
	// withDeleted.
	Contact(ctx context.Context, svc msgkit.ServiceUUID, uuid string, withDeleted bool) (Contact, error)
	// UpdateContact runs change on a contact in use and stores what it
	// returns, atomically; the list rule of CreateContact holds.
	UpdateContact(ctx context.Context, svc msgkit.ServiceUUID, uuid string, change func(Contact) (Contact, error)) (Contact, error)
	// DeleteContact deletes a contact softly at at (restorable, listed
	// with ShowDeleted); with erase it removes the contact and every
	// value stored about it, irrecoverably.
	DeleteContact(ctx context.Context, svc msgkit.ServiceUUID, uuid string, erase bool, at time.Time) error
	// Contacts lists the tenant's contacts that q selects (store order:
	// created then uuid).
	Contacts(ctx context.Context, svc msgkit.ServiceUUID, q ContactQuery) (msgkit.Page[Contact], error)
}
