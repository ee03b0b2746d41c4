package schema_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/schema"
	"github.com/loupeapp/loupe/tools/sqltool"
	"github.com/loupeapp/loupe/tools/tooltest"
)

type env struct {
	ws                     *workspace.Workspace
	store                  *results.Store
	list, describe, sample tools.Tool
}

func setup(t *testing.T) env {
	t.Helper()
	ws := tooltest.Workspace(t)
	store := results.New(results.Config{})
	ts := schema.Tools(ws, sqltool.New(ws.Query, ws, store, sqltool.Config{}))
	if _, err := tools.NewSet(ts...); err != nil {
		t.Fatal(err)
	}
	return env{ws: ws, store: store, list: ts[0], describe: ts[1], sample: ts[2]}
}

func run(t *testing.T, tool tools.Tool, raw string) tools.Result {
	t.Helper()
	r, err := tool.Run(context.Background(), json.RawMessage(raw))
	if err != nil {
		t.Fatalf("%s(%s): Go error %v", tool.Spec().Name, raw, err)
	}
	return r
}

func TestListDatasets(t *testing.T) {
	e := setup(t)
	want := "2 datasets:\n- customers: 10 rows, 5 columns (csv)\n- orders: 40 rows, 8 columns (csv)\nCall describe_table for a table's columns and statistics."
	// No arguments, an empty string, or stray arguments: all list.
	for _, raw := range []string{`{}`, ``, `""`, `null`, `{"verbose": true}`} {
		r := run(t, e.list, raw)
		if r.Failed || r.ForModel != want || r.Summary != "2 datasets" {
			t.Fatalf("args %q: failed=%v\n%s", raw, r.Failed, r.ForModel)
		}
		var sums []schema.Summary
		if err := json.Unmarshal(r.Display.Data, &sums); err != nil || len(sums) != 2 || sums[1].Name != "orders" || sums[1].Rows != 40 || sums[1].Columns != 8 {
			t.Fatalf("display data %s: %v", r.Display.Data, err)
		}
	}
}

func TestListDatasetsEmpty(t *testing.T) {
	ws := tooltest.Empty(t)
	r := run(t, schema.NewListDatasets(ws), `{}`)
	if r.Failed || !strings.HasPrefix(r.ForModel, "No datasets are loaded.") {
		t.Fatalf("%+v", r)
	}
}

func TestDescribeTable(t *testing.T) {
	e := setup(t)
	r := run(t, e.describe, `{"table": "orders"}`)
	if r.Failed {
		t.Fatal(r.ForModel)
	}
	lines := strings.Split(r.ForModel, "\n")
	if lines[0] != "orders: 40 rows, 8 columns, from orders.csv (csv). Distinct counts are approximate." || len(lines) != 9 {
		t.Fatalf("%d lines:\n%s", len(lines), r.ForModel)
	}
	// Figures straight from the data, not from the catalog.
	var regions, statusTop int
	var minDate, maxDate string
	db := e.ws.Engine.DB()
	if err := db.QueryRow(`SELECT count(DISTINCT region), min(order_date)::VARCHAR, max(order_date)::VARCHAR FROM orders`).Scan(&regions, &minDate, &maxDate); err != nil {
		t.Fatal(err)
	}
	var topRegion string
	if err := db.QueryRow(`SELECT region, count(*) FROM orders GROUP BY ALL ORDER BY 2 DESC, 1 LIMIT 1`).Scan(&topRegion, &statusTop); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"- region VARCHAR: 4 distinct; top: \"" + topRegion + "\" (" + strconv.Itoa(statusTop) + ")",
		"- order_date DATE: ",
		minDate + " … " + maxDate,
		"- unit_price DOUBLE: ",
	} {
		if !strings.Contains(r.ForModel, want) {
			t.Errorf("missing %q in:\n%s", want, r.ForModel)
		}
	}
	if regions != 4 {
		t.Fatalf("fixture has %d regions", regions)
	}
	// All-unique ids get examples, not a meaningless "top" list.
	if strings.Contains(r.ForModel, "order_id BIGINT: 40 distinct, 1 … 40; top") {
		t.Errorf("order_id lists top values that all occur once:\n%s", r.ForModel)
	}
	var d catalog.Dataset
	if err := json.Unmarshal(r.Display.Data, &d); err != nil || d.Name != "orders" || len(d.Columns) != 8 {
		t.Fatalf("display data: %v %+v", err, d)
	}
}

