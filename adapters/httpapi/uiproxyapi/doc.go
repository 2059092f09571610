// Package uiproxyapi is the HTTP side of the UI integration proxy: UI
// components (a grid, a KPI tile) get data that lives in a customer's own
// systems through it, and the mock operations stand for a customer API
// while that is built. Every route is in the one table of routes.go;
// Handler and MockHandler serve it through the HTTP kit
// (httpapi.FamilyHandler).
//
// # Operations
//
// The interface shows the inputs of the data operations but not their
// method and path; these are chosen:
//
//	GET /ui/v1/grid/{gridComponentId}        a page of grid rows (Handler)
//	GET /ui/v1/kpi/{kpiComponentId}          a KPI tile's data (Handler)
//	GET /ui/v1/components/{componentId}      a component's type and columns, with the operators each column takes (Handler)
//	GET /ui/v1/mock/grid/{gridComponentId}   the mock grid data (MockHandler)
//	GET /ui/v1/mock/kpi/{kpiComponentId}     the mock KPI data (MockHandler)
//
// The grid takes reference_id (or resource_id), language, locale,
// page_number, page_size (default 10, at most 100; or paging), sort
// ("column1,-column2") on the sortable columns, and filters
// operator(column)=value or column=value on the filterable ones, with the
// operators that fit each column's kind (see package uiproxy). The KPI
// takes reference_id, language and locale. Anything else is refused, 400,
// before the customer is called. A grid answers {"data": [rows],
// "meta": {"pagination": {total, count, per_page, current_page,
// total_pages, links: {first, last, prev, next}}}}, whatever pagination
// spelling the customer used; the links are the proxy's own addresses
// (the request's path and query with the page), never the customer's.
// A KPI answers {title, value, footer, link}.
//
// The mock grid does on its side what a customer API does: it filters,
// sorts and pages its 42 rows (id, url, invoiceDate, invoiceDateTime) by
// the same parameters, so a UI can be built against it end to end.
//
// # Who may ask
//
// The proxy's operations need "Authorization: Bearer <token>" holding the
// privilege ui-components, and answer only for components of a tenant
// the token acts for: any other component is 404, as if it did not
// exist. A
// Backend's Rate limits each principal's requests (the customer is
// called on their behalf). The mock operations serve made-up data and ask
// for no credentials; a token sent to them, as a customer API receives
// one, is ignored.
//
// # Errors
//
// Errors have the body {"Code": "<string>", "Message"}, field problems
// folded into Message. A customer that cannot be reached, is refused by
// the address policy, answers an error status, redirects elsewhere,
// answers too much, or answers what the component does not expect is 502
// with code customer_unreachable, customer_address_refused,
// customer_status, customer_redirect, customer_answer_too_large or
// customer_answer_invalid; the message says which without quoting the
// customer's address, token or answer.
//
// # Calling customers
//
// Calls go through the platform's one address-checking dialer
// (adapters/egress) in egress.Fetcher: every address dialled, redirects
// included, is checked against the Policy, which refuses loopback,
// private, link-local and the other special ranges unless allowed.
// Redirects are followed to the same scheme and host only (a token sent
// in a header must not travel elsewhere), at most three. The dial, the
// TLS handshake, the answer's headers and the whole call (the
// component's timeout) are bounded, and so is the answer's size.
package uiproxyapi
