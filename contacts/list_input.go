package contacts

import (
	"strings"

	"github.com/msgkit/msgkit"
)

// CodeInvalidList is the code of a list body that breaks a rule.
const CodeInvalidList = "invalid_list"

// The list statuses. The interface names no values; a list is active
// (campaigns may send to it) or inactive (kept, not sent to).
const (
	ListActive   = "active"
	ListInactive = "inactive"
)

// ListInput is the body of a list's create or update: name and
// list_status, nil when not given.
type ListInput struct {
	Name   *string
	Status *string
}

// FillList sets l's name and status from in and names every problem at
// once (code invalid_list): name is required, text of at most 255
// characters; list_status is active or inactive (any case), active when
// not given on create and kept on update. l is changed only when there is
// no problem.
func FillList(l *List, in ListInput) error {
	var p problems
	next := *l
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
		p.add("name", "name is required")
	} else {
		next.Name = text(*in.Name, "name", &p)
	}
	if in.Status != nil {
		switch s := strings.ToLower(strings.TrimSpace(*in.Status)); s {
		case ListActive, ListInactive:
			next.Status = s
		default:
			p.add("list_status", "list_status is active or inactive")
		}
	}
	if next.Status == "" {
		next.Status = ListActive
	}
	if len(p.list) > 0 {
		e := msgkit.New(msgkit.Invalid, CodeInvalidList, "the list is invalid")
		e.Fields = p.list
		return e
	}
	*l = next
	return nil
}
