package phoneplan_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/nyaruka/phonenumbers"

	"github.com/msgkit/msgkit/phoneplan"
)

func ExamplePlans_ForNumber() {
	cc, nsn, _ := phoneplan.SplitCallingCode([]byte("38640123456"))
	r := phoneplan.Load().ForNumber(cc, nsn)
	fmt.Println(cc, string(nsn), r.Code, r.Valid(nsn))
	fmt.Println(r.Valid([]byte("4012345"))) // a digit short
	// Output:
	// 386 40123456 SI true
	// false
}

// Every example number of the library's metadata (every region, every
// number type) is found in the region the library names and valid
// there, and one digit more or less is judged as the library judges it.
func TestAgreesWithLibrary(t *testing.T) {
	p := phoneplan.Load()
	types := []phonenumbers.PhoneNumberType{phonenumbers.FIXED_LINE, phonenumbers.MOBILE, phonenumbers.TOLL_FREE,
		phonenumbers.PREMIUM_RATE, phonenumbers.SHARED_COST, phonenumbers.VOIP, phonenumbers.PERSONAL_NUMBER,
		phonenumbers.PAGER, phonenumbers.UAN, phonenumbers.VOICEMAIL}
	checked := 0
	for region := range phonenumbers.GetSupportedRegions() {
		for _, typ := range types {
			num := phonenumbers.GetExampleNumberForType(region, typ)
			if num == nil || num.GetItalianLeadingZero() {
				continue
			}
			digits := strconv.Itoa(int(num.GetCountryCode())) + strconv.FormatUint(num.GetNationalNumber(), 10)
			for _, d := range []string{digits, digits + "1", digits[:len(digits)-1]} {
				lib, err := phonenumbers.Parse("+"+d, "")
				if err != nil {
					continue
				}
				cc, nsn, ok := phoneplan.SplitCallingCode([]byte(d))
				if !ok || cc != int(lib.GetCountryCode()) {
					t.Fatalf("%s: calling code %d %v, the library's %d", d, cc, ok, lib.GetCountryCode())
				}
				if strconv.FormatUint(lib.GetNationalNumber(), 10) != string(nsn) {
					continue // a national prefix the library strips: its parser's case
				}
				r := p.ForNumber(cc, nsn)
				valid := r != nil && r.CC == cc && r.Valid(nsn)
				if want := phonenumbers.IsValidNumber(lib); valid != want {
					t.Errorf("+%s: valid %v, the library %v", d, valid, want)
				}
				if valid && r.Code != phonenumbers.GetRegionCodeForNumber(lib) {
					t.Errorf("+%s: region %s, the library %s", d, r.Code, phonenumbers.GetRegionCodeForNumber(lib))
				}
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("checked %d numbers", checked)
	}
}
