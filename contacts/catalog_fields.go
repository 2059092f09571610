package contacts

import (
	"encoding/json"
	"strings"
)

// FieldDefinition is a contact field as GET /cds/fields describes it:
// display_name, field_type, field_name, mandatory and identifier ("yes"
// or "no" on the wire), order_num and config.
type FieldDefinition struct {
	DisplayName string
	FieldType   string
	FieldName   string
	Mandatory   bool
	Identifier  bool
	OrderNum    int
	Config      json.RawMessage // a JSON object; nil: {}
}

// standardDisplay are the English display names of the standard fields
// whose name does not read as one once its underscores are spaces.
var standardDisplay = map[string]string{
	"b_address": "Business address", "b_city": "Business city", "b_company": "Company", "b_country": "Business country",
	"b_department": "Department", "b_email": "Business e-mail", "b_job_title": "Job title", "b_mobile": "Business mobile",
	"b_phone": "Business phone", "b_reception_code": "Reception code", "b_region": "Business region", "b_zip": "Business ZIP code",
	"email": "E-mail", "zip": "ZIP code", "nick_name": "Nickname",
}

// standardOrder is the order of the standard fields in a form: names,
// the contact channels, profile, address, business.
var standardOrder = []string{
	"salutation", "title", "first_name", "second_name", "last_name", "nick_name",
	"mobile", "email", "phone",
	"gender", "birthday", "language", "nationality",
	"address", "zip", "city", "region", "country",
	"b_company", "b_job_title", "b_department", "b_reception_code", "b_mobile", "b_email", "b_phone",
	"b_address", "b_zip", "b_city", "b_region", "b_country",
}

// StandardFields are the definitions of the standard contact fields
// (FieldNames), in form order (order_num 1, 2, ...): display names in
// English; field_type email for email and b_email, phone for mobile,
// b_mobile, phone and b_phone, date for birthday, select for gender
// (config {"options":["male","female"]}), text for the others; none
// mandatory (a contact may be known by any one of its fields); mobile
// and email are identifiers (an import finds duplicates by them).
func StandardFields() []FieldDefinition {
	defs := make([]FieldDefinition, 0, len(standardOrder))
	for i, name := range standardOrder {
		d := FieldDefinition{FieldName: name, FieldType: FieldText, OrderNum: i + 1, DisplayName: standardDisplay[name]}
		if d.DisplayName == "" {
			s := strings.ReplaceAll(name, "_", " ")
			d.DisplayName = strings.ToUpper(s[:1]) + s[1:]
		}
		switch name {
		case "email", "b_email":
			d.FieldType = FieldEmail
		case "mobile", "b_mobile", "phone", "b_phone":
			d.FieldType = FieldPhone
		case "birthday":
			d.FieldType = FieldDate
		case "gender":
			d.FieldType = FieldSelect
			d.Config = json.RawMessage(`{"options":["male","female"]}`)
		}
		d.Identifier = name == "mobile" || name == "email"
		defs = append(defs, d)
	}
	return defs
}

// Definition is a custom field's definition.
func (r Record) Definition() FieldDefinition {
	return FieldDefinition{DisplayName: r.Name, FieldType: r.FieldType, FieldName: r.FieldName(), Mandatory: r.Mandatory,
		Identifier: r.Identifier, OrderNum: r.OrderNum, Config: r.Config}
}

// YesNo is how the interface writes mandatory and identifier: "yes" or
// "no".
func YesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
