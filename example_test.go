package msgkit_test

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/msgkit/msgkit"
)

func ExampleParseListQuery() {
	spec := msgkit.ListSpec{
		Filter:      map[string]msgkit.AttrType{"name": msgkit.AttrString, "amount": msgkit.AttrNumber, "invDate": msgkit.AttrDate},
		Sort:        []string{"name", "invDate"},
		MaxPageSize: 50,
		Ignore:      []string{"q"},
	}
	v, _ := url.ParseQuery("paging=2,20&sort=-invDate,name&in(name)=Acme,Globex&gt(amount)=9.50&q=ignored")
	q, err := msgkit.ParseListQuery(v, spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("page", q.PageNumber, "size", q.PageSize, "offset", q.Offset())
	for _, k := range q.Sort {
		fmt.Println("sort", k.Attr, "desc", k.Desc)
	}
	for _, f := range q.Filters {
		fmt.Println("filter", f.Op, f.Attr, f.Values)
	}
	// Output:
	// page 2 size 20 offset 20
	// sort invDate desc true
	// sort name desc false
	// filter gt amount [9.5]
	// filter in name [Acme Globex]
}

func ExampleParseListQuery_errors() {
	spec := msgkit.ListSpec{
		Filter:      map[string]msgkit.AttrType{"amount": msgkit.AttrNumber},
		Sort:        []string{"amount"},
		MaxPageSize: 50,
	}
	v, _ := url.ParseQuery("page_size=500&gt(amount)=ten&colour=red&sort=-size")
	_, err := msgkit.ParseListQuery(v, spec)
	fmt.Println(msgkit.KindOf(err), msgkit.CodeOf(err))
	if e, ok := errors.AsType[*msgkit.Error](err); ok {
		for _, f := range e.Fields {
			fmt.Printf("%s: %s\n", f.Name, f.Message)
		}
	}
	// Output:
	// invalid invalid_query
	// colour: cannot filter by "colour"
	// gt(amount): "ten" is not a number: want digits with an optional leading - and . fraction
	// page_size: page size must be an integer from 1 to 50, got "500"
	// sort: cannot sort by "size"
}

type invoice struct {
	Number string
	Amount string // an exact decimal, as decimal.Decimal.String() gives
	Due    msgkit.Date
	Paid   *time.Time
}

func invoiceAttr(inv invoice, attr string) (msgkit.Value, bool) {
	switch attr {
	case "number":
		return msgkit.StringValue(inv.Number), true
	case "amount":
		v, err := msgkit.NumberValue(inv.Amount)
		return v, err == nil
	case "due":
		return msgkit.DateValue(inv.Due), true
	case "paid":
		if inv.Paid == nil {
			return msgkit.Null(), true
		}
		return msgkit.TimeValue(*inv.Paid), true
	}
	return msgkit.Value{}, false
}

func ExampleApply() {
	paid := time.Date(2026, 2, 3, 10, 0, 0, 0, time.UTC)
	invoices := []invoice{
		{Number: "INV-1", Amount: "9.90", Due: msgkit.Date{Year: 2026, Month: time.February, Day: 1}, Paid: &paid},
		{Number: "INV-2", Amount: "10", Due: msgkit.Date{Year: 2026, Month: time.March, Day: 1}},
		{Number: "inv-3", Amount: "120.00", Due: msgkit.Date{Year: 2026, Month: time.January, Day: 15}},
		{Number: "INV-4", Amount: "9", Due: msgkit.Date{Year: 2026, Month: time.April, Day: 1}},
	}
	spec := msgkit.ListSpec{
		Filter: map[string]msgkit.AttrType{"number": msgkit.AttrString, "amount": msgkit.AttrNumber, "paid": msgkit.AttrDateTime},
		Sort:   []string{"amount", "due"},
	}
	v, _ := url.ParseQuery("startswith(number)=inv&gte(amount)=9.9&isnull(paid)&sort=-amount&page_size=1")
	q, err := msgkit.ParseListQuery(v, spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	page, err := msgkit.Apply(invoices, q, invoiceAttr)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("total", page.Total)
	for _, inv := range page.Items {
		fmt.Println(inv.Number, inv.Amount, inv.Due)
	}
	// Output:
	// total 2
	// inv-3 120.00 2026-01-15
}

func ExampleParseDate() {
	d, err := msgkit.ParseDate("2026-02-28")
	fmt.Println(d, err, d.AddDays(1))
	_, err = msgkit.ParseDate("2026-02-30")
	fmt.Println(err)
	// Output:
	// 2026-02-28 <nil> 2026-03-01
	// invalid [invalid_date]: invalid date "2026-02-30": want an existing date of the form YYYY-MM-DD
}
