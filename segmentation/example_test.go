package segmentation_test

import (
	"errors"
	"fmt"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
)

// person is a contact as some store holds it.
type person struct {
	name, mobile string
	birthday     msgkit.Date
}

func (p person) Text(f segmentation.Field) string {
	switch f {
	case segmentation.FirstName:
		return p.name
	case segmentation.Mobile:
		return p.mobile
	}
	return ""
}

func (p person) Date(f segmentation.Field) (msgkit.Date, bool) {
	return p.birthday, f == segmentation.Birthday && !p.birthday.IsZero()
}

func (p person) Membership(string) segmentation.Membership { return segmentation.NotMember }

// Contacts born in the next week, except those with a French number.
func Example() {
	q, err := segmentation.Parse([]byte(`{"segmentation":[
		{"rules":[{"field":"birthday","condition":"ann_in_days","value":"7"}]},
		{"operator":"AND NOT","rules":[{"field":"mobile","condition":"startswith","value":"0033"}]}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	today := msgkit.Date{Year: 2026, Month: 12, Day: 28}
	m := segmentation.Compile(q, today)
	for _, p := range []*person{
		{name: "Anna", mobile: "+4915112345678", birthday: msgkit.Date{Year: 1990, Month: 1, Day: 2}},
		{name: "Boris", mobile: "+33612345678", birthday: msgkit.Date{Year: 1985, Month: 12, Day: 31}},
		{name: "Clara", mobile: "+4915112345679", birthday: msgkit.Date{Year: 1985, Month: 3, Day: 1}},
	} {
		fmt.Println(p.name, m.Match(p))
	}

	_, err = segmentation.Parse([]byte(`{"segmentation":[{"rules":[{"field":"birthday","condition":"ann_in_days","value":"soon"}]}]}`))
	var e *msgkit.Error
	if errors.As(err, &e) {
		fmt.Println(e.Fields[0].Name)
	}
	// Output:
	// Anna true
	// Boris false
	// Clara false
	// segmentation[0].rules[0].value
}
