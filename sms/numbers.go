package sms

import (
	"regexp"
	"slices"
	"sync"

	"github.com/nyaruka/phonenumbers"
)

// numberPlan decides what libphonenumber's IsValidNumber and
// GetRegionCodeForNumber decide, from the same metadata, with each
// region's patterns compiled once. The library builds every pattern's
// string again and looks it up in a locked map for each test (a dozen per
// number), which made checking the receiver the largest part of a
// submission's work. A test checks that both agree.
//
// There is one per process, as there is one metadata: it only caches what
// it derives from the library's embedded tables, which never change.
type numberPlan struct {
	load func() (metadataIndex, error)

	mu      sync.RWMutex
	regions map[*phonenumbers.PhoneMetadata]*regionPlan
}

var numbers = &numberPlan{
	load:    sync.OnceValues(loadMetadataIndex),
	regions: map[*phonenumbers.PhoneMetadata]*regionPlan{},
}

// metadataIndex finds a region's metadata as the library does: by region
// code, or by calling code for the non-geographic entities ("001").
type metadataIndex struct {
	byRegion map[string]*phonenumbers.PhoneMetadata
	nonGeo   map[int32]*phonenumbers.PhoneMetadata
}

// nonGeoRegion is the region code of calling codes that belong to no
// country (international freephone, satellite services).
const nonGeoRegion = "001"

func loadMetadataIndex() (metadataIndex, error) {
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		return metadataIndex{}, err
	}
	idx := metadataIndex{byRegion: map[string]*phonenumbers.PhoneMetadata{}, nonGeo: map[int32]*phonenumbers.PhoneMetadata{}}
	for _, md := range coll.GetMetadata() {
		if md.GetId() == nonGeoRegion {
			idx.nonGeo[md.GetCountryCode()] = md
		} else {
			idx.byRegion[md.GetId()] = md
		}
	}
	return idx, nil
}

// regionPlan is one region's compiled metadata.
type regionPlan struct {
	leading *regexp.Regexp // its leading digits, anchored at the start; nil when it has none
	general descPlan
	// types are the number types that make a number valid, in the
	// library's order: premium rate, toll free, shared cost, VoIP,
	// personal, pager, UAN, voicemail, fixed line, and mobile unless its
	// pattern is the fixed line's.
	types []descPlan
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
func (d descPlan) matches(nsn string) bool {
	if len(d.lengths) > 0 && !slices.Contains(d.lengths, int32(len(nsn))) {
		return false
	}
	return d.pattern.MatchString(nsn)
}

func newRegionPlan(md *phonenumbers.PhoneMetadata) *regionPlan {
	r := &regionPlan{general: newDescPlan(md.GetGeneralDesc())}
	if ld := md.GetLeadingDigits(); ld != "" {
		r.leading = regexp.MustCompile("^(?:" + ld + ")")
	}
	descs := []*phonenumbers.PhoneNumberDesc{md.GetPremiumRate(), md.GetTollFree(), md.GetSharedCost(), md.GetVoip(),
		md.GetPersonalNumber(), md.GetPager(), md.GetUan(), md.GetVoicemail(), md.GetFixedLine()}
	if !md.GetSameMobileAndFixedLinePattern() {
		descs = append(descs, md.GetMobile())
	}
	for _, d := range descs {
		if d != nil {
			r.types = append(r.types, newDescPlan(d))
		}
	}
	return r
}

// valid is the library's getNumberTypeHelper(nsn) != UNKNOWN.
func (r *regionPlan) valid(nsn string) bool {
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

// plan returns md's compiled plan, compiling it on first use.
func (p *numberPlan) plan(md *phonenumbers.PhoneMetadata) *regionPlan {
	p.mu.RLock()
	r, ok := p.regions[md]
	p.mu.RUnlock()
	if ok {
		return r
	}
	r = newRegionPlan(md)
	p.mu.Lock()
	defer p.mu.Unlock()
	if known, ok := p.regions[md]; ok {
		return known
	}
	p.regions[md] = r
	return r
}

// validRegion tells the region of the number with calling code cc and
// national significant number nsn, as GetRegionCodeForNumber does, and
// whether the number is valid there, as IsValidNumber does.
func (p *numberPlan) validRegion(cc int, nsn string) (string, bool) {
	idx, err := p.load()
	if err != nil {
		return "", false
	}
	var region string
	switch regions := phonenumbers.GetRegionCodesForCountryCode(cc); len(regions) {
	case 0:
		return "", false
	case 1:
		region = regions[0]
	default: // the first region whose leading digits, or else whose patterns, take the number
		for _, rc := range regions {
			md := idx.byRegion[rc]
			if md == nil {
				continue
			}
			r := p.plan(md)
			if r.leading != nil && r.leading.MatchString(nsn) || r.leading == nil && r.valid(nsn) {
				region = rc
				break
			}
		}
	}
	md := idx.byRegion[region]
	if region == nonGeoRegion {
		md = idx.nonGeo[int32(cc)]
	}
	if md == nil || region != nonGeoRegion && int(md.GetCountryCode()) != cc {
		return region, false
	}
	return region, p.plan(md).valid(nsn)
}
