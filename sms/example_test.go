package sms_test

import (
	"fmt"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
)

func ExampleCodeOf() {
	// The errors of sms/gsm answer with the interface's submission codes.
	_, err := gsm.CountText("hi 😀", gsm.DCSGSM)
	fmt.Println(sms.CodeOf(err), sms.CodeOf(err).Name(), msgkit.MessageOf(err))
	// Output:
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
