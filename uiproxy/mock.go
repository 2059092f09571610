package uiproxy

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"time"

	"github.com/msgkit/msgkit"
)

// MockRows is how many rows the mock grid has: enough for several pages.
const MockRows = 42

// MockColumns are the mock grid's columns: id (number), url (string),
// invoiceDate (date) and invoiceDateTime (date-time), each sortable and
// filterable, so that a component configured with them shows every
// feature of a grid against the mock.
func MockColumns() []Column {
	return []Column{
		{Name: "id", Kind: Number, Filterable: true, Sortable: true},
		{Name: "url", Kind: String, Filterable: true, Sortable: true},
		{Name: "invoiceDate", Kind: Date, Filterable: true, Sortable: true},
		{Name: "invoiceDateTime", Kind: DateTime, Filterable: true, Sortable: true},
	}
}

// MockQuery reads the mock grid operation's query parameters as a
// customer API would: page_number and page_size, sort and
// operator(column)=value filters on MockColumns with the operators that
// fit each column's kind; the general parameters (reference_id,
// resource_id, language, locale) and token are the operation's own.
func MockQuery(v url.Values) (msgkit.ListQuery, error) {
	c := Component{Type: Grid, Columns: MockColumns()}
	v = maps.Clone(v)
	delete(v, "token")
	return c.listQuery(v)
}

// mockRow is one row of the mock grid.
type mockRow struct {
	id  int64
	url string
	at  time.Time
}

// MockGrid is the mock grid data operation's answer: rows with id
// (integer), url, invoiceDate (YYYY-MM-DD) and invoiceDateTime (RFC
// 3339), derived from the component and reference so that they are
// stable, filtered, sorted and paged by q (MockQuery);
// pagination in snake_case with links first, last, prev and next built
// on base (the mock operation's own address, its query kept). It stands
// for a customer API while that is built.
func MockGrid(componentID, referenceID string, q msgkit.ListQuery, base *url.URL) (GridPage, error) {
	got, err := msgkit.Apply(mockRows(componentID, referenceID), q, func(r mockRow, attr string) (msgkit.Value, bool) {
		switch attr {
		case "id":
			return msgkit.IntValue(r.id), true
		case "url":
			return msgkit.StringValue(r.url), true
		case "invoiceDate":
			return msgkit.DateValue(msgkit.DateOf(r.at)), true
		case "invoiceDateTime":
			return msgkit.TimeValue(r.at), true
		}
		return msgkit.Value{}, false
	})
	if err != nil {
		return GridPage{}, err
	}
	var page GridPage
	page.Data = make([]json.RawMessage, len(got.Items))
	for i, r := range got.Items {
		page.Data[i], err = json.Marshal(struct {
			ID              int64  `json:"id"`
			URL             string `json:"url"`
			InvoiceDate     string `json:"invoiceDate"`
			InvoiceDateTime string `json:"invoiceDateTime"`
		}{r.id, r.url, r.at.Format(time.DateOnly), r.at.Format(time.RFC3339)})
		if err != nil {
			return GridPage{}, err
		}
	}
	pageNumber, pageSize := max(q.PageNumber, 1), cmp.Or(q.PageSize, MockRows)
	pages := max((got.Total+pageSize-1)/pageSize, 1)
	link := func(n int) *string {
		u := *base
		v := u.Query()
		v.Set(msgkit.ParamPageNumber, strconv.Itoa(n))
		u.RawQuery = v.Encode()
		s := u.String()
		return &s
	}
	p := Pagination{Total: got.Total, Count: len(page.Data), PerPage: pageSize, CurrentPage: pageNumber, TotalPages: pages}
	p.Links.First, p.Links.Last = link(1), link(pages)
	if pageNumber > 1 {
		p.Links.Prev = link(min(pageNumber-1, pages))
	}
	if pageNumber < pages {
		p.Links.Next = link(pageNumber + 1)
	}
	page.Meta.Pagination = p
	return page, nil
}

// mockRows are the invoices of the mock grid, and what the mock KPI
// counts: one a day from 1 January 2026.
func mockRows(componentID, referenceID string) []mockRow {
	day := time.Date(2026, 1, 1, 9, 30, 0, 0, time.UTC)
	rows := make([]mockRow, MockRows)
	for i := range rows {
		rows[i] = mockRow{
			id:  int64(i + 1),
			url: fmt.Sprintf("https://invoices.example.com/%s/%s/%d", url.PathEscape(componentID), url.PathEscape(referenceID), i+1),
			at:  day.Add(time.Duration(i) * 24 * time.Hour),
		}
	}
	return rows
}

// MockKPI is the mock KPI data operation's answer for a component and
// reference: the invoices of the mock grid, counted (value) with the
// days of the first and the last (footer), so that a page showing the
// mock grid and the mock KPI side by side shows the same invoices.
func MockKPI(componentID, referenceID string) KPIValue {
	rows := mockRows(componentID, referenceID) // in the order of their days
	first, last := rows[0].at, rows[len(rows)-1].at
	return KPIValue{
		Title: "Invoices", Value: strconv.Itoa(len(rows)),
		Footer: "issued " + first.Format(time.DateOnly) + " to " + last.Format(time.DateOnly),
		Link:   "https://invoices.example.com/" + url.PathEscape(componentID) + "/" + url.PathEscape(referenceID),
	}
}
