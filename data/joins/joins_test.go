package joins

import (
	"slices"
	"testing"

	"github.com/loupeapp/loupe/data/index"
)

func col(name, typ string, distinct int64) index.Column {
	return index.Column{Name: name, Type: typ, Distinct: distinct}
}

func TestCandidates(t *testing.T) {
	tables := []index.Table{
		{Name: "customers", Rows: 100, Group: "shop", Columns: []index.Column{col("id", "BIGINT", 100), col("name", "VARCHAR", 95)}},
		{Name: "orders", Rows: 1000, Group: "shop", Columns: []index.Column{col("order_id", "BIGINT", 1000), col("customer_id", "BIGINT", 90), col("status", "VARCHAR", 3)}},
		{Name: "order_items", Rows: 5000, Group: "shop", Columns: []index.Column{col("order_id", "BIGINT", 1000), col("sku", "VARCHAR", 40), col("qty", "INTEGER", 9)}},
		{Name: "sbTicker", Rows: 20, Group: "broker", Columns: []index.Column{col("sbTickerId", "VARCHAR(20)", 20)}},
		{Name: "sbDailyPrice", Rows: 200, Group: "broker", Columns: []index.Column{col("sbDpTickerId", "VARCHAR(20)", 20), col("sbDpClose", "DECIMAL(10,2)", 180)}},
		// declared keys, as a remote database reports them
		{Name: "public.invoice", Rows: 10, Group: "pg", Columns: []index.Column{col("invoice_id", "integer", 10), col("billed_to", "integer", 4)},
			Foreign: []index.ForeignKey{{Columns: []string{"billed_to"}, RefTable: "public.customer", RefColumns: []string{"customer_id"}}}},
		{Name: "public.customer", Rows: 4, Group: "pg", PrimaryKey: []string{"customer_id"}, Columns: []index.Column{col("customer_id", "integer", 4)}},
		// false friends: an order_id of another type, a copy of customers, a non-key "id"
		{Name: "legacy_orders", Rows: 50, Group: "old", Columns: []index.Column{col("order_id", "VARCHAR", 50)}},
		{Name: "customers_2", Rows: 100, Group: "copy", Columns: []index.Column{col("id", "BIGINT", 100)}},
		{Name: "events", Rows: 300, Group: "log", Columns: []index.Column{col("id", "BIGINT", 300), col("amount", "DOUBLE", 280)}},
	}
	got := map[string]Path{}
	for _, p := range Candidates(tables) {
		got[p.From+"."+p.FromColumn+"="+p.To+"."+p.ToColumn] = p
	}
	want := map[string]string{
		"orders.customer_id=customers.id":                      RuleTableKey,
		"order_items.order_id=orders.order_id":                 RuleSameName,
		"sbDailyPrice.sbDpTickerId=sbTicker.sbTickerId":        RuleTableKey,
		"public.invoice.billed_to=public.customer.customer_id": RuleDeclared,
	}
	for k, rule := range want {
		p, ok := got[k]
		if !ok {
			t.Errorf("missing %s; got %v", k, keysOf(got))
			continue
		}
		if p.Rule != rule {
			t.Errorf("%s: rule %q, want %q", k, p.Rule, rule)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && !slices.Contains([]string{"orders.customer_id=customers_2.id", "orders.customer_id=public.customer.customer_id"}, k) {
			t.Errorf("unexpected candidate %s", k)
		}
	}
	if p := got["public.invoice.billed_to=public.customer.customer_id"]; p.Confidence != 1 || !p.Declared {
		t.Errorf("declared path: %+v", p)
	}
	if a, b := got["orders.customer_id=customers.id"], got["orders.customer_id=customers_2.id"]; b.Confidence >= a.Confidence {
		t.Errorf("a path across files (%v) should rank below one within (%v)", b.Confidence, a.Confidence)
	}
}

func keysOf(m map[string]Path) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		name     string
		idLike   bool
		referent string
	}{
		{"customer_id", true, "customer"}, {"CustomerId", true, "customer"}, {"aid", true, ""},
		{"sbCustId", true, "customer"}, {"order_no", false, ""}, {"paid", false, ""}, {"name", false, ""}, {"paperid", true, ""},
		{"category_code", true, "category"}, {"StatusKey", true, "status"},
	} {
		if got := idLike(tc.name); got != tc.idLike {
			t.Errorf("idLike(%q) = %v", tc.name, got)
		}
		if got := referent(tc.name); got != tc.referent {
			t.Errorf("referent(%q) = %q, want %q", tc.name, got, tc.referent)
		}
	}
	for in, want := range map[string]string{"categories": "category", "addresses": "address", "status": "status", "sales": "sale", "bus": "bus", "orders": "order"} {
		if got := singular(in); got != want {
			t.Errorf("singular(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBridgesDeclaredKeys: a linking table whose columns are not named
// like ids (owner, animal) is a bridge by its declared keys alone.
func TestBridgesDeclaredKeys(t *testing.T) {
	tables := []index.Table{
		{Name: "student", Group: "pets", PrimaryKey: []string{"num"}, Columns: []index.Column{col("num", "BIGINT", 0), col("name", "VARCHAR", 0)}},
		{Name: "pet", Group: "pets", PrimaryKey: []string{"tag"}, Columns: []index.Column{col("tag", "BIGINT", 0), col("kind", "VARCHAR", 0)}},
		{Name: "has_pet", Group: "pets", Columns: []index.Column{col("owner", "BIGINT", 0), col("animal", "BIGINT", 0)},
			Foreign: []index.ForeignKey{
				{Columns: []string{"owner"}, RefTable: "student", RefColumns: []string{"num"}},
				{Columns: []string{"animal"}, RefTable: "pet", RefColumns: []string{"tag"}},
			}},
		{Name: "vet", Group: "pets", Columns: []index.Column{col("name", "VARCHAR", 0)}},
	}
	if got := NewLinks(tables).Bridges([]string{"student", "pet"}, 2); !slices.Equal(got, []string{"has_pet"}) {
		t.Errorf("bridges of student and pet: %v, want [has_pet]", got)
	}
	// the key's own table is chosen: it bridges nothing more
	if got := NewLinks(tables).Bridges([]string{"has_pet", "student"}, 2); len(got) != 0 {
		t.Errorf("bridges of has_pet and student: %v", got)
	}
}
