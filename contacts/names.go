package contacts

import (
	"maps"
	"slices"

	"github.com/msgkit/msgkit/segmentation"
)

// sortedNames are a body's field names in order, so that problems come
// in the same order every time.
func sortedNames(m map[string]*string) []string { return slices.Sorted(maps.Keys(m)) }

// FieldNames are the standard contact fields a body may carry, sorted
// (custom fields are column_1 .. column_100 beside them).
func FieldNames() []string {
	var names []string
	for _, f := range segmentation.Fields() {
		if f.Column() == 0 && f != segmentation.SubscriptionOptionsIn && f != segmentation.SubscriptionOptionsOut {
			names = append(names, f.String())
		}
	}
	slices.Sort(names)
	return names
}
