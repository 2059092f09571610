package uiproxy

import (
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// MockRows is how many rows the mock grid has: enough for several pages.
const MockRows = 42

// MockGrid is the mock grid data operation's answer: rows with id
// (integer), url, invoiceDate (YYYY-MM-DD) and invoiceDateTime (RFC 3339),
// derived from the component and reference so that they are stable, the
// page of pageNumber and pageSize (defaults 1 and 10), pagination in
// snake_case with links first, last, prev and next built on base (the
// mock operation's own address, its query kept). It stands for a
// customer API while that is built.
func MockGrid(componentID, referenceID string, pageNumber, pageSize int, base *url.URL) GridPage {
	if pageSize <= 0 {
		pageSize = 10
	}
	pageNumber = max(pageNumber, 1)
	day := time.Date(2026, 1, 1, 9, 30, 0, 0, time.UTC)
	var page GridPage
	page.Data = []map[string]any{}
	from := (pageNumber - 1) * pageSize
	for i := from; i < min(from+pageSize, MockRows); i++ {
		at := day.Add(time.Duration(i) * 24 * time.Hour)
		page.Data = append(page.Data, map[string]any{
			"id":              i + 1,
			"url":             fmt.Sprintf("https://invoices.example.com/%s/%s/%d", url.PathEscape(componentID), url.PathEscape(referenceID), i+1),
			"invoiceDate":     at.Format(time.DateOnly),
			"invoiceDateTime": at.Format(time.RFC3339),
		})
	}
	pages := (MockRows + pageSize - 1) / pageSize
	link := func(n int) *string {
		u := *base
		q := u.Query()
		q.Set("page_number", strconv.Itoa(n))
		u.RawQuery = q.Encode()
		s := u.String()
		return &s
	}
	p := Pagination{Total: MockRows, Count: len(page.Data), PerPage: pageSize, CurrentPage: pageNumber, TotalPages: pages}
	p.Links.First, p.Links.Last = link(1), link(pages)
	if pageNumber > 1 {
		p.Links.Prev = link(min(pageNumber-1, pages))
	}
	if pageNumber < pages {
		p.Links.Next = link(pageNumber + 1)
	}
	page.Meta.Pagination = p
	return page
}

// MockKPI is the mock KPI data operation's answer for a component and
// reference.
func MockKPI(componentID, referenceID string) KPIValue {
	return KPIValue{
		Title: "Open invoices", Value: "12,480.50 EUR", Footer: "7 invoices, 2 overdue",
		Link: "https://invoices.example.com/" + url.PathEscape(componentID) + "/" + url.PathEscape(referenceID),
	}
}
