package uiproxy

import (
	"reflect"
	"testing"
	"time"
)

// equal looks at every field of a component: a field added later that it
// misses fails here.
func TestComponentEqualSeesEveryField(t *testing.T) {
	base := Component{ID: "g", Type: Grid, Service: "s", URL: "https://a.example/", Fixed: map[string]string{"a": "1"}, TokenHeader: "X-T",
		Token: "t", Timeout: time.Second, Columns: []Column{{Name: "id", Kind: Number}}, CacheTTL: time.Minute}
	if !base.equal(base) {
		t.Fatal("a component differs from itself")
	}
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		changed := base
		changed.Fixed = map[string]string{"a": "1"}
		changed.Columns = []Column{{Name: "id", Kind: Number}}
		f := reflect.ValueOf(&changed).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Int64:
			f.SetInt(f.Int() + 1)
		case reflect.Map:
			changed.Fixed["a"] = "2"
		case reflect.Slice:
			changed.Columns[0].Sortable = true
		default:
			t.Fatalf("field %s of kind %s: teach this test to change it", typ.Field(i).Name, f.Kind())
		}
		if base.equal(changed) {
			t.Errorf("equal misses a change of %s", typ.Field(i).Name)
		}
	}
}
