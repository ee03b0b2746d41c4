package agenttest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// The stub's answers come from the fixture files, and its failures name
// what is wrong as DuckDB would.
func TestShopAnswers(t *testing.T) {
	db, err := Shop()
	if err != nil {
		t.Fatal(err)
	}
	set, err := db.Tools()
	if err != nil {
		t.Fatal(err)
	}
	runSQL, _ := set.Get("run_sql")
	cases := []struct {
		sql    string
		failed bool
		want   string
	}{
		{"SELECT count(*) AS n FROM orders", false, "40"},
		{"select  COUNT(*) from customers;", false, "10"},
		{"SELECT * FROM orders, customers", false, "returned 400 rows"},
		{"SELECT * FROM orders WHERE region = 'Atlantis'", false, "returned 0 rows"},
		{"SELECT status, count(*) AS n FROM orders GROUP BY 1 ORDER BY 1", false, "shipped | "},
		{"SELECT 7", false, "7"},
		{"SELECT count(*) FROM ordrs", true, `Did you mean "orders"?`},
		{"SELECT regoin, count(*) FROM orders GROUP BY 1", true, `"regoin" not found`},
		{"SELECT avg(quantity) FROM orders", true, "does not answer"},
	}
	for _, c := range cases {
		raw, _ := json.Marshal(map[string]string{"sql": c.sql})
		res, err := runSQL.Run(context.Background(), raw)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if res.Failed != c.failed || !strings.Contains(res.ForModel, c.want) {
			t.Errorf("%s: failed %v, shown:\n%s\nwant failed %v and %q", c.sql, res.Failed, res.ForModel, c.failed, c.want)
		}
	}
}
