package contacts_test

import (
	"fmt"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
)

// A create body of a subscription option is checked all at once: every
// problem names its field.
func ExampleFillRecord() {
	name, status, order := "Weekly digest", "paused", "-1"
	r := contacts.Record{Kind: contacts.KindOption, UUID: "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"}
	err := contacts.FillRecord(&r, contacts.RecordInput{Name: &name, Status: &status, OrderNum: &order})
	fmt.Println(msgkit.CodeOf(err))
	for _, f := range err.(*msgkit.Error).Fields {
		fmt.Printf("%s: %s\n", f.Name, f.Message)
	}
	// Output:
	// invalid_subscription_option
	// subscription_uuid: subscription_uuid is required
	// order_num: order_num is an integer from 0 to 1000000000
	// status: status is active or inactive
}

// The first standard field definitions, as GET /cds/fields lists them.
func ExampleStandardFields() {
	for _, d := range contacts.StandardFields()[5:9] {
		fmt.Println(d.OrderNum, d.FieldName, d.DisplayName, d.FieldType, contacts.YesNo(d.Identifier))
	}
	// Output:
	// 6 nick_name Nickname text no
	// 7 mobile Mobile phone yes
	// 8 email E-mail email yes
	// 9 phone Phone phone no
}
