// Package msgkit is the shared vocabulary of msgkit: errors, clock, listing
// queries (paging, sorting and filtering of every listing endpoint of every
// API family), civil dates and the backoff of retried work. Domain
// packages build on it; it imports nothing of theirs.
//
// # Errors and time
//
// Domain code returns *Error, whose Kind tells adapters which status to
// answer; bad input is always Kind Invalid with Fields naming each bad
// field, never a 500. Time is read through an injected Clock.
//
// One rule classifies an error: the outermost *Error in its chain (or a
// bare Kind returned as an error, which is that kind with no code) gives
// its Kind, Code and Message; with none the error is Internal. Wrapping
// reclassifies: Wrap(<a NotFound error>, Internal, ...) is Internal, and
// the NotFound below it is a cause for logs only. errors.Is and errors.As
// follow the same rule, so errors.Is(err, NotFound) is exactly
// KindOf(err) == NotFound, and errors.Is(err, msgkit.New(k, code, "")) is
// KindOf and CodeOf agreeing; the rest of the chain (a driver's error,
// context.Canceled, io.EOF) stays reachable through errors.Is and
// errors.As. The one exception is Internal: an unclassified error is
// Internal by KindOf but matches no Kind with errors.Is, so test for
// Internal with KindOf. An errors.Join of differently classified errors
// is classified by its first, as errors.As walks; msgkit never joins them.
//
// # Listing queries
//
// ParseListQuery turns the query string of a listing request into a
// ListQuery; Apply runs a ListQuery over a slice in memory and returns a
// Page with the total count. ApplyAttrs does the same with the query's
// attributes resolved once (Attrs) and the store's own selection beside
// it, for stores in memory that must list as fast as PostgreSQL does.
// The interface documents fix these rules:
//
//   - page_number defaults to 1 and page_size to 10; paging=page_num,page_size
//     is another spelling of both.
//   - sort=-a,b sorts by a descending, then by b ascending.
//   - Filters are attr=value (equality) or operator(attr)=value with the 18
//     operators isnull, isnotnull, isempty, isnotempty, eq, neq, startswith,
//     contains, endswith, doesnotcontain, lt, lte, gt, gte, in, notin, between,
//     notbetween; in and notin take comma-separated values.
//
// Where the documents are silent, msgkit chooses as follows.
//
// Parameters. Each endpoint supplies a ListSpec: the filterable attributes
// with their types, the sortable attributes, the maximum and default page
// size, and the parameters it reads itself (Ignore), which are skipped before
// anything else. Every other parameter must be page_number, page_size,
// paging, sort or a filter of a whitelisted attribute; anything else is an
// error, so a misspelt filter never silently returns everything. The names
// page_number, page_size, paging and sort are reserved: an attribute with one
// of those names can only be filtered as eq(name)=value.
//
// Paging. Page numbers and sizes are plain ASCII digits. A page_size above
// the maximum is refused rather than clamped, so a client never gets fewer
// items per page than it asked for without being told; the maximum is
// ListSpec.MaxPageSize, or 100 when that is zero (the documents give 50 for
// finance documents and no maximum elsewhere). When paging and
// page_number or page_size are both given they must agree, else the error
// names paging. A page past the end is empty, with the true total. The
// reserved parameters may be given once each.
//
// Sorting. An empty sort parameter means no sort. Each attribute must be
// sortable and may appear once. Strings sort by bytes (a SQL store must use
// COLLATE "C"), numbers numerically (10 after 9), dates and date-times
// chronologically (date-times by instant, whatever their offsets), false
// before true. Nulls sort after every value ascending and before every value
// descending, which is PostgreSQL's default. The sort is stable: equal items
// keep the store's order.
//
// Operators. Operator names are exact and lower case: EQ(a) is an unknown
// operator. Filters are ANDed, including several on the same attribute
// (gt(a)=1&lt(a)=5 is a range); ParseListQuery returns them ordered by
// parameter name and then value, so equal queries parse equally. Value counts:
// isnull, isnotnull, isempty and isnotempty take an empty value or "true"
// (anything else is an error, so isnull(a)=false is not quietly read as
// isnull); in and notin take one or more comma-separated values; between and
// notbetween take exactly two, low,high, both included, and a low above the
// high is an error. Other operators take one value, taken whole: eq(a)=x,y
// compares with "x,y". There is no escape for a comma inside an in or
// between value.
//
// Types. A value is parsed by its attribute's type: strings as given;
// numbers as exact decimals -?digits(.digits)? (no exponent, no +, compared
// without rounding); dates as strict YYYY-MM-DD (2026-02-30 is refused);
// date-times as RFC 3339 with an offset, where a space in place of the
// offset's + is read as + because an unencoded + decodes to a space; booleans
// as true or false. startswith, contains, endswith and doesnotcontain apply to
// strings only; lt, lte, gt, gte, between and notbetween to every type but
// booleans; the other operators to every type. isempty on a non-string
// attribute is the same as isnull.
//
// Case. eq, neq, in, notin and the ordering operators compare strings
// exactly, byte for byte. startswith, contains, endswith and doesnotcontain
// ignore case (Unicode simple folding, as strings.EqualFold), because grid
// users type "smith" to find "Smith".
//
// Precision. A listing shows its date-times at some precision (RFC 3339
// without a fraction shows whole seconds), while the items keep finer
// instants. With ListSpec.TimePrecision a filter on a date-time attribute
// compares the instant as shown, truncated to that precision, with the
// value as given: gt(updated_dt)=T never selects an item shown with
// updated_dt T, eq(updated_dt)=T selects the items shown with T (none
// when T has a finer fraction than is shown), and every other operator
// follows. Sorting stays by the stored instant, which orders items shown
// alike consistently, and lets a SQL store sort and filter on the column
// as it is indexed.
//
// Nulls follow SQL: a comparison with null is never true, so neq, notin,
// notbetween and doesnotcontain do not match null; on non-null values they
// are exactly the negations of eq, in, between and contains. isnull matches
// only null; isempty matches null and the empty string; isnotnull and
// isnotempty are their negations.
//
// Errors. All problems of one query are reported together in one Invalid
// *Error with code CodeInvalidQuery; each FieldError is named after the
// parameter as the caller spelled it (gt(amount), page_size, sort) and says
// what is wrong. A malformed ListSpec, a hand-built ListQuery that the
// parser could not produce, or a Getter that does not know an attribute is
// a programming error and so an Internal error with code
// CodeInvalidListSpec.
//
// # Retried work
//
// Work that must survive a crash (delivery reports, outbound parts) is a
// stored row claimed under a lease and, when an attempt fails, tried again
// after a Backoff: Base after the first failure, doubling up to Max, each
// wait drawn between half and all of it so that work which failed
// together spreads out. Every such queue uses it, so they all back off
// alike.
//
// # Civil dates
//
// Date is a day without a time or zone (YYYY-MM-DD), for invoice dates and
// birthdays; it is never a time.Time at midnight. Parsing is strict, years
// run from 0000 to 9999, and Date.In gives the instant a day starts in a zone.
package msgkit
