package adminapi

import (
	"net/http"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/inbound"
)

// inboundJSON is an inbound message as the administration lists it:
// without its text, as the message trace shows none.
type inboundJSON struct {
	ID         string    `json:"id"`
	State      string    `json:"state"`
	Reason     string    `json:"reason"`
	Connection string    `json:"connection"`
	Source     string    `json:"source"`
	Dest       string    `json:"dest"`
	DCS        string    `json:"dcs"`
	Parts      int       `json:"parts"`
	Total      int       `json:"total"`
	ReceivedAt time.Time `json:"receivedAt"`
	RouteID    int64     `json:"routeId"`
	Account    string    `json:"account"`
	URL        string    `json:"url"`
}

func inboundOf(m inbound.Message) inboundJSON {
	return inboundJSON{ID: string(m.ID), State: string(m.State), Reason: m.Reason, Connection: m.Conn, Source: m.Source, Dest: m.Dest,
		DCS: m.DCS, Parts: m.Parts, Total: m.Total, ReceivedAt: m.ReceivedAt, RouteID: m.RouteID, Account: m.Account, URL: m.URL}
}

func (a *api) listInbound(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, inbound.ListSpec, func(q msgkit.ListQuery) (msgkit.Page[inbound.Message], error) {
		return a.b.Inbound.Messages(r.Context(), q)
	}, inboundOf)
}
