package testsystem

import (
	"context"
	"strconv"
	"strings"

	"github.com/msgkit/msgkit"
	"github.com/shopspring/decimal"
)

// Owners of operators: the platform's reference list, or the caller's
// own operators.
const (
	OwnerPlatform = "platform"
	OwnerMe       = "me"
)

// Operator is a mobile network a test message can be sent to. Owner is ""
// for the platform's operators and the username of the user who keeps it
// otherwise. MCC and MNC stay strings: MNC "01" and "001" are different
// networks.
type Operator struct {
	ID      int64
	Owner   string
	Name    string
	Country string
	MCC     string // three digits
	MNC     string // two or three digits
}

// MCCMNC is the operator's code as one string of digits ("22601").
func (o Operator) MCCMNC() string { return o.MCC + o.MNC }

// Country is a country that has operators: its name and mobile country
// code.
type Country struct {
	Name string
	MCC  string
}

// Kind names the reference lists of plain records: route categories,
// suppliers and gates.
type Kind uint8

// The kinds of plain reference records.
const (
	Categories Kind = iota + 1
	Suppliers
	Gates
)

func (k Kind) String() string {
	switch k {
	case Categories:
		return "category"
	case Suppliers:
		return "supplier"
	case Gates:
		return "gate"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Named is a route category, supplier or gate: an id, a name unique
// among its owner's records of the kind, and its owner: "" for the
// platform's (shared by every user, changed only by an operator) or the
// username of the user who made it (seen and changed by that user only).
type Named struct {
	ID    int64
	Name  string
	Owner string
}

// Gate is a gate with what a test message through it needs: the category
// and supplier of its first route ("" without routes), and the price of
// one part (zero and "" when unknown).
type Gate struct {
	ID       int64
	Name     string
	Owner    string // "" for the platform's gates
	Category string
	Supplier string
	Price    decimal.Decimal
	Currency string
}

// Route is one parameter of a gate's route: the gate, its category and
// supplier, and one of the route's parameters (ParamName "tlv",
// "service_type" or "prefix"; a tlv's value is "tag=value").
type Route struct {
	ParamID                        int64
	GateID, CategoryID, SupplierID int64
	Gate, Category, Supplier       string
	ParamName, ParamValue          string
}

// The parameter names of routes.
const (
	ParamTLV         = "tlv"
	ParamServiceType = "service_type"
	ParamPrefix      = "prefix"
)

// NewRoute is an add-route request, checked by FillRoute.
type NewRoute struct {
	Category, Supplier, Gate string
	GateID                   int64 // 0: the gate's id, or a new one
	TLVTag, TLVValue         string
	ServiceType, Prefix      string
}

// RouteInput is an add-route body as sent.
type RouteInput struct {
	Category    *string `json:"category"`
	Supplier    *string `json:"supplier"`
	Gate        *string `json:"gate"`
	TLVTag      *string `json:"tlv_tag"`
	TLVValue    *string `json:"tlv_value"`
	ServiceType *string `json:"service_type"`
	Prefix      *string `json:"prefix"`
	GateID      *int64  `json:"gate_id"`
}

// CodeInvalidRoute is the code of an add-route body that breaks a rule.
const CodeInvalidRoute = "invalid_route"

// MaxNameLen bounds names and parameter values, in bytes.
const MaxNameLen = 200

// FillRoute checks an add-route body and names every problem at once:
// category, supplier and gate are required; tlv_value is required with
// tlv_tag; at least one of tlv_tag, service_type and prefix is set.
func FillRoute(in RouteInput) (NewRoute, error) {
	var p problems
	text := func(name string, v *string, required bool) string { return p.text(name, v, required, MaxNameLen) }
	add := p.add
	r := NewRoute{
		Category:    text("category", in.Category, true),
		Supplier:    text("supplier", in.Supplier, true),
		Gate:        text("gate", in.Gate, true),
		TLVTag:      text("tlv_tag", in.TLVTag, false),
		TLVValue:    text("tlv_value", in.TLVValue, false),
		ServiceType: text("service_type", in.ServiceType, false),
		Prefix:      text("prefix", in.Prefix, false),
	}
	if in.GateID != nil {
		if *in.GateID < 1 {
			add("gate_id", "gate_id must be a whole number of at least 1")
		}
		r.GateID = *in.GateID
	}
	if r.TLVTag != "" && r.TLVValue == "" {
		add("tlv_value", "tlv_value is required with tlv_tag")
	}
	if r.TLVTag == "" && r.TLVValue != "" {
		add("tlv_tag", "tlv_tag is required with tlv_value")
	}
	if r.TLVTag != "" && !validTLVTag(r.TLVTag) {
		add("tlv_tag", "tlv_tag must be a tag number from 0x1400 to 0x3FFF (vendor-specific TLVs), in decimal or 0x hexadecimal")
	}
	if r.TLVTag == "" && r.ServiceType == "" && r.Prefix == "" && in.TLVValue == nil {
		for _, f := range []string{"tlv_tag", "service_type", "prefix"} {
			add(f, "at least one of tlv_tag, service_type and prefix is required")
		}
	}
	if r.ServiceType != "" && len(r.ServiceType) > 5 {
		add("service_type", "service_type must be at most 5 characters (an SMPP service_type)")
	}
	if r.Prefix != "" && strings.Trim(r.Prefix, "0123456789") != "" {
		add("prefix", "prefix must be digits of a receiver number, without '+'")
	}
	if err := p.err(CodeInvalidRoute, "the route is invalid"); err != nil {
		return NewRoute{}, err
	}
	return r, nil
}

// problems are the field problems of one body, named all at once.
type problems []msgkit.FieldError

func (p *problems) add(name, msg string) {
	*p = append(*p, msgkit.FieldError{Name: name, Message: msg})
}

// text reads a string member trimmed of spaces: "" when absent or blank
// (a problem when required), a problem when over maxLen bytes.
func (p *problems) text(name string, v *string, required bool, maxLen int) string {
	if v == nil || strings.TrimSpace(*v) == "" {
		if required {
			p.add(name, name+" is required")
		}
		return ""
	}
	s := strings.TrimSpace(*v)
	if len(s) > maxLen {
		p.add(name, name+" must be at most "+strconv.Itoa(maxLen)+" bytes")
	}
	return s
}

// err is the Invalid error of code naming every problem, nil without
// one.
func (p problems) err(code, message string) error {
	if len(p) == 0 {
		return nil
	}
	e := msgkit.New(msgkit.Invalid, code, message)
	e.Fields = p
	return e
}

// validTLVTag accepts the vendor-specific SMPP 3.4 optional parameter tags
// (0x1400 to 0x3FFF), the ones a route can set freely.
func validTLVTag(s string) bool {
	n, err := strconv.ParseUint(s, 0, 16)
	return err == nil && n >= 0x1400 && n <= 0x3FFF
}

// Params are the route rows of r: one per parameter set.
func (r NewRoute) Params() [][2]string {
	var ps [][2]string
	if r.TLVTag != "" {
		ps = append(ps, [2]string{ParamTLV, r.TLVTag + "=" + r.TLVValue})
	}
	if r.ServiceType != "" {
		ps = append(ps, [2]string{ParamServiceType, r.ServiceType})
	}
	if r.Prefix != "" {
		ps = append(ps, [2]string{ParamPrefix, r.Prefix})
	}
	return ps
}

// SMSC is a service centre whose address a test handset may see: which
// operator runs it.
type SMSC struct {
	Address  string // E.164 with '+'
	Operator string
	Country  string
	MCC      string
	MNC      string
}

// The listing specifications: what each reference list filters, searches
// and sorts by. Parameters a handler reads itself (owner, and the integer
// codes mcc_mnc and mcc) are ignored here. Each call returns a spec of
// its own, so no caller can change another's.

// LanguageSpec lists languages: code, q over name, sort by name.
func LanguageSpec() msgkit.ListSpec {
	return msgkit.ListSpec{
		Filter: map[string]msgkit.AttrType{"code": msgkit.AttrString, "name": msgkit.AttrString},
		Sort:   []string{"name", "code"}, Search: []string{"name"},
	}
}

// OperatorSpec lists operators: mcc_mnc and mcc (read by the handler), q
// over operator and country name, sort by them.
func OperatorSpec() msgkit.ListSpec {
	return msgkit.ListSpec{
		Filter: map[string]msgkit.AttrType{"name": msgkit.AttrString, "country": msgkit.AttrString, "mcc": msgkit.AttrString, "mcc_mnc": msgkit.AttrString},
		Sort:   []string{"name", "country", "mcc", "mcc_mnc"}, Search: []string{"name", "country"},
		Ignore: []string{"owner", "mcc", "mcc_mnc"},
	}
}

// CountrySpec lists countries: name, mcc (read by the handler), q over
// name, sort by name.
func CountrySpec() msgkit.ListSpec {
	return msgkit.ListSpec{
		Filter: map[string]msgkit.AttrType{"name": msgkit.AttrString, "mcc": msgkit.AttrString},
		Sort:   []string{"name", "mcc"}, Search: []string{"name"},
		Ignore: []string{"owner", "mcc"},
	}
}

// RouteSpec lists routes: gate_name, category_name, supplier_name, q over
// the three, sort by them.
func RouteSpec() msgkit.ListSpec {
	return msgkit.ListSpec{
		Filter: map[string]msgkit.AttrType{"gate_name": msgkit.AttrString, "category_name": msgkit.AttrString, "supplier_name": msgkit.AttrString, "param_name": msgkit.AttrString},
		Sort:   []string{"gate_name", "category_name", "supplier_name", "param_name", "param_id"},
		Search: []string{"gate_name", "category_name", "supplier_name"},
	}
}

// NamedSpec lists categories, suppliers and gates: name, q over name,
// sort by name or id.
func NamedSpec() msgkit.ListSpec {
	return msgkit.ListSpec{
		Filter: map[string]msgkit.AttrType{"name": msgkit.AttrString},
		Sort:   []string{"name", "id"}, Search: []string{"name"},
	}
}

// Catalog keeps the reference lists. Listings filter, search, sort and
// page as their ListSpec says; a listing without a sort is by id (routes
// by param_id, countries by name).
//
// Categories, suppliers and gates have owners (see Named); a viewer sees
// the platform's records and its own ("" sees the platform's only), and a
// route is seen with its gate.
type Catalog interface {
	// Operators lists the operators of owner ("" the platform's).
	Operators(ctx context.Context, owner string, q msgkit.ListQuery) (msgkit.Page[Operator], error)
	// Countries lists the countries of owner's operators, each once.
	Countries(ctx context.Context, owner string, q msgkit.ListQuery) (msgkit.Page[Country], error)
	// Routes lists the routes of the gates viewer sees.
	Routes(ctx context.Context, viewer string, q msgkit.ListQuery) (msgkit.Page[Route], error)
	// Named lists the categories, suppliers or gates viewer sees.
	Named(ctx context.Context, k Kind, viewer string, q msgkit.ListQuery) (msgkit.Page[Named], error)
	// NamedByID returns a category, supplier or gate, whoever owns it;
	// NotFound without one.
	NamedByID(ctx context.Context, k Kind, id int64) (Named, error)
	// DeleteNamed deletes owner's category, supplier or gate with the
	// routes that use it and answers the deleted record; NotFound when
	// owner has none of id.
	DeleteNamed(ctx context.Context, k Kind, owner string, id int64) (Named, error)
	// AddRoute stores r's parameters as routes of its gate, category and
	// supplier for owner ("" the platform), atomically, and reports
	// whether any row was new. Records are found by name among
	// owner's own and then the platform's, and made for owner when new. A user's
	// route may name the platform's category and supplier but never the
	// platform's gate (Forbidden, GateNotYours), and gives gate_id only to
	// name one of its own gates (Invalid, GateIDNotYours): its new gates
	// are numbered by the store. The platform's new gate takes r.GateID
	// when set. A gate_id naming a gate of another name, or taken by
	// another gate, is Conflict.
	AddRoute(ctx context.Context, owner string, r NewRoute) (added bool, err error)
	// Load stores a dataset of the platform's records: records are matched
	// by id (operators, categories, suppliers, gates) or address (SMSCs)
	// and replaced.
	Load(ctx context.Context, d Dataset) error

	// GatesByID returns the gates of ids that viewer sees, in ids' order.
	GatesByID(ctx context.Context, viewer string, ids []int64) ([]Gate, error)
	// OperatorsByCode returns owner's operators whose MCCMNC is one of
	// codes, or (codes empty) whose MCC is one of mccs, by id.
	OperatorsByCode(ctx context.Context, owner string, codes, mccs []string) ([]Operator, error)
	// SMSC returns the service centre of address; ok false when unknown.
	SMSC(ctx context.Context, address string) (SMSC, bool, error)
	// OperatorByCode returns a platform operator of the code; ok false
	// when none.
	OperatorByCode(ctx context.Context, mccmnc string) (Operator, bool, error)
}

// NamedNotFound is the error of a category, supplier or gate that is not
// stored.
func NamedNotFound(k Kind, id int64) error {
	return msgkit.Errorf(msgkit.NotFound, k.String()+"_not_found", "%s %d not found", k, id)
}

// GateIDConflict is the error of an add-route whose gate_id is not the
// id of the gate it names.
func GateIDConflict(gate string, id, asked int64) error {
	return msgkit.Errorf(msgkit.Conflict, "gate_id_conflict", "gate %q has id %d, not %d", gate, id, asked).
		WithField("gate_id", "gate "+strconv.Quote(gate)+" has id "+strconv.FormatInt(id, 10), "")
}

// GateNotYours is the error of a user's add-route that names a gate of
// the platform: only an operator changes the platform's gates.
func GateNotYours(gate string) error {
	return msgkit.Errorf(msgkit.Forbidden, CodePlatformRecord, "gate %q is the platform's: only an operator adds routes to it", gate).
		WithField("gate", "gate "+strconv.Quote(gate)+" is the platform's", "")
}

// GateIDNotYours is the error of a user's add-route whose gate_id is not
// the id of one of the user's gates: a user's new gate is numbered by the
// platform.
func GateIDNotYours(id int64) error {
	return msgkit.Invalidf(CodeInvalidRoute, "gate_id", "gate_id %d names none of your gates; leave it out to make a new gate", id)
}

// CodePlatformRecord is the code of a user's change to the platform's
// reference records, which only an operator changes.
const CodePlatformRecord = "platform_record"

// PlatformRecord is the error of a user's delete of the platform's
// category, supplier or gate.
func PlatformRecord(k Kind, id int64) error {
	return msgkit.Errorf(msgkit.Forbidden, CodePlatformRecord, "%s %d is the platform's: only an operator deletes it", k, id)
}

// GateIDTaken is the error of an add-route whose gate_id is another
// gate's.
func GateIDTaken(id int64, other string) error {
	return msgkit.Errorf(msgkit.Conflict, "gate_id_taken", "gate id %d is gate %q", id, other).
		WithField("gate_id", "gate id "+strconv.FormatInt(id, 10)+" is another gate's", "")
}
