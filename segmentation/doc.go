// Package segmentation parses, validates and evaluates the segmentation
// queries that select contacts for campaigns and contact listings.
//
// A query is JSON:
//
//	{"segmentation": [
//	  {"rules": [
//	    {"field": "gender", "condition": "eq", "value": "female", "operator": "AND"},
//	    {"field": "birthday", "condition": "ann_in_days", "value": "7", "operator": "AND"}]},
//	  {"operator": "OR", "rules": [
//	    {"field": "email", "condition": "endswith", "value": "@example.com", "operator": "AND"}]}]}
//
// Parse reads and validates it; Compile turns it into a Matcher whose Match
// evaluates one contact, seen through the small Record interface, without
// allocating. The PostgreSQL store compiles the same Query to SQL with the
// same meaning, and a property test holds the two to it.
//
// # Structure
//
// Groups combine strictly left to right: the first group's result, then
// each further group joined to the result so far by its operator (OR,
// AND, AND NOT, OR NOT; the documents list OR, AND NOT and OR NOT, and
// AND is accepted as well). A group after the first without one is
// refused. The first group has nothing to join: the documents list
// operator as a group field without forbidding it there, so one there is
// accepted when it is one of the four, and left aside (the canonical
// form drops it, and AND NOT or OR NOT there does not negate the group).
// The rules of a group are joined by their operator, AND or OR, the same
// for every rule of the group; a rule may leave it out (then it takes the
// group's, and a group where no rule names one is AND), but two different
// ones in a group are refused. Operators are read case-insensitively.
//
// # Validation
//
// Parse refuses, naming each problem once by its path (such as
// segmentation[1].rules[0].condition) in the Fields of one Invalid error
// with code invalid_segmentation, whose message only counts them
// (Problems gives them as text): JSON that is not this shape (unknown keys
// included), an empty query or group, an unknown field or condition, a
// condition that does not apply to the field, a value where the
// condition takes none (isnull, isnotnull; "", null and [] count as none)
// or none where it takes one, an array where it takes one value, empty
// values (test for absence with isnull), and values the field cannot
// hold. in and notin take an array of strings or one comma-separated
// string (items trimmed of spaces; a value holding a comma needs the
// array). ann_in_days takes a whole number of days from 0 to 366, as a
// string or a JSON number, and applies only to birthday. Limits: 64 KiB
// of JSON, 20 groups, 100 rules, 1,000 values per rule, 1,000 bytes per
// value.
//
// Fields are the contact fields of the documents and column_1 to
// column_100, the custom field columns; a custom column a tenant has not
// defined is simply absent from every contact. subscription_options_in
// and subscription_options_out test memberships of subscription options.
//
// # Semantics
//
// Absent means no value or an empty one: isnull holds for it and
// isnotnull does not. Every other positive condition (eq, in, contains,
// startswith, endswith, gt, gte, lt, lte, ann_in_days) is false on an
// absent value, and the negative ones are their complements, true on it:
// neq is not eq, notin is not in. (The query language has no
// doesnotcontain; it is refused as an unknown condition. Express it as a
// group joined with AND NOT.)
//
// Text compares case-insensitively: both sides are compared as Fold gives
// them (simple case folding, character for character, as
// strings.EqualFold: "ΣΊΣΥΦΟΣ" equals "Σίσυφος", but "STRASSE" does not
// equal "straße"); gt, gte, lt and lte compare folded text by code point,
// not by a locale's collation, so that every store orders alike.
//
// gender takes eq, neq, in, notin, isnull and isnotnull, with the values
// male and female in any case.
//
// mobile and b_mobile hold E.164 numbers. Whole values (eq, neq, in,
// notin, gt, gte, lt, lte) are international numbers, written with +, 00
// or neither and with spaces, dashes, dots or brackets, and compare in
// E.164. contains and endswith take digits of a number; startswith takes
// the beginning of the international number, so +49, 0049 and 49 all
// select +49….
//
// birthday compares as a date (values YYYY-MM-DD). ann_in_days N selects
// contacts whose next anniversary of their birthday falls within today to
// today+N, both included, whatever the year of birth: this year's
// anniversary if it has not passed, else next year's, so the window wraps
// from December into January. A birthday on 29 February has its
// anniversary on 28 February in a common year. Today is the date in the
// tenant's time zone (Today; UTC unless the caller gives another).
//
// subscription_options_in with eq or in selects contacts subscribed to
// the option, or to any of the options, given by UUID;
// subscription_options_out the contacts that unsubscribed from one of
// them. neq and notin select the rest, contacts without such a
// membership.
package segmentation
