package sms

import (
	"slices"
	"strconv"
)

// DLRError is the errorCode of a delivery report (the interface's delivery error codes).
type DLRError int

// Category groups delivery report error codes as the interface does.
type Category uint8

// The categories of the interface's delivery error codes.
const (
	CategoryNone       Category = iota // 0: no error
	CategoryOther                      // 500: other error
	CategorySubscriber                 // unknown or illegal subscriber
	CategoryService                    // teleservice, barring, closed user group, facility
	CategoryHandset                    // the phone cannot take the message
	CategoryAbsent                     // the subscriber is not reachable
	CategoryNetwork                    // network faults
	CategoryPrepaid                    // prepaid credit
	CategoryPlatform                   // 989..999: decided by the platform or its supplier
)

var categoryNames = [...]string{"none", "other", "subscriber", "service", "handset", "absent", "network", "prepaid", "platform"}

// String names the category.
func (c Category) String() string {
	if int(c) < len(categoryNames) {
		return categoryNames[c]
	}
	return "Category(" + strconv.Itoa(int(c)) + ")"
}

// Delivery report error codes with a name of their own. The bulk SMS
// error code table lists the rest of its codes by group only.
const (
	DLRNoError             DLRError = 0
	DLRSubscriberUnknown   DLRError = 1
	DLRAbsentSubscriber    DLRError = 29
	DLRMemoryFull          DLRError = 22
	DLROtherError          DLRError = 500
	DLRSupplierRejected    DLRError = 989
	DLRHomeRegister        DLRError = 990
	DLRTextFilter          DLRError = 991
	DLRPortedUnsupported   DLRError = 992
	DLRBlacklistedSender   DLRError = 993
	DLRNoCredit            DLRError = 994
	DLRUndeliverable       DLRError = 995
	DLRValidityExpired     DLRError = 996
	DLRBlacklistedReceiver DLRError = 997
	DLRNoRoute             DLRError = 998
	DLRRepeatedSubmission  DLRError = 999
)

type dlrInfo struct {
	category  Category
	text      string
	temporary bool // a later attempt may succeed: the part is BUFFERED, not UNDELIVERED
}

// dlrTable holds every delivery error code of the interface. The texts of 80..90 follow the
// MAP absent-subscriber diagnostics (3GPP TS 29.002, offset 80), which the
// interface's grouping matches; where the interface names a group but not which
// code is which (61..75), the text names the group.
var dlrTable = map[DLRError]dlrInfo{
	0:   {CategoryNone, "no error", false},
	500: {CategoryOther, "other error", false},

	1: {CategorySubscriber, "subscriber unknown", false},
	9: {CategorySubscriber, "illegal subscriber", false},

	11: {CategoryService, "teleservice not provisioned", false},
	13: {CategoryService, "call barred", false},
	15: {CategoryService, "closed user group reject", false},
	21: {CategoryService, "facility not supported", false},

	19: {CategoryHandset, "no SMS support in handset", false},
	20: {CategoryHandset, "handset error", true},
	22: {CategoryHandset, "handset memory full", true},
	30: {CategoryHandset, "handset busy for MT SMS", true},

	29: {CategoryAbsent, "absent subscriber", true},
	81: {CategoryAbsent, "absent subscriber: IMSI detached", true},
	82: {CategoryAbsent, "absent subscriber: roaming restricted", true},
	83: {CategoryAbsent, "absent subscriber: deregistered in the home register (GSM)", true},
	84: {CategoryAbsent, "absent subscriber: purged (GSM)", true},
	86: {CategoryAbsent, "absent subscriber: GPRS detached", true},
	87: {CategoryAbsent, "absent subscriber: deregistered in the home register (GPRS)", true},
	88: {CategoryAbsent, "absent subscriber: purged (GPRS)", true},

	36: {CategoryNetwork, "network protocol failure", true},
	44: {CategoryNetwork, "illegal equipment", false},
	60: {CategoryNetwork, "paging without response", true},
	61: {CategoryNetwork, "network failure (congestion, timeout, TCP error or GPRS suspended)", true},
	63: {CategoryNetwork, "network failure (congestion, timeout, TCP error or GPRS suspended)", true},
	64: {CategoryNetwork, "network failure (congestion, timeout, TCP error or GPRS suspended)", true},
	70: {CategoryNetwork, "network failure (congestion, timeout, TCP error or GPRS suspended)", true},
	72: {CategoryNetwork, "network failure (congestion, timeout, TCP error or GPRS suspended)", true},
	75: {CategoryNetwork, "network failure (congestion, timeout, TCP error or GPRS suspended)", true},
	80: {CategoryNetwork, "paging without response via MSC", true},
	85: {CategoryNetwork, "paging without response via SGSN", true},
	89: {CategoryNetwork, "unidentified subscriber via MSC", true},
	90: {CategoryNetwork, "unidentified subscriber via SGSN", true},

	112: {CategoryPrepaid, "originator out of credit", false},
	113: {CategoryPrepaid, "destination out of credit", true},
	114: {CategoryPrepaid, "prepaid system error", true},

	989: {CategoryPlatform, "supplier rejected the SMS", false},
	990: {CategoryPlatform, "home register failure", true},
	991: {CategoryPlatform, "rejected by text filter", false},
	992: {CategoryPlatform, "ported numbers unsupported at the destination", false},
	993: {CategoryPlatform, "blacklisted sender", false},
	994: {CategoryPlatform, "no credit", false},
	995: {CategoryPlatform, "undeliverable", false},
	996: {CategoryPlatform, "validity expired", false},
	997: {CategoryPlatform, "blacklisted receiver", false},
	998: {CategoryPlatform, "no route", false},
	999: {CategoryPlatform, "repeated submission (possible loop)", false},
}

// Known reports whether the interface lists the code.
func (c DLRError) Known() bool {
	_, ok := dlrTable[c]
	return ok
}

// Category is the code's group; unknown codes are CategoryOther, as 500 is.
func (c DLRError) Category() Category {
	if i, ok := dlrTable[c]; ok {
		return i.category
	}
	return CategoryOther
}

// Text is the errorMessage a report carries, "" for 0 (no error), since a
// report has errorMessage only when there is one.
func (c DLRError) Text() string {
	if c == DLRNoError {
		return ""
	}
	if i, ok := dlrTable[c]; ok {
		return i.text
	}
	return "other error"
}

// Temporary reports whether a later attempt may succeed: such failures leave
// the part BUFFERED until its validity expires, the others are final.
func (c DLRError) Temporary() bool { return dlrTable[c].temporary }

// DLRErrors lists every delivery error code in ascending order.
func DLRErrors() []DLRError {
	out := make([]DLRError, 0, len(dlrTable))
	for c := range dlrTable {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}
