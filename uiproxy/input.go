package uiproxy

import (
	"time"

	"github.com/msgkit/msgkit"
)

// ComponentInput is a component as an operator writes it, in the
// administration API and the bootstrap file: durations as Go durations
// ("5s"), "" for the default.
type ComponentInput struct {
	Type        Type               `json:"type"`
	Service     msgkit.ServiceUUID `json:"service"`
	URL         string             `json:"url"`
	Fixed       map[string]string  `json:"fixed"`
	TokenHeader string             `json:"tokenHeader"`
	Token       string             `json:"token"`
	Timeout     string             `json:"timeout"`
	CacheTTL    string             `json:"cacheTTL"`
	Columns     []ColumnInput      `json:"columns"`
}

// ColumnInput is a grid column as an operator writes it.
type ColumnInput struct {
	Name       string     `json:"name"`
	Kind       ColumnKind `json:"kind"`
	Filterable bool       `json:"filterable"`
	Sortable   bool       `json:"sortable"`
}

// Component is the component id in describes; its durations are read
// here (Invalid naming the field), the rest is Check's.
func (in ComponentInput) Component(id string) (Component, error) {
	c := Component{ID: id, Type: in.Type, Service: in.Service, URL: in.URL, Fixed: in.Fixed, TokenHeader: in.TokenHeader, Token: in.Token}
	var err error
	if c.Timeout, err = duration("timeout", in.Timeout); err != nil {
		return Component{}, err
	}
	if c.CacheTTL, err = duration("cacheTTL", in.CacheTTL); err != nil {
		return Component{}, err
	}
	for _, col := range in.Columns {
		c.Columns = append(c.Columns, Column{Name: col.Name, Kind: col.Kind, Filterable: col.Filterable, Sortable: col.Sortable})
	}
	return c, nil
}

// duration reads an optional Go duration; "" is 0, the default.
func duration(name, raw string) (time.Duration, error) {
	if raw == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(raw)
	if err != nil || d < 0 {
		return 0, msgkit.Invalidf(CodeInvalidComponent, name, "%s: %s is not a duration such as 5s", name, msgkit.QuoteValue(raw))
	}
	return d, nil
}
