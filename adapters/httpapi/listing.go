package httpapi

import "github.com/msgkit/msgkit"

// Listing is the listing answer the finance and administration families
// share: the page's records in their wire shape and where the page is,
// {"data","meta":{"pagination":{"total","count","perPage","currentPage","totalPages"}}}.
type Listing[W any] struct {
	Data []W `json:"data"`
	Meta struct {
		Pagination Pagination `json:"pagination"`
	} `json:"meta"`
}

// Pagination tells where a page is (msgkit.PageInfo, spelled for JSON).
type Pagination struct {
	Total       int `json:"total"`
	Count       int `json:"count"`
	PerPage     int `json:"perPage"`
	CurrentPage int `json:"currentPage"`
	TotalPages  int `json:"totalPages"`
}

// ListOf is page, selected by q, as a Listing of wire's shape.
func ListOf[T, W any](page msgkit.Page[T], q msgkit.ListQuery, wire func(T) W) Listing[W] {
	out := Listing[W]{Data: msgkit.MapItems(page, wire)}
	in := page.Info(q)
	out.Meta.Pagination = Pagination{Total: in.Total, Count: in.Count, PerPage: in.PerPage, CurrentPage: in.Number, TotalPages: in.Pages}
	return out
}
