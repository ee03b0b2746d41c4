package eval

import (
	"testing"

	"github.com/loupeapp/loupe/data/query"
)

func res(cols []string, rows ...[]any) *query.Result {
	r := &query.Result{Rows: rows, RowCount: int64(len(rows))}
	for _, c := range cols {
		r.Columns = append(r.Columns, query.Column{Name: c})
	}
	return r
}

func TestSameResult(t *testing.T) {
	gold := res([]string{"region", "n"}, []any{"North", int64(3)}, []any{"South", int64(5)})
	cases := []struct {
		name    string
		got     *query.Result
		ordered bool
		want    bool
	}{
		{"identical", res([]string{"region", "n"}, []any{"North", int64(3)}, []any{"South", int64(5)}), false, true},
		{"other names, other column order, floats", res([]string{"cnt", "r"}, []any{3.0, "North"}, []any{5.00001, "South"}), false, true},
		{"rows in another order, unordered", res([]string{"region", "n"}, []any{"South", int64(5)}, []any{"North", int64(3)}), false, true},
		{"rows in another order, ordered", res([]string{"region", "n"}, []any{"South", int64(5)}, []any{"North", int64(3)}), true, false},
		{"an extra column is fine", res([]string{"region", "n", "share"}, []any{"North", int64(3), 0.375}, []any{"South", int64(5), 0.625}), false, true},
		{"a wrong value", res([]string{"region", "n"}, []any{"North", int64(4)}, []any{"South", int64(5)}), false, false},
		{"a missing column", res([]string{"region"}, []any{"North"}, []any{"South"}), false, false},
		{"a missing row", res([]string{"region", "n"}, []any{"North", int64(3)}), false, false},
		{"numbers as text", res([]string{"region", "n"}, []any{"North", "3"}, []any{"South", "5.0"}), false, true},
	}
	for _, c := range cases {
		if ok, why := sameResult(gold, c.got, c.ordered); ok != c.want {
			t.Errorf("%s: got %v (%s), want %v", c.name, ok, why, c.want)
		}
	}
	// Ties on the sort key (here n) may come in any order; the rows must
	// still be the gold rows.
	tied := res([]string{"p", "n"}, []any{"mug", int64(5)}, []any{"tea", int64(5)}, []any{"hat", int64(2)})
	for _, c := range []struct {
		name string
		got  *query.Result
		want bool
	}{
		{"tied rows swapped", res([]string{"p", "n"}, []any{"tea", int64(5)}, []any{"mug", int64(5)}, []any{"hat", int64(2)}), true},
		{"ascending instead", res([]string{"p", "n"}, []any{"hat", int64(2)}, []any{"mug", int64(5)}, []any{"tea", int64(5)}), false},
		{"values moved to other rows", res([]string{"p", "n"}, []any{"hat", int64(5)}, []any{"tea", int64(5)}, []any{"mug", int64(2)}), false},
	} {
		if ok, why := sameResult(tied, c.got, true); ok != c.want {
			t.Errorf("%s: got %v (%s), want %v", c.name, ok, why, c.want)
		}
	}
	dates := res([]string{"d"}, []any{"2025-01-01"})
	if ok, _ := sameResult(dates, res([]string{"m"}, []any{"2025-01-01 00:00:00"}), false); !ok {
		t.Errorf("a DATE and a midnight TIMESTAMP should compare equal")
	}
}

func TestGoldVariants(t *testing.T) {
	got := goldVariants("SELECT {author.name, author.aid} FROM author")
	want := []string{"SELECT author.name FROM author", "SELECT author.aid FROM author", "SELECT author.name, author.aid FROM author"}
	if len(got) != len(want) {
		t.Fatalf("variants = %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("variant %d = %q, want %q", i, got[i], want[i])
		}
	}
	if v := goldVariants("SELECT 1"); len(v) != 1 || v[0] != "SELECT 1" {
		t.Errorf("no braces: %q", v)
	}
}