func TestDescribeTableNulls(t *testing.T) {
	e := setup(t)
	p := filepath.Join(t.TempDir(), "people.csv")
	if err := os.WriteFile(p, []byte("name,age,nickname\nAna,31,\nBo,,\nCy,40,\nDee,22,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tooltest.Load(t, e.ws, p)
	r := run(t, e.describe, `{"table": "people"}`)
	for _, want := range []string{"- age BIGINT: 1 nulls (25%)", "- nickname VARCHAR: all null"} {
		if !strings.Contains(r.ForModel, want) {
			t.Errorf("missing %q in:\n%s", want, r.ForModel)
		}
	}
}

func TestDescribeTableNames(t *testing.T) {
	e := setup(t)
	for _, raw := range []string{`{"table": "ORDERS"}`, `{"table": "\"orders\""}`, `{"table": "main.orders"}`, `{"table_name": "orders"}`, `"orders"`, `"{\"table\": \"orders\"}"`} {
		if r := run(t, e.describe, raw); r.Failed || !strings.HasPrefix(r.ForModel, "orders: 40 rows") {
			t.Fatalf("%s: %s", raw, r.ForModel)
		}
	}
}

func TestUnknownTable(t *testing.T) {
	e := setup(t)
	for _, tool := range []tools.Tool{e.describe, e.sample} {
		r := run(t, tool, `{"table": "customer"}`)
		if !r.Failed || r.ForModel != `Table "customer" does not exist. Did you mean "customers"? Datasets: customers, orders.` {
			t.Fatalf("%s: failed=%v %s", tool.Spec().Name, r.Failed, r.ForModel)
		}
		if r.Summary != `unknown table "customer"` || r.Display.Kind != tools.KindError {
			t.Fatalf("%+v", r)
		}
	}
}

func TestArgumentErrors(t *testing.T) {
	e := setup(t)
	tests := []struct {
		tool tools.Tool
		raw  string
		want string
	}{
		{e.describe, `{}`, `missing required argument "table"`},
		{e.describe, `{"table": "orders", "columns": ["a"]}`, `unknown argument "columns"`},
		{e.sample, `{"n": 3}`, `missing required argument "table"`},
		{e.sample, `{"table": "orders", "n": "many"}`, `"n" must be an integer`},
	}
	for _, tc := range tests {
		r := run(t, tc.tool, tc.raw)
		if !r.Failed || !strings.Contains(r.ForModel, tc.want) || !strings.Contains(r.ForModel, "table (string, required)") {
			t.Fatalf("%s(%s): %s", tc.tool.Spec().Name, tc.raw, r.ForModel)
		}
	}
}

func TestSampleRows(t *testing.T) {
	e := setup(t)
	tests := []struct {
		name, raw string
		rows      int64
		want      string
	}{
		{"default", `{"table": "orders"}`, schema.DefaultSample, "10 rows × 8 columns"},
		{"n", `{"table": "orders", "n": 3}`, 3, "3 rows × 8 columns"},
		{"n as text", `{"table": "orders", "n": "4"}`, 4, "4 rows × 8 columns"},
		{"capped", `{"table": "orders", "n": 500}`, schema.MaxSample, "(n is capped at 20.)"},
		{"where", `{"table": "customers", "where": "country = 'US'"}`, 4, "4 rows × 5 columns"},
		{"where with keyword", `{"table": "customers", "where": "WHERE segment = 'smb';"}`, 3, "3 rows × 5 columns"},
		{"no match", `{"table": "orders", "where": "region = 'Atlantis'"}`, 0, "The query returned 0 rows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, e.sample, tc.raw)
			if r.Failed || r.Display.Kind != tools.KindTable || r.Display.Table.Rows != tc.rows || !strings.Contains(r.ForModel, tc.want) {
				t.Fatalf("failed=%v rows=%v:\n%s", r.Failed, r.Display.Table, r.ForModel)
			}
			if _, err := e.store.Page(results.Ref(r.Display.Table.Ref), 0, 5); err != nil {
				t.Fatalf("sample not stored: %v", err)
			}
		})
	}
}

// The condition runs through the guard: it cannot smuggle in a write, and
// a mistake in it gets run_sql's hints.
func TestSampleRowsWhereIsGuarded(t *testing.T) {
	e := setup(t)
	r := run(t, e.sample, `{"table": "orders", "where": "1=1; DROP TABLE orders"}`)
	if !r.Failed || !strings.Contains(r.ForModel, "refused") {
		t.Fatalf("failed=%v:\n%s", r.Failed, r.ForModel)
	}
	var n int
	if err := e.ws.Engine.DB().QueryRow(`SELECT count(*) FROM orders`).Scan(&n); err != nil || n != 40 {
		t.Fatalf("orders has %d rows (%v)", n, err)
	}
	r = run(t, e.sample, `{"table": "orders", "where": "regoin = 'North'"}`)
	if !r.Failed || !strings.Contains(r.ForModel, `Did you mean "region"?`) {
		t.Fatalf("failed=%v:\n%s", r.Failed, r.ForModel)
	}
}

// A closed workspace is an infrastructure failure: a Go error.
func TestClosedWorkspace(t *testing.T) {
	e := setup(t)
	if err := e.ws.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []tools.Tool{e.list, e.describe, e.sample} {
		if _, err := tool.Run(context.Background(), json.RawMessage(`{"table": "orders"}`)); err == nil {
			t.Fatalf("%s: no error on a closed workspace", tool.Spec().Name)
		}
	}
}

// A cancelled context is returned as such, not as a result.
func TestCancelled(t *testing.T) {
	e := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tool := range []tools.Tool{e.list, e.describe, e.sample} {
		if _, err := tool.Run(ctx, json.RawMessage(`{"table": "orders"}`)); !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: %v, want context.Canceled", tool.Spec().Name, err)
		}
	}
}

