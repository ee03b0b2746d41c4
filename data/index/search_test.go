package index

import (
	"context"
	"slices"
	"testing"
)

func TestRanking(t *testing.T) {
	x, err := OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := x.Sync(context.Background(), Workspace, fixture(t)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		question, table, column string
	}{
		{"Which customers live in Germany?", "customers", "country"},          // a frequent value
		{"total invoiced per billing city", "invoices", "BillingCity"},        // camelCase columns
		{"What quantity of each track was invoiced?", "invoice_lines", "qty"}, // qty spelled out
		{"Which jazz tracks are longest?", "genres", "name"},                  // a value of another table
		{"Average temperature per device", "sensor_readings", "temp_c"},       // temp spelled out
		{"When was each employee hired, by department?", "employees", "dept"}, // hired → hire, dept
		{"Orders placed with suppliers by value", "orders", "amt"},            // descriptions
		{"page views per session", "web_sessions", "page_views"},
		{"How much rain fell per station?", "weather_daily", "rainfall_mm"}, // a word begins a compound
	} {
		hits, err := x.Search(context.Background(), tc.question, Options{K: 3})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(hits, func(h Hit) bool { return h.Table.Name == tc.table })
		if i < 0 || i > 1 {
			t.Errorf("%q: got %v, want %s in the first two", tc.question, hitNames(hits), tc.table)
			continue
		}
		if !slices.ContainsFunc(hits[i].Columns, func(c ColumnHit) bool { return c.Name == tc.column }) {
			t.Errorf("%q: columns %+v, want %s among them", tc.question, hits[i].Columns, tc.column)
		}
	}
	// the column holding the value comes before the key named like the table
	hits, err := x.Search(context.Background(), "Which customers live in Germany?", Options{K: 1})
	if err != nil || len(hits) != 1 || len(hits[0].Columns) == 0 || hits[0].Columns[0].Name != "country" {
		t.Errorf("Germany: %+v, %v", hits, err)
	}
	if hits, err := x.Search(context.Background(), "what is it", Options{}); err != nil || len(hits) != 0 {
		t.Errorf("a question of stop words found %v, %v", hitNames(hits), err)
	}
}

func TestOriginFilter(t *testing.T) {
	ctx := context.Background()
	x, err := OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	cols := []Column{{Name: "salary", Type: "DOUBLE"}}
	if _, err := x.Sync(ctx, Workspace, []Table{{Name: "pay", Columns: cols}}); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Sync(ctx, "remote:hr", []Table{{Name: "hr.pay", Columns: cols}}); err != nil {
		t.Fatal(err)
	}
	hits, err := x.Search(ctx, "salary", Options{Origin: "remote:hr"})
	if err != nil || len(hits) != 1 || hits[0].Table.Name != "hr.pay" || hits[0].Table.Origin != "remote:hr" {
		t.Errorf("origin filter: %v, %v", hitNames(hits), err)
	}
	if hits, _ := x.Search(ctx, "salary", Options{}); len(hits) != 2 {
		t.Errorf("all origins: %v", hitNames(hits))
	}
}

func hitNames(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Table.Name
	}
	return out
}
