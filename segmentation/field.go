package segmentation

import (
	"strconv"
	"strings"
)

// Field is a contact attribute or membership a rule tests. Standard fields
// are the constants below; custom field values are ColumnField(n) for
// column_n.
type Field uint16

// The standard fields, in the order of their names.
const (
	Address Field = iota + 1
	BAddress
	BCity
	BCompany
	BCountry
	BDepartment
	BEmail
	BJobTitle
	BMobile
	BPhone
	BReceptionCode
	BRegion
	BZip
	Birthday
	City
	Country
	Email
	FirstName
	Gender
	Language
	LastName
	Mobile
	Nationality
	NickName
	Phone
	Region
	Salutation
	SecondName
	Title
	Zip
	SubscriptionOptionsIn
	SubscriptionOptionsOut
	numStandard
)

// MaxColumn is the highest custom field column a query may name
// (column_1 .. column_100).
const MaxColumn = 100

// firstColumn is the Field of column_1.
const firstColumn Field = 256

// ColumnField is the Field of the custom field column_n, 1 <= n <= MaxColumn.
func ColumnField(n int) Field { return firstColumn + Field(n-1) }

// Column is n for the custom field column_n, and 0 for a standard field.
func (f Field) Column() int {
	if f >= firstColumn && f < firstColumn+MaxColumn {
		return int(f-firstColumn) + 1
	}
	return 0
}

var fieldNames = [numStandard]string{
	Address: "address", BAddress: "b_address", BCity: "b_city", BCompany: "b_company",
	BCountry: "b_country", BDepartment: "b_department", BEmail: "b_email", BJobTitle: "b_job_title",
	BMobile: "b_mobile", BPhone: "b_phone", BReceptionCode: "b_reception_code", BRegion: "b_region",
	BZip: "b_zip", Birthday: "birthday", City: "city", Country: "country", Email: "email",
	FirstName: "first_name", Gender: "gender", Language: "language", LastName: "last_name",
	Mobile: "mobile", Nationality: "nationality", NickName: "nick_name", Phone: "phone",
	Region: "region", Salutation: "salutation", SecondName: "second_name", Title: "title", Zip: "zip",
	SubscriptionOptionsIn: "subscription_options_in", SubscriptionOptionsOut: "subscription_options_out",
}

// String is the field's name in a query.
func (f Field) String() string {
	if n := f.Column(); n > 0 {
		return "column_" + strconv.Itoa(n)
	}
	if f > 0 && f < numStandard {
		return fieldNames[f]
	}
	return "field(" + strconv.Itoa(int(f)) + ")"
}

// Valid reports whether f is a standard field or a custom column.
func (f Field) Valid() bool { return (f > 0 && f < numStandard) || f.Column() > 0 }

// ParseField reads a field name; ok is false for a name no query may use.
func ParseField(name string) (f Field, ok bool) {
	if rest, found := strings.CutPrefix(name, "column_"); found {
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 || n > MaxColumn || strconv.Itoa(n) != rest {
			return 0, false
		}
		return ColumnField(n), true
	}
	for f := Field(1); f < numStandard; f++ {
		if fieldNames[f] == name {
			return f, true
		}
	}
	return 0, false
}

// Fields are the standard fields, then column_1 .. column_MaxColumn.
func Fields() []Field {
	fs := make([]Field, 0, int(numStandard)-1+MaxColumn)
	for f := Field(1); f < numStandard; f++ {
		fs = append(fs, f)
	}
	for n := 1; n <= MaxColumn; n++ {
		fs = append(fs, ColumnField(n))
	}
	return fs
}

// Kind is how a field's values compare.
type Kind uint8

const (
	KindText       Kind = iota + 1 // case-insensitive text
	KindMobile                     // a phone number in E.164
	KindGender                     // male or female, case-insensitive
	KindDate                       // a civil date
	KindMembership                 // membership of subscription options
)

// Kind tells how f's values compare.
func (f Field) Kind() Kind {
	switch f {
	case Mobile, BMobile:
		return KindMobile
	case Gender:
		return KindGender
	case Birthday:
		return KindDate
	case SubscriptionOptionsIn, SubscriptionOptionsOut:
		return KindMembership
	}
	return KindText
}

// Condition is what a rule asks of its field.
type Condition string

// The conditions of a rule.
const (
	AnnInDays  Condition = "ann_in_days"
	Contains   Condition = "contains"
	EndsWith   Condition = "endswith"
	Eq         Condition = "eq"
	Gt         Condition = "gt"
	Gte        Condition = "gte"
	In         Condition = "in"
	IsNotNull  Condition = "isnotnull"
	IsNull     Condition = "isnull"
	Lt         Condition = "lt"
	Lte        Condition = "lte"
	Neq        Condition = "neq"
	NotIn      Condition = "notin"
	StartsWith Condition = "startswith"
)

// Conditions are every condition, in alphabetical order.
func Conditions() []Condition {
	return []Condition{AnnInDays, Contains, EndsWith, Eq, Gt, Gte, In, IsNotNull, IsNull, Lt, Lte, Neq, NotIn, StartsWith}
}

// conditionsOf are the conditions each kind of field takes.
var conditionsOf = map[Kind][]Condition{
	KindText:       {Contains, EndsWith, Eq, Gt, Gte, In, IsNotNull, IsNull, Lt, Lte, Neq, NotIn, StartsWith},
	KindMobile:     {Contains, EndsWith, Eq, Gt, Gte, In, IsNotNull, IsNull, Lt, Lte, Neq, NotIn, StartsWith},
	KindGender:     {Eq, In, IsNotNull, IsNull, Neq, NotIn},
	KindDate:       {AnnInDays, Eq, Gt, Gte, In, IsNotNull, IsNull, Lt, Lte, Neq, NotIn},
	KindMembership: {Eq, In, Neq, NotIn},
}

// Takes reports whether a field of kind k may be tested with c.
func (k Kind) Takes(c Condition) bool {
	for _, x := range conditionsOf[k] {
		if x == c {
			return true
		}
	}
	return false
}

// known reports whether c is a condition of the query language.
func (c Condition) known() bool {
	for _, x := range Conditions() {
		if x == c {
			return true
		}
	}
	return false
}

// arity is how many values c takes: 0 (none), 1 (one) or -1 (a list).
func (c Condition) arity() int {
	switch c {
	case IsNull, IsNotNull:
		return 0
	case In, NotIn:
		return -1
	}
	return 1
}

// negative reports whether c holds for an absent value: the negative
// conditions are the complements of their positive twins.
func (c Condition) negative() bool { return c == Neq || c == NotIn || c == IsNull }
