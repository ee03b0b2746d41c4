package memory

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestRememberReopenSimilar(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.Remember(ctx, Entry{Chat: "c1", Question: "Total sales by region in 2023", SQL: "SELECT region, sum(amount) FROM sales WHERE year = 2023 GROUP BY 1", Tables: []string{"sales"}, Result: "4 rows: region, sum"})
	if err != nil || e.ID == "" || e.At.IsZero() {
		t.Fatalf("remember: %+v, %v", e, err)
	}
	if _, err := s.Remember(ctx, Entry{Chat: "c1", Question: e.Question, SQL: e.SQL}); err != nil || s.Len() != 1 {
		t.Fatalf("a repeated entry was stored twice (%d), %v", s.Len(), err)
	}
	if _, err := s.Remember(ctx, Entry{Chat: "c2", Question: "Which customers churned last quarter?", SQL: "SELECT * FROM customers WHERE churned", Tables: []string{"customers"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Remember(ctx, Entry{Question: "no SQL"}); err == nil {
		t.Error("an entry without SQL was accepted")
	}
	// a crash mid-write leaves a torn line: skipped on reading
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"m_torn","question":"half`)
	f.Close()
	s, err = Open(dir)
	if err != nil || s.Len() != 2 {
		t.Fatalf("reopen: %d entries, %v", s.Len(), err)
	}
	got := s.Similar("And total sales by region in 2024?", Options{Chat: "c1"})
	if len(got) == 0 || got[0].ID != e.ID || !got[0].SameChat || got[0].Score < 0.5 {
		t.Fatalf("similar: %+v", got)
	}
	if got := s.Similar("sales by region", Options{Tables: []string{"customers"}}); len(got) != 0 {
		t.Errorf("an entry reading a removed table was offered: %+v", got)
	}
	if got := s.Similar("weather in Oslo", Options{}); len(got) != 0 {
		t.Errorf("an unrelated question matched %+v", got)
	}
}

// TestReuse is the scripted multi-turn measure: each follow-up differs from
// an earlier question of its conversation by one filter or grouping, and
// must find that query first; new topics must find nothing to reuse.
func TestReuse(t *testing.T) {
	ctx := context.Background()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	type turn struct{ question, sql, reuses string }
	chats := map[string][]turn{
		"a": {
			{"What were total sales by region in 2023?", "SELECT region, sum(amount) FROM sales WHERE year = 2023 GROUP BY region", ""},
			{"Same for 2024: total sales by region", "SELECT region, sum(amount) FROM sales WHERE year = 2024 GROUP BY region", "What were total sales by region in 2023?"},
			{"How many customers signed up each month?", "SELECT date_trunc('month', signup), count(*) FROM customers GROUP BY 1", ""},
			{"How many customers signed up each month in Germany?", "SELECT … WHERE country = 'Germany'", "How many customers signed up each month?"},
		},
		"b": {
			{"Average delivery time per carrier", "SELECT carrier, avg(days) FROM shipments GROUP BY carrier", ""},
			{"Average delivery time per carrier for express shipments", "SELECT … WHERE service = 'express'", "Average delivery time per carrier"},
			{"Top 10 products by revenue", "SELECT product, sum(revenue) FROM order_lines GROUP BY 1 ORDER BY 2 DESC LIMIT 10", ""},
			{"Top 10 products by revenue in the EMEA region", "SELECT … WHERE region = 'EMEA' …", "Top 10 products by revenue"},
			{"Which suppliers have late deliveries?", "SELECT supplier FROM shipments WHERE late", ""},
		},
	}
	followUps, reused, falseReuse, fresh := 0, 0, 0, 0
	for _, chat := range []string{"a", "b"} {
		for _, tn := range chats[chat] {
			got := s.Similar(tn.question, Options{Chat: chat, K: 1, MinScore: 0.5})
			switch {
			case tn.reuses != "":
				followUps++
				if len(got) == 1 && got[0].Question == tn.reuses {
					reused++
				} else {
					t.Errorf("%q: found %+v, want %q", tn.question, got, tn.reuses)
				}
			default:
				fresh++
				if len(got) > 0 {
					falseReuse++
					t.Errorf("%q (a new topic) would reuse %q (%.2f)", tn.question, got[0].Question, got[0].Score)
				}
			}
			if _, err := s.Remember(ctx, Entry{Chat: chat, Question: tn.question, SQL: tn.sql}); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("reuse: %d of %d follow-ups found their prior query; %d of %d new questions matched nothing", reused, followUps, fresh-falseReuse, fresh)
}

func TestTablesIn(t *testing.T) {
	known := []string{"sales", "Customers", "order lines", "regions"}
	got := TablesIn(`SELECT c.name FROM customers c JOIN "order lines" o USING (id) WHERE o.sales > 1`, known)
	if want := []string{"sales", "Customers", "order lines"}; !slices.Equal(got, want) {
		t.Errorf("TablesIn = %q, want %q", got, want)
	}
}

// A verdict marks the remembered queries of an answer, survives a reopen,
// ranks a verified query first and drops a rejected one.
func TestVerdictsRankAndSurvive(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	good := "SELECT region, sum(amount) FROM sales GROUP BY 1"
	bad := "SELECT region, count(*) FROM sales GROUP BY 1"
	for _, q := range []string{good, bad} {
		if _, err := s.Remember(ctx, Entry{Chat: "c1", Question: "Sales by region", SQL: q, Tables: []string{"sales"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Mark(ctx, "c1", "Sales by region", []string{good}, Verified, []string{"sales"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Mark(ctx, "c1", "Sales by region", []string{bad}, Rejected, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Mark(ctx, "c1", "Sales by region", []string{good}, "maybe", nil); err == nil {
		t.Error("an unknown verdict was taken")
	}
	s, err = Open(dir)
	if err != nil || s.Len() != 2 {
		t.Fatalf("reopen: %d entries, %v", s.Len(), err)
	}
	got := s.Similar("What are sales by region?", Options{})
	if len(got) != 1 || got[0].SQL != good || !got[0].Verified {
		t.Errorf("similar after the verdicts: %+v", got)
	}
	if v := s.Similar("What are sales by region?", Options{VerifiedOnly: true}); len(v) != 1 || v[0].SQL != good {
		t.Errorf("verified only: %+v", v)
	}
	if v := s.Similar("Churned customers", Options{VerifiedOnly: true}); len(v) != 0 {
		t.Errorf("an unrelated question got verified examples: %+v", v)
	}
}
