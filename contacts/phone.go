package contacts

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/nyaruka/phonenumbers"
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
		if e, ok := phonePlan().international(d); ok {
			return e, true
		}
		return parseE164("+"+string(d), "")
	case region != "":
		if len(d) < 2 {
			return "", false
		}
		if e, ok := phonePlan().national(d, region); ok {
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

// phonePlan is the compiled metadata, built on first use. It is derived
// from the library's embedded tables, which never change, so it is an
// immutable table like the GSM alphabet, not state: each region's
// patterns are compiled when a number first needs them.
var phonePlan = sync.OnceValue(newPhonePlans)

// phonePlans finds a region's compiled metadata as the library finds its
// metadata: by region code, or by calling code for the non-geographic
// entities ("001").
type phonePlans struct {
	byRegion map[string]func() *regionPlan
	nonGeo   map[int32]func() *regionPlan
}

// nonGeoRegion is the region code of calling codes that belong to no
// country (international freephone, satellite services).
const nonGeoRegion = "001"

func newPhonePlans() *phonePlans {
	p := &phonePlans{byRegion: map[string]func() *regionPlan{}, nonGeo: map[int32]func() *regionPlan{}}
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		return p // no plans: every number takes the general path, which reports it
	}
	for _, md := range coll.GetMetadata() {
		plan := sync.OnceValue(func() *regionPlan { return newRegionPlan(md) })
		if md.GetId() == nonGeoRegion {
			p.nonGeo[md.GetCountryCode()] = plan
		} else {
			p.byRegion[md.GetId()] = plan
		}
	}
	return p
}

// regionPlan is one region's compiled metadata.
type regionPlan struct {
	cc      int
	ccText  string
	leading *regexp.Regexp // its leading digits, anchored at the start; nil when it has none
	general descPlan
	// types are the number types that make a number valid: mobile
	// (unless its pattern is the fixed line's), fixed line, then the rest
	// of the library's list. The library tries them in another order to
	// name the type; validity is that any takes the number, and trying the
	// common types first tests fewer patterns.
	types []descPlan
	// nationalPrefix is the national prefix for parsing, anchored at the
	// start (nil: none); plainPrefix is it when it is plain digits with
	// no transform rule, the only prefix the fast path removes.
	nationalPrefix *regexp.Regexp
	plainPrefix    string
	idd            *regexp.Regexp // the international prefix, anchored; nil: none
}

// descPlan is one number type's description.
type descPlan struct {
	lengths []int32 // the possible lengths; none: any
	pattern *regexp.Regexp
}

func newDescPlan(d *phonenumbers.PhoneNumberDesc) descPlan {
	return descPlan{lengths: d.PossibleLength, pattern: regexp.MustCompile("^(?:" + d.GetNationalNumberPattern() + ")$")}
}

// matches is the library's isNumberMatchingDesc.
func (d descPlan) matches(nsn []byte) bool {
	if len(d.lengths) > 0 && !slices.Contains(d.lengths, int32(len(nsn))) {
		return false
	}
	return d.pattern.Match(nsn)
}

// anchored compiles pattern to match at the start, or is nil for "".
func anchored(pattern string) *regexp.Regexp {
	if pattern == "" {
		return nil
	}
	return regexp.MustCompile("^(?:" + pattern + ")")
}

func newRegionPlan(md *phonenumbers.PhoneMetadata) *regionPlan {
	r := &regionPlan{cc: int(md.GetCountryCode()), ccText: strconv.Itoa(int(md.GetCountryCode())),
		general: newDescPlan(md.GetGeneralDesc()), leading: anchored(md.GetLeadingDigits()),
		nationalPrefix: anchored(md.GetNationalPrefixForParsing()), idd: anchored(md.GetInternationalPrefix())}
	if p := md.GetNationalPrefixForParsing(); p != "" && md.GetNationalPrefixTransformRule() == "" && strings.Trim(p, "0123456789") == "" {
		r.plainPrefix = p
	}
	var descs []*phonenumbers.PhoneNumberDesc
	if !md.GetSameMobileAndFixedLinePattern() {
		descs = append(descs, md.GetMobile())
	}
	descs = append(descs, md.GetFixedLine(), md.GetPremiumRate(), md.GetTollFree(), md.GetSharedCost(), md.GetVoip(),
		md.GetPersonalNumber(), md.GetPager(), md.GetUan(), md.GetVoicemail())
	for _, d := range descs {
		if d != nil {
			r.types = append(r.types, newDescPlan(d))
		}
	}
	return r
}

