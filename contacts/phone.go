package contacts

import (
	"strconv"

	"github.com/nyaruka/phonenumbers"

	"github.com/msgkit/msgkit/phoneplan"
)

// E164 reads a phone number in international form, with its + or 00 and
// with spaces, dashes, dots or brackets, and returns it in E.164 when
// libphonenumber's metadata takes it for a valid number of its country.
func E164(v string) (string, bool) { return E164In(v, "") }

// E164In is E164 that also reads a national number (no + or 00) as a
// number of region, an ISO 3166-1 alpha-2 code such as "SI" ("040 123 456"
// is +38640123456 there); with region "", a national number is refused,
// as it names no country.
//
// Most numbers are read without the library's parser, which builds
// every pattern's string again and looks it up in a locked cache for
// each test (about 7 µs a number, most of an import's work): a number
// written as its country code and national significant number, or as the
// region's national prefix and that number, is checked against the
// region's patterns, compiled once. Anything else (a national prefix
// after the country code, carrier codes, regions sharing a country code
// when read nationally) goes to the library, and a test checks that both
// agree on every input.
func E164In(v, region string) (string, bool) {
	var buf [maxPhoneDigits]byte
	d, plus, ok := phoneDigits(v, buf[:0])
	if !ok {
		return "", false
	}
	intl := plus
	if !plus && len(d) >= 2 && d[0] == '0' && d[1] == '0' {
		d, intl = d[2:], true
	}
	switch {
	case intl:
		if len(d) < 3 || len(d) > 15 {
			return "", false
		}
		if e, ok := international(phoneplan.Load(), d); ok {
			return e, true
		}
		return parseE164("+"+string(d), "")
	case region != "":
		if len(d) < 2 {
			return "", false
		}
		if e, ok := national(phoneplan.Load(), d, region); ok {
			return e, true
		}
		return parseE164(string(d), region)
	}
	return "", false // a national number: no country to read it in
}

// maxPhoneDigits bounds the digits E164In reads: 00 and the 15 of E.164,
// with room to spare; more cannot be a number.
const maxPhoneDigits = 24

// phoneDigits appends the digits of v to dst and tells whether v began
// with +; ok is false when v holds anything but digits, a leading + and
// the separators people write (space - . ( ) /), or too many digits.
func phoneDigits(v string, dst []byte) (d []byte, plus, ok bool) {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= '0' && c <= '9':
			if len(dst) == cap(dst) {
				return nil, false, false
			}
			dst = append(dst, c)
		case c == '+' && i == 0:
			plus = true
		case c == ' ' || c == '-' || c == '.' || c == '(' || c == ')' || c == '/':
		default:
			return nil, false, false
		}
	}
	return dst, plus, true
}

// parseE164 is the library's reading of digits (region "" when they
// start with +): the general path, and the reference of the fast one.
func parseE164(digits, region string) (string, bool) {
	num, err := phonenumbers.Parse(digits, region)
	if err != nil || !phonenumbers.IsValidNumber(num) {
		return "", false
	}
	return phonenumbers.Format(num, phonenumbers.E164), true
}

// international reads d (digits after + or 00) as country code and
// national significant number as written, when the number is valid as
// the library decides it (IsValidNumber of the region
// GetRegionCodeForNumber names) and the library would not read a
// national prefix in it; ok is false for the general path to decide.
func international(p *phoneplan.Plans, d []byte) (string, bool) {
	cc, nsn, ok := phoneplan.SplitCallingCode(d)
	if !ok {
		return "", false
	}
	regions := phonenumbers.GetRegionCodesForCountryCode(cc)
	if main := p.Region(regions[0]); main != nil && main.HasNationalPrefix(nsn) {
		return "", false
	}
	r := p.ForNumber(cc, nsn)
	if r == nil || r.CC != cc || !r.Valid(nsn) {
		return "", false
	}
	return "+" + string(d), true
}

// national reads d as a national number of region: its national
// significant number as written, or after the region's national prefix,
// when that number is valid; ok is false for the general path to decide
// (a region sharing its calling code, digits the library could read as
// an international prefix or the country code, a prefix that is not
// plain digits).
func national(p *phoneplan.Plans, d []byte, region string) (string, bool) {
	r := p.Region(region)
	if r == nil || r.Shared() || r.StartsInternational(d) {
		return "", false
	}
	nsn := d
	if r.HasNationalPrefix(d) {
		if r.PlainPrefix() == "" {
			return "", false
		}
		nsn = d[len(r.PlainPrefix()):]
	}
	if !r.Valid(nsn) {
		return "", false
	}
	return "+" + strconv.Itoa(r.CC) + string(nsn), true
}