func TestSpecs(t *testing.T) {
	e := setup(t)
	for _, tool := range []tools.Tool{e.list, e.describe, e.sample} {
		s := tool.Spec()
		if len(s.Description) > 300 || !json.Valid(s.Parameters) {
			t.Fatalf("%s: %d-char description, parameters %s", s.Name, len(s.Description), s.Parameters)
		}
	}
}

// manyDatasets is a catalog of n datasets.
type manyDatasets int

func (n manyDatasets) Datasets(context.Context) ([]catalog.Dataset, error) {
	out := make([]catalog.Dataset, n)
	for i := range out {
		out[i] = catalog.Dataset{Name: "t" + strconv.Itoa(i), Kind: "csv", Rows: 1}
	}
	return out, nil
}

func TestListDatasetsCapsWhatTheModelReads(t *testing.T) {
	r := run(t, schema.NewListDatasets(manyDatasets(schema.MaxListed+50)), `{}`)
	lines := strings.Count(r.ForModel, "\n- ")
	if lines != schema.MaxListed-1 && lines != schema.MaxListed {
		t.Errorf("the model was shown %d datasets, want %d", lines, schema.MaxListed)
	}
	if !strings.Contains(r.ForModel, "and 50 more not listed") || !strings.Contains(r.ForModel, "search_schema") {
		t.Errorf("the cap must be said, with where to look:\n%.300s", r.ForModel[len(r.ForModel)-300:])
	}
	var sums []schema.Summary
	if err := json.Unmarshal(r.Display.Data, &sums); err != nil || len(sums) != schema.MaxListed+50 {
		t.Errorf("the UI gets every dataset: %d, %v", len(sums), err)
	}
}
