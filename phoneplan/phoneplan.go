// Package phoneplan decides what libphonenumber's IsValidNumber and
// GetRegionCodeForNumber decide, from the same metadata, with each
// region's patterns compiled once. The library builds every pattern's
// string again and looks it up in a locked map for each test (a dozen per
// number), which made checking numbers the largest part of a submission's
// and an import's work; sms reads receivers and contacts reads phone
// numbers through it, and their tests hold both paths to agree.
//
// Plans is an immutable table derived from the library's embedded
// metadata, like the GSM alphabet: Load returns the one of the process,
// and a region's patterns are compiled when a number first needs them.
package phoneplan

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/nyaruka/phonenumbers"
)

// NonGeoRegion is the region code of calling codes that belong to no
// country (international freephone, satellite services).
const NonGeoRegion = "001"

// Plans finds a region's compiled metadata as the library finds its
// metadata: by region code, or by calling code for the non-geographic
// entities.
type Plans struct {
	byRegion map[string]func() *Region
	nonGeo   map[int32]func() *Region
}

var plans = sync.OnceValue(newPlans)

// Load returns the process's plans. Without the library's metadata they
// are empty: every number is then left to the library's parser.
func Load() *Plans { return plans() }

func newPlans() *Plans {
	p := &Plans{byRegion: map[string]func() *Region{}, nonGeo: map[int32]func() *Region{}}
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		return p
	}
	for _, md := range coll.GetMetadata() {
		code := md.GetId()
		plan := sync.OnceValue(func() *Region { return newRegion(code, md) })
		if code == NonGeoRegion {
			p.nonGeo[md.GetCountryCode()] = plan
		} else {
			p.byRegion[code] = plan
		}
	}
	return p
}

// Region is one region's compiled metadata.
type Region struct {
	Code    string // ISO 3166-1 alpha-2, or NonGeoRegion
	CC      int    // its country calling code
	ccText  string
	leading *regexp.Regexp // its leading digits, anchored at the start; nil when it has none
	general desc
	// types are the number types that make a number valid: mobile
	// (unless its pattern is the fixed line's), fixed line, then the rest
	// of the library's list. The library tries them in another order to
	// name the type; validity is that any takes the number, and trying the
	// common types first tests fewer patterns.
	types []desc
	// nationalPrefix is the national prefix for parsing, anchored at the
	// start (nil: none); plainPrefix is it when it is plain digits with
	// no transform rule.
	nationalPrefix *regexp.Regexp
	plainPrefix    string
	idd            *regexp.Regexp // the international prefix, anchored; nil: none
}

// desc is one number type's description.
type desc struct {
	lengths []int32 // the possible lengths; none: any
	pattern *regexp.Regexp
}

func newDesc(d *phonenumbers.PhoneNumberDesc) desc {
	return desc{lengths: d.PossibleLength, pattern: regexp.MustCompile("^(?:" + d.GetNationalNumberPattern() + ")$")}
}

// matches is the library's isNumberMatchingDesc.
func (d desc) matches(nsn []byte) bool {
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

func newRegion(code string, md *phonenumbers.PhoneMetadata) *Region {
	r := &Region{Code: code, CC: int(md.GetCountryCode()), ccText: strconv.Itoa(int(md.GetCountryCode())),
		general: newDesc(md.GetGeneralDesc()), leading: anchored(md.GetLeadingDigits()),
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
			r.types = append(r.types, newDesc(d))
		}
	}
	return r
}

// Valid is the library's getNumberTypeHelper(nsn) != UNKNOWN: whether
// the national significant number nsn is a number of the region.
func (r *Region) Valid(nsn []byte) bool {
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

// HasNationalPrefix says whether d starts with what the library reads as
// the region's national prefix.
func (r *Region) HasNationalPrefix(d []byte) bool {
	if r.plainPrefix != "" {
		return bytes.HasPrefix(d, []byte(r.plainPrefix))
	}
	return r.nationalPrefix != nil && r.nationalPrefix.Match(d)
}

// PlainPrefix is the region's national prefix when it is plain digits
// with no transform rule ("" otherwise): the only prefix a reader may
// drop without the library's parser.
func (r *Region) PlainPrefix() string { return r.plainPrefix }

// StartsInternational says whether d starts with the region's
// international (IDD) prefix or its own calling code, which the library
// may read as an international number.
func (r *Region) StartsInternational(d []byte) bool {
	return r.idd != nil && r.idd.Match(d) || bytes.HasPrefix(d, []byte(r.ccText))
}

// Region is the plan of a region code, nil when unknown.
func (p *Plans) Region(code string) *Region {
	if plan := p.byRegion[code]; plan != nil {
		return plan()
	}
	return nil
}

// ForNumber is the library's GetRegionCodeForNumber: the region of the
// number with calling code cc and national significant number nsn — the
// only region of cc, or the first whose leading digits, or else whose
// patterns, take nsn; the non-geographic entity of cc; nil for none.
func (p *Plans) ForNumber(cc int, nsn []byte) *Region {
	regions := phonenumbers.GetRegionCodesForCountryCode(cc)
	switch {
	case len(regions) == 0:
		return nil
	case regions[0] == NonGeoRegion:
		if plan := p.nonGeo[int32(cc)]; plan != nil {
			return plan()
		}
		return nil
	case len(regions) == 1:
		return p.Region(regions[0])
	}
	for _, code := range regions {
		r := p.Region(code)
		if r != nil && (r.leading != nil && r.leading.Match(nsn) || r.leading == nil && r.Valid(nsn)) {
			return r
		}
	}
	return nil
}

// Shared reports whether other regions share r's calling code.
func (r *Region) Shared() bool { return len(phonenumbers.GetRegionCodesForCountryCode(r.CC)) != 1 }

// SplitCallingCode reads digits as country calling code and national
// significant number, as written. Calling codes are a prefix code (ITU-T
// E.164), so the first 1 to 3 digits that name a region are the code;
// none starts with 0.
func SplitCallingCode(digits []byte) (cc int, nsn []byte, ok bool) {
	if len(digits) == 0 || digits[0] == '0' {
		return 0, nil, false
	}
	for n := 1; n <= 3 && n < len(digits); n++ {
		cc = cc*10 + int(digits[n-1]-'0')
		if len(phonenumbers.GetRegionCodesForCountryCode(cc)) > 0 {
			return cc, digits[n:], true
		}
	}
	return 0, nil, false
}
