package testsystem

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/msgkit/msgkit"
	"github.com/shopspring/decimal"
)

// Dataset is an operator-provided set of reference records, read by
// LoadDataset and stored by Catalog.Load.
type Dataset struct {
	Operators  []Operator
	Categories []Named
	Suppliers  []Named
	Gates      []Gate
	Routes     []Route // by ids; names are the records'
	SMSCs      []SMSC
}

// datasetJSON is the file format of a dataset.
type datasetJSON struct {
	Operators []struct {
		ID      int64  `json:"id"`
		Owner   string `json:"owner"`
		Name    string `json:"name"`
		Country string `json:"country"`
		MCC     string `json:"mcc"`
		MNC     string `json:"mnc"`
	} `json:"operators"`
	Categories []namedJSON `json:"categories"`
	Suppliers  []namedJSON `json:"suppliers"`
	Gates      []struct {
		ID       int64  `json:"id"`
		Name     string `json:"name"`
		Price    string `json:"price"`
		Currency string `json:"currency"`
	} `json:"gates"`
	Routes []struct {
		ID         int64  `json:"param_id"`
		GateID     int64  `json:"gate_id"`
		CategoryID int64  `json:"category_id"`
		SupplierID int64  `json:"supplier_id"`
		ParamName  string `json:"param_name"`
		ParamValue string `json:"param_value"`
	} `json:"routes"`
	SMSCs []struct {
		Address  string `json:"address"`
		Operator string `json:"operator"`
		Country  string `json:"country"`
		MCC      string `json:"mcc"`
		MNC      string `json:"mnc"`
	} `json:"smscs"`
}

type namedJSON struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

//go:embed fixture.json
var fixture []byte

// Fixture is the small hand-written reference dataset msgkit ships: a
// few countries' operators, their service centres, and gates of honest
// and dishonest routes, enough to run a test session out of the box.
func Fixture() Dataset {
	d, err := LoadDataset(bytes.NewReader(fixture))
	if err != nil {
		panic("testsystem: the embedded fixture is broken: " + err.Error())
	}
	return d
}

