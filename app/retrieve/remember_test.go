package retrieve_test

import (
	"context"
	"github.com/loupeapp/loupe/app/retrieve"
	"slices"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/data/memory"
	"github.com/loupeapp/loupe/tools"
)

// TestRememberRun stores a run's successful queries and finds them again
// for a follow-up that changes one filter.
func TestRememberRun(t *testing.T) {
	ctx := context.Background()
	mem, err := memory.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sql := "SELECT region, sum(quantity * unit_price) AS revenue FROM orders WHERE year(order_date) = 2024 GROUP BY region"
	out := &agent.Outcome{Evidence: []agent.Evidence{
		{Ref: "q1", Tool: "run_sql", SQL: sql, Summary: "4 rows", Table: &tools.Table{Columns: []tools.Column{{Name: "region"}, {Name: "revenue"}}}},
		{Ref: "c1", Tool: "create_chart", SQL: sql, Chart: &tools.Chart{}},
		{Ref: "q2", Tool: "profile_data", Summary: "profiled"},
	}}
	n, err := retrieve.Remember(ctx, mem, "chat1", "Revenue by region in 2024?", out, []string{"orders", "customers"})
	if err != nil || n != 1 {
		t.Fatalf("remembered %d, %v", n, err)
	}
	got := mem.Similar("And revenue by region in 2023?", memory.Options{Chat: "chat1", K: 1})
	if len(got) != 1 || got[0].SQL != sql || !slices.Equal(got[0].Tables, []string{"orders"}) || got[0].Result != "4 rows: region, revenue" {
		t.Fatalf("similar: %+v", got)
	}
}
