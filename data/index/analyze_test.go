package index

import (
	"slices"
	"testing"
)

func TestIdentTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"customer_name", []string{"custom", "client", "name"}},
		{"orderDate", []string{"order", "date"}},
		{"XMLFile", []string{"xml", "file"}},
		{"address2", []string{"address"}},
		{"sbCustId", []string{"sb", "custom", "client", "id"}},
		{"InvoiceLine", []string{"invoic", "line"}},
		{"total_qty_2023", []string{"total", "quantiti", "2023"}},
		{"customers' orders", []string{"custom", "client", "order"}},
	} {
		if got := IdentTerms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("IdentTerms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestQuestionTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		// question words and stop words go; names stay, stemmed
		{"Show me the list of customers", []string{"custom", "client"}},
		{"How many cars were sold?", []string{"car", "sold", "sell", "sale"}},
		{"What is the total amount per region", []string{"total", "amount", "region"}},
		{"the", nil},
	} {
		got := Terms(tc.in)
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