// LoadDataset reads a dataset in the JSON format of fixture.json and
// checks it whole: ids at least 1 and unique per list, names present
// (and unique among categories, suppliers and gates),
// MCC three digits and MNC two or three, prices decimal, routes naming
// stored gates, categories and suppliers with a known parameter, SMSC
// addresses E.164. Every problem is named in one Invalid error.
func LoadDataset(r io.Reader) (Dataset, error) {
	var in datasetJSON
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return Dataset{}, msgkit.Errorf(msgkit.Invalid, CodeInvalidDataset, "the dataset is not JSON of the dataset format: %v", err)
	}
	var p []string
	bad := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	var d Dataset
	ids := map[string]map[int64]bool{}
	unique := func(list string, i int, id int64) {
		if id < 1 {
			bad("%s[%d]: id must be at least 1", list, i)
			return
		}
		if ids[list] == nil {
			ids[list] = map[int64]bool{}
		}
		if ids[list][id] {
			bad("%s[%d]: id %d given twice", list, i, id)
		}
		ids[list][id] = true
	}
	names := map[string]map[string]bool{}
	named := func(list string, i int, name string) string {
		name = strings.TrimSpace(name)
		if name == "" || len(name) > MaxNameLen {
			bad("%s[%d]: name must be 1 to %d bytes", list, i, MaxNameLen)
		}
		return name
	}
	uniqueName := func(list string, i int, name string) string {
		name = named(list, i, name)
		if names[list] == nil {
			names[list] = map[string]bool{}
		}
		if names[list][name] {
			bad("%s[%d]: name %q given twice", list, i, name)
		}
		names[list][name] = true
		return name
	}
	for i, o := range in.Operators {
		unique("operators", i, o.ID)
		if !digits(o.MCC, 3, 3) || !digits(o.MNC, 2, 3) {
			bad("operators[%d]: mcc must be 3 digits and mnc 2 or 3", i)
		}
		owner := strings.TrimSpace(o.Owner)
		if owner == OwnerPlatform {
			owner = ""
		}
		d.Operators = append(d.Operators, Operator{ID: o.ID, Owner: owner, Name: named("operators", i, o.Name),
			Country: named("operators", i, o.Country), MCC: o.MCC, MNC: o.MNC})
	}
	for i, c := range in.Categories {
		unique("categories", i, c.ID)
		d.Categories = append(d.Categories, Named{ID: c.ID, Name: uniqueName("categories", i, c.Name)})
	}
	for i, s := range in.Suppliers {
		unique("suppliers", i, s.ID)
		d.Suppliers = append(d.Suppliers, Named{ID: s.ID, Name: uniqueName("suppliers", i, s.Name)})
	}
	for i, g := range in.Gates {
		unique("gates", i, g.ID)
		gate := Gate{ID: g.ID, Name: uniqueName("gates", i, g.Name), Currency: g.Currency}
		if g.Price != "" {
			price, err := decimal.NewFromString(g.Price)
			if err != nil || price.IsNegative() {
				bad("gates[%d]: price must be a decimal of at least 0", i)
			}
			gate.Price = price
		}
		if g.Currency != "" && !upper3(g.Currency) {
			bad("gates[%d]: currency must be an ISO 4217 code", i)
		}
		d.Gates = append(d.Gates, gate)
	}
	for i, rt := range in.Routes {
		unique("routes", i, rt.ID)
		for _, ref := range []struct {
			list, what string
			id         int64
		}{{"gates", "gate", rt.GateID}, {"categories", "category", rt.CategoryID}, {"suppliers", "supplier", rt.SupplierID}} {
			if !ids[ref.list][ref.id] {
				bad("routes[%d]: %s id %d is not in the dataset", i, ref.what, ref.id)
			}
		}
		switch rt.ParamName {
		case ParamTLV, ParamServiceType, ParamPrefix:
		default:
			bad("routes[%d]: param_name must be tlv, service_type or prefix", i)
		}
		d.Routes = append(d.Routes, Route{ParamID: rt.ID, GateID: rt.GateID, CategoryID: rt.CategoryID, SupplierID: rt.SupplierID,
			ParamName: rt.ParamName, ParamValue: rt.ParamValue})
	}
	seen := map[string]bool{}
	for i, s := range in.SMSCs {
		if !strings.HasPrefix(s.Address, "+") || !digits(s.Address[1:], 4, 15) {
			bad("smscs[%d]: address must be an E.164 number with '+'", i)
		}
		if seen[s.Address] {
			bad("smscs[%d]: address %s given twice", i, s.Address)
		}
		seen[s.Address] = true
		if !digits(s.MCC, 3, 3) || !digits(s.MNC, 2, 3) {
			bad("smscs[%d]: mcc must be 3 digits and mnc 2 or 3", i)
		}
		d.SMSCs = append(d.SMSCs, SMSC{Address: s.Address, Operator: named("smscs", i, s.Operator), Country: named("smscs", i, s.Country), MCC: s.MCC, MNC: s.MNC})
	}
	if len(p) > 0 {
		return Dataset{}, msgkit.Errorf(msgkit.Invalid, CodeInvalidDataset, "the dataset is invalid: %s", strings.Join(p, "; "))
	}
	return d, nil
}

// digits reports whether s is min to max ASCII digits.
func digits(s string, minLen, maxLen int) bool {
	return len(s) >= minLen && len(s) <= maxLen && strings.Trim(s, "0123456789") == ""
}

func upper3(s string) bool {
	return len(s) == 3 && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// SplitMCCMNC reads a wire mcc_mnc integer: three digits of MCC, then two
// or three of MNC (22601 is 226 and 01; 226001 is 226 and 001).
func SplitMCCMNC(n int64) (mcc, mnc string, ok bool) {
	s := strconv.FormatInt(n, 10)
	if n < 0 || len(s) < 5 || len(s) > 6 {
		return "", "", false
	}
	return s[:3], s[3:], true
}
