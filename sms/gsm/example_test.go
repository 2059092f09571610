package gsm_test

import (
	"fmt"
	"strings"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms/gsm"
)

func ExampleSplitText() {
	m, err := gsm.SplitText(strings.Repeat("a", 152)+"[bbbbbbbbbb", gsm.DCSAuto, 42)
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
		c, _ := gsm.CountText(text, gsm.DCSAuto)
		fmt.Printf("%v %d parts, %d units\n", c.DCS, c.Parts, c.Units)
	}
	_, err := gsm.CountText("hi 😀", gsm.DCSGSM)
	fmt.Println(msgkit.CodeOf(err), msgkit.MessageOf(err))
	// Output:
	// GSM 2 parts, 162 units
	// UCS 1 parts, 8 units
	// UCS 1 parts, 8 units
	// not_in_alphabet character '😀' (U+1F600) at byte 3 is not in the GSM 03.38 alphabet; use dcs UCS
}
