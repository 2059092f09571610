package sms

import (
	"strconv"
	"strings"
	"testing"

	"github.com/nyaruka/phonenumbers"
	"pgregory.net/rapid"
)

// referenceParseReceiver is parseReceiver through the library alone: the
// direct reading (splitCallingCode) checked by IsValidNumber, the general
// parser for the rest.
func referenceParseReceiver(s string) (MSISDN, string, bool) {
	digits := strings.TrimPrefix(s, "+")
	if s == "" || !allDigits(digits) || len(digits) < 3 || len(digits) > 15 {
		return "", "", false
	}
	num := referenceNumberFromDigits(digits)
	if num == nil || !phonenumbers.IsValidNumber(num) {
		var err error
		if num, err = phonenumbers.Parse("+"+digits, ""); err != nil || !phonenumbers.IsValidNumber(num) {
			return "", "", false
		}
	}
	return MSISDN(phonenumbers.Format(num, phonenumbers.E164)), phonenumbers.GetRegionCodeForNumber(num), true
}

// referenceNumberFromDigits builds the library's number of digits read
// directly, leading zeros of the national number kept as it keeps them.
func referenceNumberFromDigits(digits string) *phonenumbers.PhoneNumber {
	cc, national, ok := splitCallingCode(digits)
	if !ok {
		return nil
	}
	nn, err := strconv.ParseUint(national, 10, 64)
	if err != nil {
		return nil
	}
	num := &phonenumbers.PhoneNumber{CountryCode: new(int32(cc)), NationalNumber: new(nn)}
	if len(national) > 1 && national[0] == '0' {
		zeros := 1
		for zeros < len(national)-1 && national[zeros] == '0' {
			zeros++
		}
		num.ItalianLeadingZero = new(true)
		if zeros != 1 {
			num.NumberOfLeadingZeros = new(int32(zeros))
		}
	}
	return num
}

// exampleDigits are the library's example numbers of every region and
// number type, as digits with the country code: valid numbers of every
// pattern, to start mutations from.
func exampleDigits(t testing.TB) []string {
	t.Helper()
	types := []phonenumbers.PhoneNumberType{phonenumbers.FIXED_LINE, phonenumbers.MOBILE, phonenumbers.TOLL_FREE,
		phonenumbers.PREMIUM_RATE, phonenumbers.SHARED_COST, phonenumbers.VOIP, phonenumbers.PERSONAL_NUMBER,
		phonenumbers.PAGER, phonenumbers.UAN, phonenumbers.VOICEMAIL}
	var out []string
	for region := range phonenumbers.GetSupportedRegions() {
		for _, typ := range types {
			if num := phonenumbers.GetExampleNumberForType(region, typ); num != nil {
				out = append(out, strings.TrimPrefix(phonenumbers.Format(num, phonenumbers.E164), "+"))
			}
		}
	}
	for cc := range phonenumbers.GetSupportedGlobalNetworkCallingCodes() {
		if num := phonenumbers.GetExampleNumberForNonGeoEntity(cc); num != nil {
			out = append(out, strings.TrimPrefix(phonenumbers.Format(num, phonenumbers.E164), "+"))
		}
	}
	if len(out) < 1000 {
		t.Fatalf("only %d example numbers", len(out))
	}
	return out
}

// Every example number reads as the library reads it.
func TestNumberPlanExamples(t *testing.T) {
	for _, digits := range exampleDigits(t) {
		checkAgainstLibrary(t, digits)
	}
}

// Numbers near valid ones (a digit changed, added or dropped, the country
// code swapped) and arbitrary digits read as the library reads them: the
// same validity, E.164 form and region.
func TestNumberPlanAgreesWithLibrary(t *testing.T) {
	examples := exampleDigits(t)
	rapid.Check(t, func(t *rapid.T) {
		digits := rapid.SampledFrom(examples).Draw(t, "example")
		switch rapid.IntRange(0, 4).Draw(t, "mutation") {
		case 0: // a digit changed
			i := rapid.IntRange(0, len(digits)-1).Draw(t, "at")
			digits = digits[:i] + rapid.StringMatching(`[0-9]`).Draw(t, "digit") + digits[i+1:]
		case 1: // a digit added
			i := rapid.IntRange(0, len(digits)).Draw(t, "at")
			digits = digits[:i] + rapid.StringMatching(`[0-9]`).Draw(t, "digit") + digits[i:]
		case 2: // a digit dropped
			i := rapid.IntRange(0, len(digits)-1).Draw(t, "at")
			digits = digits[:i] + digits[i+1:]
		case 3: // the national part after another country code
			other := rapid.SampledFrom(examples).Draw(t, "other")
			cc, _, _ := splitCallingCode(other)
			_, national, _ := splitCallingCode(digits)
			digits = strconv.Itoa(cc) + national
		case 4: // anything
			digits = rapid.StringMatching(`[0-9]{3,15}`).Draw(t, "digits")
		}
		checkAgainstLibrary(t, digits)
	})
}

func checkAgainstLibrary(t interface {
	Helper()
	Fatalf(format string, args ...any)
}, digits string) {
	t.Helper()
	want, wantRegion, wantOK := referenceParseReceiver(digits)
	got, region, err := parseReceiver(digits)
	if (err == nil) != wantOK || got != want || region != wantRegion {
		t.Fatalf("%s: parseReceiver = %q %q %v; the library reads %q %q valid %v", digits, got, region, err, want, wantRegion, wantOK)
	}
}

// BenchmarkParseReceiver reads a valid mobile number, as every submission
// does; Library is the same through libphonenumber alone.
func BenchmarkParseReceiver(b *testing.B) {
	for _, digits := range []string{"38640123456", "12025550123", "447911123456"} {
		b.Run(digits, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := parseReceiver(digits); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(digits+"/Library", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, ok := referenceParseReceiver(digits); !ok {
					b.Fatal(digits)
				}
			}
		})
	}
}