// valid is the library's getNumberTypeHelper(nsn) != UNKNOWN.
func (r *regionPlan) valid(nsn []byte) bool {
	if !r.general.matches(nsn) {
		return false
	}
	for _, d := range r.types {
		if d.matches(nsn) {
			return true
		}
	}
	return false
}

// hasNationalPrefix says whether d starts with what the library reads
// as the region's national prefix.
func (r *regionPlan) hasNationalPrefix(d []byte) bool {
	if r.plainPrefix != "" {
		return bytes.HasPrefix(d, []byte(r.plainPrefix))
	}
	return r.nationalPrefix != nil && r.nationalPrefix.Match(d)
}

// region is the plan of a region code, nil when unknown.
func (p *phonePlans) region(code string) *regionPlan {
	if plan := p.byRegion[code]; plan != nil {
		return plan()
	}
	return nil
}

// international reads d (digits after + or 00) as country code and
// national significant number as written, when the number is valid as
// the library decides it (IsValidNumber of the region
// GetRegionCodeForNumber names) and the library would not read a
// national prefix in it; ok is false for the general path to decide.
func (p *phonePlans) international(d []byte) (string, bool) {
	cc, nsn, ok := splitCallingCode(d)
	if !ok {
		return "", false
	}
	regions := phonenumbers.GetRegionCodesForCountryCode(cc)
	if main := p.region(regions[0]); main != nil && main.hasNationalPrefix(nsn) {
		return "", false
	}
	var plan *regionPlan
	if regions[0] == nonGeoRegion {
		if f := p.nonGeo[int32(cc)]; f != nil {
			plan = f()
		}
	} else {
		plan = p.numberRegion(regions, nsn)
	}
	if plan == nil || plan.cc != cc || !plan.valid(nsn) {
		return "", false
	}
	return "+" + string(d), true
}

// numberRegion is the library's GetRegionCodeForNumber among the regions
// of a calling code: the only one, or the first whose leading digits, or
// else whose patterns, take nsn; nil for none.
func (p *phonePlans) numberRegion(regions []string, nsn []byte) *regionPlan {
	if len(regions) == 1 {
		return p.region(regions[0])
	}
	for _, code := range regions {
		r := p.region(code)
		if r != nil && (r.leading != nil && r.leading.Match(nsn) || r.leading == nil && r.valid(nsn)) {
			return r
		}
	}
	return nil
}

// national reads d as a national number of region: its national
// significant number as written, or after the region's national prefix,
// when that number is valid; ok is false for the general path to decide
// (a region sharing its calling code, digits the library could read as
// an international prefix or the country code, a prefix that is not
// plain digits).
func (p *phonePlans) national(d []byte, region string) (string, bool) {
	r := p.region(region)
	if r == nil || len(phonenumbers.GetRegionCodesForCountryCode(r.cc)) != 1 ||
		r.idd != nil && r.idd.Match(d) || bytes.HasPrefix(d, []byte(r.ccText)) {
		return "", false
	}
	nsn := d
	if r.hasNationalPrefix(d) {
		if r.plainPrefix == "" {
			return "", false
		}
		nsn = d[len(r.plainPrefix):]
	}
	if !r.valid(nsn) {
		return "", false
	}
	return "+" + r.ccText + string(nsn), true
}

// splitCallingCode reads digits as country calling code and national
// significant number, as written. Calling codes are a prefix code (ITU-T
// E.164), so the first 1 to 3 digits that name a region are the code; none
// starts with 0.
func splitCallingCode(digits []byte) (cc int, nsn []byte, ok bool) {
	if len(digits) == 0 || digits[0] == '0' {
		return 0, nil, false
	}
	cc = 0
	for n := 1; n <= 3 && n < len(digits); n++ {
		cc = cc*10 + int(digits[n-1]-'0')
		if len(phonenumbers.GetRegionCodesForCountryCode(cc)) > 0 {
			return cc, digits[n:], true
		}
	}
	return 0, nil, false
}
