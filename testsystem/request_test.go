package testsystem_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/testsystem"
	"github.com/msgkit/msgkit/testsystem/testtext"
)

// problems is the names of the fields err names, nil for no error.
func problems(t *testing.T, err error, code string) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	e, ok := err.(*msgkit.Error)
	if !ok || e.Kind != msgkit.Invalid || e.Code != code {
		t.Fatalf("error %v, want Invalid %s", err, code)
	}
	var names []string
	for _, f := range e.Fields {
		if !slices.Contains(names, f.Name) {
			names = append(names, f.Name)
		}
	}
	return names
}

func fillRequest(t *testing.T, body string) (testsystem.Request, []string) {
	t.Helper()
	var in testsystem.Input
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	r, err := testsystem.Fill(in)
	return r, problems(t, err, testsystem.CodeInvalidRequest)
}

const base = `"username":"u","test":"t","gate_id":[1,2,1],"text_lang":"en","text_type":"gsm","callback_api":"https://example.com/cb"`

func TestFill(t *testing.T) {
	r, p := fillRequest(t, `{`+base+`,"mcc":[262,234],"mcc_mnc":[22601,226001]}`)
	if p != nil || !slices.Equal(r.Gates, []int64{1, 2}) || !slices.Equal(r.MCCMNC, []string{"22601", "226001"}) || r.MCCs != nil ||
		r.Owner != testsystem.OwnerPlatform || r.TextType != testtext.GSM || r.Lang != "en" || r.Callback != "https://example.com/cb" {
		t.Errorf("mcc_mnc wins over mcc, MNC 01 and 001 differ: %+v %v", r, p)
	}
	r, p = fillRequest(t, `{`+base+`,"mcc":[262],"operator_owner":"me","sender_same":"short"}`)
	if p != nil || !slices.Equal(r.MCCs, []string{"262"}) || r.Owner != testsystem.OwnerMe || r.SenderSame != testsystem.SenderShort {
		t.Errorf("one mcc and owner me: %+v %v", r, p)
	}
	if r, p = fillRequest(t, `{`+base+`,"mcc":[262],"sender":"+4917012345"}`); p != nil || r.Sender != "4917012345" {
		t.Errorf("numeric sender: %+v %v", r, p)
	}
	for _, tt := range []struct {
		body string
		want []string
	}{
		{`{}`, []string{"username", "test", "gate_id", "mcc", "mcc_mnc", "text_lang", "text_type", "callback_api"}},
		{`{` + base + `}`, []string{"mcc", "mcc_mnc"}},
		{`{` + base + `,"mcc":[262],"operator_owner":"them"}`, []string{"operator_owner"}},
		{`{` + base + `,"mcc_mnc":[2260]}`, []string{"mcc_mnc"}},
		{`{` + base + `,"mcc_mnc":[2260011]}`, []string{"mcc_mnc"}},
		{`{` + base + `,"mcc":[26]}`, []string{"mcc"}},
		{`{` + base + `,"mcc":["262"]}`, []string{"mcc"}},
		// gate_id, mcc and mcc_mnc are arrays: a bare number is refused.
		{`{` + base + `,"mcc":262}`, []string{"mcc"}},
		{`{` + base + `,"mcc_mnc":26201}`, []string{"mcc_mnc"}},
		{`{"username":"u","test":"t","gate_id":1,"text_lang":"en","text_type":"gsm","callback_api":"https://e.com","mcc":[262]}`, []string{"gate_id"}},
		{`{` + base + `,"mcc":[262],"sender":"x","sender_random":"alpha"}`, []string{"sender"}},
		{`{` + base + `,"mcc":[262],"sender_random":"emoji"}`, []string{"sender_random"}},
		{`{` + base + `,"mcc":[262],"sender_same":"alpha","sender_random":"numeric"}`, []string{"sender"}},
		{`{` + base + `,"mcc":[262],"sender":"way too long a sender"}`, []string{"sender"}},
		{`{"username":"u","test":"t","gate_id":[],"text_lang":"en","text_type":"gsm","callback_api":"https://e.com","mcc":[262]}`, []string{"gate_id"}},
		{`{"username":"u","test":"t","gate_id":[0],"text_lang":"en","text_type":"gsm","callback_api":"https://e.com","mcc":[262]}`, []string{"gate_id"}},
		{`{"username":"u","test":"t","gate_id":"1","text_lang":"en","text_type":"gsm7","callback_api":"ftp://e.com","mcc":[262]}`, []string{"gate_id", "text_type", "callback_api"}},
		{`{"username":"u","test":"t","gate_id":[1],"text_lang":"en","text_type":"ucs","callback_api":"/relative","mcc":[262]}`, []string{"callback_api"}},
		{`{"username":" ","test":"` + strings.Repeat("x", 201) + `","gate_id":[1],"text_lang":"en","text_type":"ucs","callback_api":"https://e.com","mcc":[262]}`, []string{"username", "test"}},
	} {
		if _, p := fillRequest(t, tt.body); !slices.Equal(p, tt.want) {
			t.Errorf("%s: problems %v, want %v", tt.body, p, tt.want)
		}
	}
}

