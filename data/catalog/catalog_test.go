package catalog_test

import (
	"testing"

	"github.com/loupeapp/loupe/data/catalog"
)

func TestNeedsProfile(t *testing.T) {
	five := "5"
	tests := []struct {
		name string
		d    catalog.Dataset
		want bool
	}{
		{"flagged", catalog.Dataset{Profiled: true, Columns: []catalog.Column{{Name: "a"}}}, false},
		{"flagged empty table", catalog.Dataset{Profiled: true}, false},
		{"described only", catalog.Dataset{Columns: []catalog.Column{{Name: "a", Type: "INTEGER"}, {Name: "b", Type: "VARCHAR", Note: "n"}}}, true},
		{"no columns", catalog.Dataset{}, true},
		{"older record with distinct counts", catalog.Dataset{Columns: []catalog.Column{{Name: "a"}, {Name: "b", Distinct: 3}}}, false},
		{"older record with a minimum", catalog.Dataset{Columns: []catalog.Column{{Name: "a", Min: &five}}}, false},
		{"older record with samples", catalog.Dataset{Columns: []catalog.Column{{Name: "a", Samples: []string{"x"}}}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.NeedsProfile(); got != tc.want {
				t.Errorf("NeedsProfile() = %v, want %v", got, tc.want)
			}
		})
	}
}
