package sms_test

import (
	"fmt"
	"strings"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

func ExampleSplitText() {
	m, err := sms.SplitText(strings.Repeat("a", 152)+"[bbbbbbbbbb", sms.DCSAuto, 42)
	if err != nil {
		panic(err)
	}
	for _, p := range m.Parts {
		fmt.Printf("%v part %d/%d ref %d: %d septets, UDH % x\n", m.DCS, p.UDH.Seq, p.UDH.Total, p.UDH.Ref, p.Units, p.UDH.Bytes())
	}
	// Output:
	// GSM part 1/2 ref 42: 152 septets, UDH 05 00 03 2a 02 01
	// GSM part 2/2 ref 42: 12 septets, UDH 05 00 03 2a 02 02
}

func ExampleCountText() {
	for _, text := range []string{strings.Repeat("€", 81), "Grüße 😀", "français"} {
		c, _ := sms.CountText(text, sms.DCSAuto)
		fmt.Printf("%v %d parts, %d units\n", c.DCS, c.Parts, c.Units)
	}
	_, err := sms.CountText("hi 😀", sms.DCSGSM)
	fmt.Println(sms.CodeOf(err), sms.CodeOf(err).Name(), msgkit.MessageOf(err))
	// Output:
	// GSM 2 parts, 162 units
	// UCS 1 parts, 8 units
	// UCS 1 parts, 8 units
	// 102 RC_ENCODING_ERROR character '😀' (U+1F600) at byte 3 is not in the GSM 03.38 alphabet; use dcs UCS
}

func ExampleParseSender() {
	for _, s := range []string{"MyShop", "+38640123456", "My_Shop", "VeryLongShopName"} {
		sender, err := sms.ParseSender(s)
		if err != nil {
			fmt.Printf("%s: %s\n", sms.CodeOf(err).Name(), msgkit.MessageOf(err))
			continue
		}
		fmt.Printf("%q numeric=%v\n", sender.Value, sender.Numeric)
	}
	// Output:
	// "MyShop" numeric=false
	// "38640123456" numeric=true
	// RC_INVALID_SENDER: sender must not contain '_'
	// RC_INVALID_SENDER: an alphanumeric sender has at most 11 characters
}

func ExampleDLRMask_Allows() {
	for _, e := range sms.Events() {
		fmt.Println(e, sms.RecommendedDLRMask.Allows(e), e.Final())
	}
	// Output:
	// DELIVERED true true
	// UNDELIVERED true true
	// BUFFERED false false
	// SENT_TO_SMSC false false
	// REJECTED true true
}
