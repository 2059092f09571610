package uiproxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
)

// CodeBadAnswer is the code of a customer answer that is not what the
// component expects; the HTTP family answers it 502.
const CodeBadAnswer = "customer_answer_invalid"

// Pagination is a grid page's position, in the one shape the proxy
// answers whatever the customer's spelling.
type Pagination struct {
	Total       int   `json:"total"`
	Count       int   `json:"count"`
	PerPage     int   `json:"per_page"`
	CurrentPage int   `json:"current_page"`
	TotalPages  int   `json:"total_pages"`
	Links       Links `json:"links"`
}

// Links are a page's neighbours; nil where there is none.
type Links struct {
	First *string `json:"first"`
	Last  *string `json:"last"`
	Prev  *string `json:"prev"`
	Next  *string `json:"next"`
}

// GridPage is a page of grid rows: each row is a JSON object of the
// configured columns the customer sent, in column order (others are
// dropped), each value as the customer wrote it.
type GridPage struct {
	Data []json.RawMessage `json:"data"`
	Meta struct {
		Pagination Pagination `json:"pagination"`
	} `json:"meta"`
}

// KPIValue is a KPI tile's data.
type KPIValue struct {
	Title  string `json:"title"`
	Value  string `json:"value"`
	Footer string `json:"footer"`
	Link   string `json:"link"`
}

func badAnswer(format string, args ...any) error {
	return msgkit.Errorf(msgkit.Unavailable, CodeBadAnswer, "the customer API answered "+format, args...)
}

// ParseGrid reads a customer's grid answer for component c: {"data":
// [rows], "meta": {"pagination": {...}}}. Pagination keys are taken in
// camelCase (perPage, currentPage, totalPages) or snake_case (per_page,
// current_page, total_pages), links as next/previous or
// first/last/prev/next. Each row must be an object whose configured
// columns, when present, hold their kind (a string for string, a number
// for number, "YYYY-MM-DD" for date, RFC 3339 for datetime, true or false
// for boolean; null for none); other members are dropped. A malformed
// answer is an Unavailable error (CodeBadAnswer) saying what is wrong,
// never quoting more of the answer than a column's name.
func ParseGrid(c Component, body []byte) (GridPage, error) {
	if !json.Valid(body) {
		return GridPage{}, badAnswer("no grid object: %s", jsonProblem(json.Unmarshal(body, new(json.RawMessage))))
	}
	if !utf8.Valid(body) {
		return GridPage{}, badAnswer("no grid object: not UTF-8")
	}
	i := skipSpace(body, 0)
	if body[i] != '{' {
		return GridPage{}, badAnswer("no grid object")
	}
	var data, meta []byte
	eachMember(body, i, func(key string, v []byte) error {
		switch key {
		case "data":
			data = v
		case "meta":
			meta = v
		}
		return nil
	})
	if data == nil || data[0] != '[' {
		return GridPage{}, badAnswer("no data array")
	}
	var page GridPage
	var err error
	if page.Data, err = readRows(c, data); err != nil {
		return GridPage{}, badAnswer("%v", err)
	}
	var m struct {
		Pagination map[string]json.RawMessage `json:"pagination"`
	}
	if meta != nil {
		if err := json.Unmarshal(meta, &m); err != nil {
			return GridPage{}, badAnswer("meta: %s", jsonProblem(err))
		}
	}
	p, err := pagination(m.Pagination)
	if err != nil {
		return GridPage{}, badAnswer("meta.pagination: %v", err)
	}
	if p.Count == 0 {
		p.Count = len(page.Data)
	}
	page.Meta.Pagination = p
	return page, nil
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("%s where %s belongs", te.Value, te.Type)
	}
	return "not JSON"
}

// pagination reads either spelling of a page's position.
func pagination(m map[string]json.RawMessage) (Pagination, error) {
	var p Pagination
	num := func(names ...string) (int, error) {
		for _, n := range names {
			raw, ok := m[n]
			if !ok {
				continue
			}
			var v int
			if err := json.Unmarshal(raw, &v); err != nil || v < 0 {
				return 0, fmt.Errorf("%s must be a whole number of at least 0", n)
			}
			return v, nil
		}
		return 0, nil
	}
	var err error
	for _, f := range []struct {
		dst   *int
		names []string
	}{
		{&p.Total, []string{"total"}}, {&p.Count, []string{"count"}},
		{&p.PerPage, []string{"perPage", "per_page"}}, {&p.CurrentPage, []string{"currentPage", "current_page"}},
		{&p.TotalPages, []string{"totalPages", "total_pages"}},
	} {
		if *f.dst, err = num(f.names...); err != nil {
			return Pagination{}, err
		}
	}
	if raw, ok := m["links"]; ok && string(bytes.TrimSpace(raw)) != "null" {
		var l map[string]*string
		if err := json.Unmarshal(raw, &l); err != nil {
			return Pagination{}, fmt.Errorf("links must be an object of URLs")
		}
		pick := func(names ...string) *string {
			for _, n := range names {
				if v := l[n]; v != nil && *v != "" {
					return v
				}
			}
			return nil
		}
		p.Links = Links{First: pick("first"), Last: pick("last"), Prev: pick("prev", "previous"), Next: pick("next")}
	}
	return p, nil
}

// ParseKPI reads a customer's KPI answer: an object of the strings
// title, value, footer and link; title and value are required, link is
// an absolute http or https URL when given.
func ParseKPI(body []byte) (KPIValue, error) {
	var k KPIValue
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&k); err != nil {
		return KPIValue{}, badAnswer("no KPI object: %s", jsonProblem(err))
	}
	switch {
	case k.Title == "" || k.Value == "":
		return KPIValue{}, badAnswer("a KPI without title or value")
	case k.Link != "" && !webURL(k.Link):
		return KPIValue{}, badAnswer("a KPI link that is not an absolute http or https URL")
	}
	return k, nil
}

func webURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsAny(s, " \t\r\n")
}
