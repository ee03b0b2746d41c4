package sqltool_test

import (
	"reflect"
	"testing"

	"github.com/loupeapp/loupe/tools/sqltool"
)

func TestSuggest(t *testing.T) {
	orders := []string{"order_id", "customer_id", "order_date", "region", "product", "quantity", "unit_price", "status"}
	customers := []string{"customer_id", "customer_name", "country", "segment", "signup_date"}
	tests := []struct {
		name       string
		word       string
		candidates []string
		want       []string
	}{
		{"swapped letters", "regoin", orders, []string{"region"}},
		{"abbreviated part", "cust_name", customers, []string{"customer_name"}},
		{"case only", "REGION", orders, []string{"region"}},
		{"missing letter", "quantty", orders, []string{"quantity"}},
		{"camel case against snake case", "unitPrice", orders, []string{"unit_price"}},
		{"one part of a longer name", "name", customers, []string{"customer_name"}},
		{"plural table", "customer", []string{"orders", "customers"}, []string{"customers"}},
		{"nothing close", "zebra", orders, nil},
		{"date part word is no column", "day", orders, nil},
		{"duplicates collapse", "regin", []string{"region", "region"}, []string{"region"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sqltool.Suggest(tc.word, tc.candidates, 1)
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Suggest(%q) = %q, want %q", tc.word, got, tc.want)
			}
		})
	}
}

// Suggestions come best first and stop at max.
func TestSuggestOrderAndMax(t *testing.T) {
	got := sqltool.Suggest("order_dt", []string{"order_id", "order_date", "status", "ship_date"}, 2)
	if len(got) != 2 || got[0] != "order_date" {
		t.Fatalf("got %q, want order_date first and two names", got)
	}
}
