package privacy

import (
	"fmt"
	"testing"
)

func TestLineage(t *testing.T) {
	private := []string{"email", "full_name"}
	for _, tc := range []struct {
		sql    string
		result []string
		want   []bool
	}{
		{"SELECT city, count(*) FROM customers GROUP BY city", []string{"city", "count_star()"}, []bool{false, false}},
		{"SELECT lower(email) AS e, city FROM customers", []string{"e", "city"}, []bool{true, false}},
		{"SELECT substr(full_name, 1, 3) initials, amount FROM customers", []string{"initials", "amount"}, []bool{true, false}},
		{`SELECT "Email" || '!' , amount FROM c`, []string{`("Email" || '!')`, "amount"}, []bool{true, false}},
		{"WITH t AS (SELECT email AS e, amount FROM c) SELECT upper(e) AS shout, amount FROM t", []string{"shout", "amount"}, []bool{true, false}},
		{"SELECT x FROM (SELECT concat(full_name, '-', city) AS x FROM c) s", []string{"x"}, []bool{true}},
		{"SELECT * FROM customers", []string{"id", "email", "city"}, []bool{false, true, false}},
		{"SELECT *, lower(email) AS e FROM customers", []string{"id", "email", "city", "e"}, []bool{false, true, false, true}},
		{"SELECT city FROM a UNION SELECT email FROM b", []string{"city"}, []bool{true}},
		{"SELECT city, 'email' AS label FROM a -- email\n", []string{"city", "label"}, []bool{false, false}},
		{"SELECT DISTINCT c.email, c.city FROM customers c", []string{"email", "city"}, []bool{true, false}},
		{"SELECT min(email), max(amount) FROM c", []string{"min(email)", "max(amount)"}, []bool{true, false}},
	} {
		got := Lineage(tc.sql, tc.result, private)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("Lineage(%q) = %v, want %v", tc.sql, got, tc.want)
		}
	}
	if got := Lineage("SELECT email FROM c", []string{"email"}, nil); got[0] {
		t.Error("no private columns, nothing derived")
	}
}