func FuzzFill(f *testing.F) {
	f.Add([]byte(`{` + base + `,"mcc":[262]}`))
	f.Add([]byte(`{"gate_id":1e99,"mcc_mnc":[-1],"sender_random":"alpha","sender":"A"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var in testsystem.Input
		if json.Unmarshal(data, &in) != nil {
			return
		}
		r, err := testsystem.Fill(in)
		if err != nil {
			if msgkit.KindOf(err) != msgkit.Invalid {
				t.Fatalf("Fill: %v", err)
			}
			return
		}
		if len(r.Gates) == 0 || len(r.MCCMNC)+len(r.MCCs) == 0 || r.Callback == "" || (len(r.MCCMNC) > 0 && len(r.MCCs) > 0) {
			t.Fatalf("accepted %+v", r)
		}
	})
}

func fillRoute(t *testing.T, body string) (testsystem.NewRoute, []string) {
	t.Helper()
	var in testsystem.RouteInput
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	r, err := testsystem.FillRoute(in)
	return r, problems(t, err, testsystem.CodeInvalidRoute)
}

func TestFillRoute(t *testing.T) {
	r, p := fillRoute(t, `{"category":" Direct ","supplier":"S","gate":"g","tlv_tag":"0x1400","tlv_value":"v","prefix":"49","gate_id":9}`)
	if p != nil || r.Category != "Direct" || r.GateID != 9 || !slices.Equal(r.Params(), [][2]string{{"tlv", "0x1400=v"}, {"prefix", "49"}}) {
		t.Errorf("FillRoute = %+v %v", r, p)
	}
	for _, tt := range []struct {
		body string
		want []string
	}{
		{`{}`, []string{"category", "supplier", "gate", "tlv_tag", "service_type", "prefix"}},
		{`{"category":"c","supplier":"s","gate":"g"}`, []string{"tlv_tag", "service_type", "prefix"}},
		{`{"category":"c","supplier":"s","gate":"g","tlv_tag":"5120"}`, []string{"tlv_value"}},
		{`{"category":"c","supplier":"s","gate":"g","tlv_value":"x"}`, []string{"tlv_tag"}},
		{`{"category":"c","supplier":"s","gate":"g","tlv_tag":"0x0204","tlv_value":"x"}`, []string{"tlv_tag"}},
		{`{"category":"c","supplier":"s","gate":"g","service_type":"TOOLONG"}`, []string{"service_type"}},
		{`{"category":"c","supplier":"s","gate":"g","prefix":"+49"}`, []string{"prefix"}},
		{`{"category":"c","supplier":"s","gate":"g","prefix":"4","gate_id":0}`, []string{"gate_id"}},
	} {
		if _, p := fillRoute(t, tt.body); !slices.Equal(p, tt.want) {
			t.Errorf("%s: problems %v, want %v", tt.body, p, tt.want)
		}
	}
}

func TestFixtureAndLoadDataset(t *testing.T) {
	d := testsystem.Fixture()
	if len(d.Operators) != 12 || len(d.Gates) != 5 || len(d.Routes) != 6 || len(d.SMSCs) != 13 {
		t.Errorf("fixture: %d operators, %d gates, %d routes, %d SMSCs", len(d.Operators), len(d.Gates), len(d.Routes), len(d.SMSCs))
	}
	for _, tt := range []struct{ body, want string }{
		{`{"operators":[{"id":1,"name":"a","country":"c","mcc":"26","mnc":"1"}]}`, "operators[0]: mcc must be 3 digits"},
		{`{"operators":[{"id":1,"name":"a","country":"c","mcc":"262","mnc":"01"},{"id":1,"name":"b","country":"c","mcc":"262","mnc":"02"}]}`, "operators[1]: id 1 given twice"},
		{`{"gates":[{"id":1,"name":"g","price":"-1"}]}`, "gates[0]: price"},
		{`{"gates":[{"id":1,"name":"g"},{"id":2,"name":"g"}]}`, "gates[1]: name \"g\" given twice"},
		{`{"gates":[{"id":1,"name":"g","currency":"eur"}]}`, "gates[0]: currency"},
		{`{"routes":[{"param_id":1,"gate_id":1,"category_id":1,"supplier_id":1,"param_name":"tlv"}]}`, "routes[0]: gate id 1 is not in the dataset"},
		{`{"routes":[{"param_id":1,"param_name":"colour"}]}`, "param_name must be tlv"},
		{`{"smscs":[{"address":"4917","operator":"o","country":"c","mcc":"262","mnc":"01"}]}`, "smscs[0]: address"},
		{`{"nonsense":1}`, "not JSON of the dataset format"},
		{`[`, "not JSON of the dataset format"},
	} {
		_, err := testsystem.LoadDataset(strings.NewReader(tt.body))
		if msgkit.KindOf(err) != msgkit.Invalid || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want it to say %q", tt.body, err, tt.want)
		}
	}
}

func TestSplitMCCMNC(t *testing.T) {
	for _, tt := range []struct {
		n        int64
		mcc, mnc string
		ok       bool
	}{
		{22601, "226", "01", true}, {226001, "226", "001", true}, {310260, "310", "260", true},
		{2260, "", "", false}, {2260011, "", "", false}, {-22601, "", "", false},
	} {
		mcc, mnc, ok := testsystem.SplitMCCMNC(tt.n)
		if mcc != tt.mcc || mnc != tt.mnc || ok != tt.ok {
			t.Errorf("SplitMCCMNC(%d) = %q %q %v", tt.n, mcc, mnc, ok)
		}
	}
}

// FillRoute takes any body without a panic; a route it accepts has its
// required names and at least one parameter.
func FuzzFillRoute(f *testing.F) {
	f.Add([]byte(`{"category":"c","supplier":"s","gate":"g","tlv_tag":"0x1400","tlv_value":"v","prefix":"49","gate_id":9}`))
	f.Add([]byte(`{"category":"","tlv_value":"x","service_type":"TOOLONG","gate_id":-1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var in testsystem.RouteInput
		if json.Unmarshal(data, &in) != nil {
			return
		}
		r, err := testsystem.FillRoute(in)
		if err != nil {
			if msgkit.KindOf(err) != msgkit.Invalid {
				t.Fatalf("FillRoute: %v", err)
			}
			return
		}
		if r.Category == "" || r.Supplier == "" || r.Gate == "" || len(r.Params()) == 0 || (r.TLVTag != "") != (r.TLVValue != "") {
			t.Fatalf("accepted %+v", r)
		}
	})
}

// LoadDataset takes any input without a panic, refusing with Invalid.
func FuzzLoadDataset(f *testing.F) {
	f.Add([]byte(`{"operators":[{"id":1,"name":"a","country":"c","mcc":"262","mnc":"01"}],"gates":[{"id":1,"name":"g","price":"0.1","currency":"EUR"}]}`))
	f.Add([]byte(`{"routes":[{"param_id":1,"gate_id":1,"category_id":1,"supplier_id":1,"param_name":"tlv"}],"smscs":[{"address":"+1"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := testsystem.LoadDataset(bytes.NewReader(data))
		if err != nil {
			if msgkit.KindOf(err) != msgkit.Invalid {
				t.Fatalf("LoadDataset: %v", err)
			}
			return
		}
		for _, o := range d.Operators {
			if o.ID < 1 || len(o.MCC) != 3 || len(o.MNC) < 2 || o.Name == "" {
				t.Fatalf("accepted operator %+v", o)
			}
		}
	})
}
