// Package uiproxy lets UI components (a grid, a KPI tile) show data that
// lives in a customer's own systems: the proxy asks the customer-side API
// on the component's behalf, checks what it answers and answers the UI in
// one shape. Its parts: a component's configuration (Component, Check),
// kept by the operator in a Store and managed through Proxy.Put and
// Proxy.Delete; reading a UI's request and building the customer call
// (ParseRequest, Build); reading the customer's answer (ParseGrid,
// ParseKPI); the Proxy that ties them together; and the mock operations
// that stand for a customer API (MockGrid, MockQuery, MockKPI). The calls
// themselves are made by a Fetcher, in the adapter, through the
// platform's address-checking dialer.
//
// # Tenancy and caching
//
// A component belongs to one tenant (Service): its customer token is the
// tenant's, so the Proxy answers a Viewer acting for that tenant only,
// and any other caller learns nothing, not even that the component
// exists (NotFound, as for an unknown id). A component with a CacheTTL
// keeps a checked answer for identical requests (the same customer call:
// reference, language, locale, page, sort and filters) that long; a Put
// or Delete forgets the component's answers on this proxy, and a proxy
// sharing the store sees the change within the TTL. Failures are never
// kept. The cache holds at most Options.MaxCached answers in all.
//
// # Requests
//
// A component's customer address is a template the customer arranges
// freely, with the placeholders {referenceId}, {componentId},
// {componentType} (grid or KPI), {token}, {language}, {locale} and, for
// grids, {pageNumber}, {pageSize} and {sort} ("column1,-column2"), plus
// fixed name and value pairs of the component, in its path, query and
// fragment only: a placeholder in the scheme, user information, host or
// port is refused when the component is configured, since a caller's
// reference would then choose where the customer token goes. Placeholders
// before the URL's '?' are path-escaped, after it query-escaped. The token goes in
// the header the component names, else as the query parameter token
// (unless the template places {token}).
//
// A grid request takes page_number and page_size (or paging), sort on
// the sortable columns, and filters on the filterable ones, forwarded as
// sent: operator(column)=value, or column=value for equality; in and
// notin take comma-separated values, between and notbetween two. The
// operators that fit each column kind: every kind isnull, isnotnull, eq,
// neq (boolean only these); strings also isempty, isnotempty, in, notin,
// startswith, contains, endswith, doesnotcontain; numbers and dates also
// in, notin, lt, lte, gt, gte, between, notbetween (date-times the
// ordering ones, not in and notin). An unknown column, an operator that
// does not fit, or a value that does not parse as the column's kind is
// refused before any call. A KPI request takes only reference_id (or the
// mock's resource_id), language and locale.
//
// # Answers
//
// A grid answer is {"data": [rows], "meta": {"pagination": {...}}} with
// pagination in camelCase (perPage, currentPage, totalPages) or
// snake_case and links next/previous or first/last/prev/next; the proxy
// answers it as GridPage: rows with the configured columns only, in
// column order, each checked against its kind and otherwise passed on as
// the customer wrote it, and snake_case pagination whose first, last,
// prev and next links are the proxy's own addresses (Proxy.Grid), never
// the customer's, which may carry its token. A KPI answer is {title, value, footer, link}. A
// malformed customer answer is an error of kind Unavailable with code
// customer_answer_invalid, which the HTTP family answers 502; its message
// names what is wrong without quoting the answer.
//
// # Metrics
//
// A Proxy given Options.Metrics counts its calls to customer APIs (an
// answer from the cache is no call) by outcome: ok (a 2xx answer that
// parsed), bad_answer (a 2xx answer that did not), timeout (the
// component's timeout passed: the Fetcher's error is
// context.DeadlineExceeded) or error (anything else: unreachable, a
// refused address, a status not 2xx, too large); and times each, from
// the call to its answer parsed or its failure, on the Proxy's clock.
package uiproxy
