package campaign

import (
	"context"
	"encoding/json"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

// SMSGateway submits SMS for an account with the caller's message id;
// sms.Gateway is one.
type SMSGateway interface {
	SubmitFor(ctx context.Context, account string, id sms.MessageID, sub sms.Submission) (sms.Accepted, error)
}

// SMSSender sends sms campaigns through the bulk SMS gateway, so
// splitting, charging, the outbound queue and delivery reports apply: a
// tenant's campaigns are charged to its payer (Service.SetPayer), which
// the Runner reads from the store, without a password per message; a
// tenant without one has its messages fail (code no_sms_account). The
// message key is the bulk SMS msgId: a key the gateway has accepted
// already (a retry after a crash) counts as sent, and is neither sent
// nor charged again.
type SMSSender struct {
	Gateway SMSGateway
	// DLRURL, when set, receives the messages' delivery reports (mask 19).
	DLRURL string
}

// Send submits one SMS of m's campaign to the recipient's number,
// charged to m.Payer.
func (s SMSSender) Send(ctx context.Context, m Outgoing) (string, error) {
	if m.Payer == "" {
		return "", noPayer()
	}
	c, to, key := m.Campaign, m.To, m.Key
	sub := sms.Submission{Type: sms.TypeText, Sender: c.Sender, Receiver: to.Address, Text: c.Template, DLRURL: s.DLRURL}
	acc, err := s.Gateway.SubmitFor(ctx, m.Payer, sms.MessageID(key), sub)
	switch {
	case err == nil:
		return string(acc.MsgID), nil
	case msgkit.CodeOf(err) == "message_exists":
		return key, nil // accepted on an earlier try
	case msgkit.KindOf(err) == msgkit.Invalid, msgkit.KindOf(err) == msgkit.Unauthorized, msgkit.KindOf(err) == msgkit.Forbidden:
		return "", msgkit.Wrap(err, msgkit.Invalid, msgkit.CodeOf(err), msgkit.MessageOf(err))
	}
	return "", err // throttled, out of credit, the store down: later
}

// Poster posts a JSON body to a URL: 2xx is delivered, an error of kind
// Invalid a refusal for good, any other error worth another try. The
// delivery report poster of the HTTP kit is one (its egress policy keeps
// it off private addresses).
type Poster interface {
	PostReport(ctx context.Context, url string, body []byte) error
}

// WebhookSender sends the campaigns of channels without a transport of
// their own (email, telegram, rbm, viber, whatsapp, webpush) to a URL of
// the operator's, one POST per message, body WebhookMessage. The message
// key is its id: a receiver drops a message whose id it has seen, as a
// message may be posted again after a crash.
type WebhookSender struct {
	Poster Poster
	URL    string
}

// WebhookMessage is the body a WebhookSender posts.
type WebhookMessage struct {
	ID          string             `json:"id"` // the same on every try
	ServiceUUID msgkit.ServiceUUID `json:"service_uuid"`
	Campaign    string             `json:"campaign_uuid"`
	Channel     Channel            `json:"sending_type"`
	Sender      string             `json:"sender"`
	Contact     string             `json:"contact_uuid"`
	Address     string             `json:"address"`
	// Template is the campaign's template as stored: the JSON message
	// document for most channels, text for webpush.
	Template string          `json:"template"`
	Webpush  *WebpushMessage `json:"webpush,omitempty"`
}

// WebpushMessage is the webpush content of a WebhookMessage.
type WebpushMessage struct {
	Title     string `json:"title"`
	Body      string `json:"body"`
	TargetURL string `json:"target_url,omitempty"`
	Icon      string `json:"icon,omitempty"`
	Image     string `json:"image,omitempty"`
}

// Send posts one message of m's campaign.
func (s WebhookSender) Send(ctx context.Context, out Outgoing) (string, error) {
	c, to, key := out.Campaign, out.To, out.Key
	m := WebhookMessage{ID: key, ServiceUUID: out.Tenant, Campaign: c.UUID, Channel: c.Channel, Sender: c.Sender,
		Contact: to.Contact, Address: to.Address, Template: c.Template}
	if c.Channel == Webpush {
		w := c.Webpush
		m.Webpush = &WebpushMessage{Title: w.Title, Body: w.Body, TargetURL: w.TargetURL, Icon: w.Icon, Image: w.Image}
	}
	body, err := json.Marshal(m)
	if err != nil {
		return "", msgkit.Wrap(err, msgkit.Internal, "encode", "encoding a webhook message")
	}
	if err := s.Poster.PostReport(ctx, s.URL, body); err != nil {
		return "", err
	}
	return key, nil
}
