package uiproxy

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/msgkit/msgkit"
)

// Type is a component's type.
type Type string

// The component types; the customer API receives them as componentType.
const (
	Grid Type = "grid"
	KPI  Type = "KPI"
)

// ColumnKind is what a grid column holds, and so which filter operators
// fit it.
type ColumnKind string

// The column kinds.
const (
	String   ColumnKind = "string"
	Number   ColumnKind = "number"
	Date     ColumnKind = "date"     // YYYY-MM-DD
	DateTime ColumnKind = "datetime" // RFC 3339
	Boolean  ColumnKind = "boolean"
)

// Column is a grid column as the component shows it.
type Column struct {
	Name       string
	Kind       ColumnKind
	Filterable bool
	Sortable   bool
}

// Component is an operator's configuration of a UI component: where its
// data lives on the customer side and how to ask for it.
type Component struct {
	ID   string
	Type Type
	// Service is the tenant the component belongs to: only callers acting
	// for it get its data, as the customer's token is the tenant's.
	Service msgkit.ServiceUUID
	// URL is the customer address template: an absolute http or https URL
	// whose {variable} placeholders are replaced per request: referenceId,
	// componentId, componentType, token, language, locale, and for grids
	// pageNumber, pageSize and sort, and every name of Fixed. A
	// placeholder in the path is path-escaped, in the query
	// query-escaped; a variable without a value is replaced by "".
	URL string
	// Fixed are name and value pairs of the component, placeholders of
	// URL like the others.
	Fixed map[string]string
	// TokenHeader names the request header that carries the customer's
	// token; "" sends it as the query parameter token (unless URL places
	// {token} itself).
	TokenHeader string
	// Token is the customer's lifetime access token; it never appears in
	// logs or error messages.
	Token string
	// Timeout bounds one call to the customer; 0 is DefaultTimeout.
	Timeout time.Duration
	// Columns are a grid's columns, in display order.
	Columns []Column
	// CacheTTL keeps a successful answer for identical requests (same
	// reference, language, locale, page, sort and filters) that long; 0,
	// the default, asks the customer every time.
	CacheTTL time.Duration
}

// Limits of a component.
const (
	DefaultTimeout = 10 * time.Second
	MaxTimeout     = 60 * time.Second
	MaxColumns     = 100
	MaxCacheTTL    = 5 * time.Minute
)

// variables are the names a URL template may use besides Fixed.
var variables = []string{"referenceId", "componentId", "componentType", "token", "language", "locale", "pageNumber", "pageSize", "sort"}

// CodeInvalidComponent is the code of a component configuration that
// breaks a rule.
const CodeInvalidComponent = "invalid_component"

// Check names every problem of c at once: an id of letters, digits, '-',
// '_' and '.'; a type; an absolute http(s) URL whose placeholders are
// known variables or Fixed names (which must not shadow a variable), in
// its path and query only (a placeholder in the scheme, host or port
// would let a caller choose where the customer token goes); a
// valid header name for the token; a timeout up to MaxTimeout; a
// canonical service UUID; a cache time up to MaxCacheTTL; for grids
// one to MaxColumns columns of known kinds and unique names, and none for
// KPIs.
func (c Component) Check() error {
	e := msgkit.New(msgkit.Invalid, CodeInvalidComponent, "the component is invalid")
	bad := func(field, format string, args ...any) { e.WithField(field, msgkit.Sprintf(format, args...), "") }
	if c.ID == "" || len(c.ID) > 100 || strings.Trim(c.ID, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != "" {
		bad("id", "id must be 1 to 100 letters, digits, '-', '_' or '.'")
	}
	if svc, err := msgkit.ParseServiceUUID(string(c.Service)); err != nil || svc != c.Service {
		bad("service", "service must be a UUID in lower case")
	}
	if c.CacheTTL < 0 || c.CacheTTL > MaxCacheTTL {
		bad("cache_ttl", "cache_ttl must be at most %s", MaxCacheTTL)
	}
	if c.Type != Grid && c.Type != KPI {
		bad("type", "type must be grid or KPI")
	}
	u, err := url.Parse(strings.NewReplacer("{", "", "}", "").Replace(c.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(c.URL, " \t\r\n") {
		bad("url", "url must be an absolute http or https URL")
	}
	if strings.ContainsAny(origin(c.URL), "{}") {
		bad("url", "url must name its scheme, host and port without placeholders: where the customer token goes is the operator's choice")
	}
	for name := range c.Fixed {
		if slices.Contains(variables, name) || !placeholderName(name) {
			bad("fixed", "fixed name %q must be letters, digits and '_', and no variable's name", name)
		}
	}
	for _, name := range placeholders(c.URL) {
		if _, fixed := c.Fixed[name]; !fixed && !slices.Contains(variables, name) {
			bad("url", "url names {%s}, which is neither a variable nor a fixed name", name)
		}
	}
	if c.TokenHeader != "" && !validHeader(c.TokenHeader) {
		bad("token_header", "token_header must be a header name")
	}
	if c.Timeout < 0 || c.Timeout > MaxTimeout {
		bad("timeout", "timeout must be at most %s", MaxTimeout)
	}
	switch {
	case c.Type == KPI && len(c.Columns) > 0:
		bad("columns", "a KPI has no columns")
	case c.Type == Grid && (len(c.Columns) == 0 || len(c.Columns) > MaxColumns):
		bad("columns", "a grid has 1 to %d columns", MaxColumns)
	}
	seen := map[string]bool{}
	for i, col := range c.Columns {
		field := fmt.Sprintf("columns[%d]", i)
		if !placeholderName(col.Name) || seen[col.Name] {
			bad(field, "column names are letters, digits and '_', each once")
		}
		seen[col.Name] = true
		if !slices.Contains([]ColumnKind{String, Number, Date, DateTime, Boolean}, col.Kind) {
			bad(field, "column kind must be string, number, date, datetime or boolean")
		}
	}
	if len(e.Fields) > 0 {
		return e
	}
	return nil
}

// origin is the part of an address template before its path, query or
// fragment: scheme, user information, host and port.
func origin(tmpl string) string {
	scheme, rest, ok := strings.Cut(tmpl, "://")
	if !ok {
		return tmpl
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return scheme + "://" + rest
}

// placeholderName reports whether s may be a variable or column name.
func placeholderName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// placeholders lists the {name}s of a template, in order.
func placeholders(tmpl string) []string {
	var out []string
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, tmpl[i+1:i+j])
		tmpl = tmpl[i+j+1:]
	}
}

// validHeader reports whether name is a header name of letters, digits
// and '-'.
func validHeader(name string) bool {
	return name != "" && len(name) <= 100 && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") == ""
}

// equal reports whether c and o are the same configuration.
func (c Component) equal(o Component) bool {
	return c.ID == o.ID && c.Type == o.Type && c.Service == o.Service && c.URL == o.URL && maps.Equal(c.Fixed, o.Fixed) &&
		c.TokenHeader == o.TokenHeader && c.Token == o.Token && c.Timeout == o.Timeout && slices.Equal(c.Columns, o.Columns) && c.CacheTTL == o.CacheTTL
}
