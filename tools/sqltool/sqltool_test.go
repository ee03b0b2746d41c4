package sqltool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/sqltool"
	"github.com/loupeapp/loupe/tools/tooltest"
)

type env struct {
	ws    *workspace.Workspace
	tool  *sqltool.Tool
	store *results.Store
}

func setup(t testing.TB, cfg sqltool.Config) env {
	t.Helper()
	ws := tooltest.Workspace(t)
	store := results.New(results.Config{})
	return env{ws: ws, tool: sqltool.New(ws.Query, ws, store, cfg), store: store}
}

// run calls run_sql with args (a value to encode, or json.RawMessage) and
// fails the test on a Go error.
func (e env) run(t testing.TB, args any) tools.Result {
	t.Helper()
	raw, ok := args.(json.RawMessage)
	if !ok {
		raw = tooltest.Args(t, args)
	}
	r, err := e.tool.Run(context.Background(), raw)
	if err != nil {
		t.Fatalf("run_sql(%s): Go error %v", raw, err)
	}
	return r
}

func (e env) sql(t testing.TB, q string) tools.Result {
	t.Helper()
	return e.run(t, map[string]string{"sql": q, "purpose": "test"})
}

// rawLines runs q straight on the engine, bypassing the tool, and prints
// each row as the preview does.
func (e env) rawLines(t testing.TB, q string) []string {
	t.Helper()
	rows, err := e.ws.Engine.DB().Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, " | "))
	}
	return out
}

func TestRunSQLHappyPath(t *testing.T) {
	e := setup(t, sqltool.Config{})
	const q = `SELECT region, count(*) AS n FROM orders GROUP BY region ORDER BY region`
	r := e.sql(t, q)
	if r.Failed || r.EndTurn {
		t.Fatalf("failed: %s", r.ForModel)
	}
	want := e.rawLines(t, q)
	if len(want) != 4 {
		t.Fatalf("fixture has %d regions, want 4", len(want))
	}
	wantText := "4 rows × 2 columns: region VARCHAR, n BIGINT\nregion | n\n" + strings.Join(want, "\n") + "\n"
	if r.ForModel != wantText {
		t.Fatalf("ForModel:\n%s\nwant:\n%s", r.ForModel, wantText)
	}
	if r.Summary != "4 rows" {
		t.Fatalf("summary %q", r.Summary)
	}
	d := r.Display
	if d.Kind != tools.KindTable || d.SQL != q || d.Text != "test" || d.Table == nil {
		t.Fatalf("display %+v", d)
	}
	tb := d.Table
	if tb.Rows != 4 || tb.Kept != 4 || tb.Truncated || len(tb.Preview) != 4 || len(tb.Columns) != 2 || tb.Columns[1] != (tools.Column{Name: "n", Type: "BIGINT"}) {
		t.Fatalf("table %+v", tb)
	}
	p, err := e.store.Page(results.Ref(tb.Ref), 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) != 4 || p.SQL != q || fmt.Sprint(p.Rows[0][0], " | ", p.Rows[0][1]) != want[0] {
		t.Fatalf("stored page %+v, want first row %s", p, want[0])
	}
}

func TestRunSQLCaps(t *testing.T) {
	e := setup(t, sqltool.Config{KeepRows: 500})
	t.Run("30 rows", func(t *testing.T) {
		r := e.sql(t, `SELECT range AS i FROM range(100)`)
		lines := strings.Split(strings.TrimSpace(r.ForModel), "\n")
		// count line, header, 30 rows, "more" line
		if len(lines) != 33 || lines[2] != "0" || lines[31] != "29" {
			t.Fatalf("%d lines:\n%s", len(lines), r.ForModel)
		}
		if lines[32] != "70 more rows not shown (total 100)." {
			t.Fatalf("last line %q", lines[32])
		}
		tb := r.Display.Table
		if tb.Rows != 100 || tb.Kept != 100 || tb.Truncated || len(tb.Preview) != sqltool.Defaults.DisplayRows {
			t.Fatalf("table rows %d kept %d truncated %v preview %d", tb.Rows, tb.Kept, tb.Truncated, len(tb.Preview))
		}
		p, err := e.store.Page(results.Ref(tb.Ref), 95, 10)
		if err != nil || len(p.Rows) != 5 || p.Rows[0][0] != int64(95) {
			t.Fatalf("page 95: %+v %v", p.Rows, err)
		}
	})
	t.Run("8 KB", func(t *testing.T) {
		r := e.sql(t, `SELECT range AS i, repeat('x', 70) AS a, repeat('y', 70) AS b, repeat('z', 70) AS c, repeat('w', 70) AS d FROM range(200)`)
		if len(r.ForModel) > sqltool.Defaults.PreviewBytes {
			t.Fatalf("%d bytes > %d", len(r.ForModel), sqltool.Defaults.PreviewBytes)
		}
		shown := strings.Count(r.ForModel, " | xxx")
		if shown >= 30 || shown < 20 {
			t.Fatalf("%d rows shown; 8 KB holds 20 to 29 rows of ~300 bytes", shown)
		}
		if want := fmt.Sprintf("%d more rows not shown (total 200).", 200-shown); !strings.Contains(r.ForModel, want) {
			t.Fatalf("missing %q:\n%s", want, r.ForModel)
		}
	})
	t.Run("rows kept for the UI", func(t *testing.T) {
		r := e.sql(t, `SELECT range AS i FROM range(2000)`)
		tb := r.Display.Table
		if tb.Rows != 2000 || tb.Kept != 500 || !tb.Truncated {
			t.Fatalf("table rows %d kept %d truncated %v", tb.Rows, tb.Kept, tb.Truncated)
		}
		if r.Summary != "2000 rows (500 kept)" || !strings.Contains(r.ForModel, "1970 more rows not shown (total 2000).") {
			t.Fatalf("summary %q, text:\n%s", r.Summary, r.ForModel)
		}
		p, err := e.store.Page(results.Ref(tb.Ref), 490, 100)
		if err != nil || len(p.Rows) != 10 || p.Total != 2000 || !p.Truncated {
			t.Fatalf("last page: %d rows, total %d, %v", len(p.Rows), p.Total, err)
		}
	})
}

func TestRunSQLEmptyResult(t *testing.T) {
	e := setup(t, sqltool.Config{})
	r := e.sql(t, `SELECT order_id, status FROM orders WHERE region = 'Atlantis'`)
	if r.Failed {
		t.Fatalf("an empty result is not a failure: %s", r.ForModel)
	}
	if !strings.HasPrefix(r.ForModel, "The query returned 0 rows") || !strings.Contains(r.ForModel, "order_id BIGINT, status VARCHAR") {
		t.Fatalf("ForModel:\n%s", r.ForModel)
	}
	if r.Summary != "0 rows" || r.Display.Table.Rows != 0 || r.Display.Table.Kept != 0 {
		t.Fatalf("summary %q table %+v", r.Summary, r.Display.Table)
	}
	if _, err := e.store.Page(results.Ref(r.Display.Table.Ref), 0, 10); err != nil {
		t.Fatalf("empty result not stored: %v", err)
	}
}

// Every failure below is content with hints, never a Go error.
func TestRunSQLHints(t *testing.T) {
	e := setup(t, sqltool.Config{})
	ordersCols := "Columns of orders: order_id BIGINT, customer_id BIGINT, order_date DATE, region VARCHAR, product VARCHAR, quantity BIGINT, unit_price DOUBLE, status VARCHAR"
	customersCols := "Columns of customers: customer_id BIGINT, customer_name VARCHAR, country VARCHAR, segment VARCHAR, signup_date DATE"
	tests := []struct {
		name, sql string
		want      []string
		not       []string
	}{
		{"unknown column", `SELECT regoin, count(*) FROM orders GROUP BY 1`,
			[]string{`Referenced column "regoin" not found`, `Did you mean "region"?`, ordersCols}, []string{"Columns of customers"}},
		{"unknown column, abbreviated", `SELECT cust_name FROM customers`,
			[]string{`Did you mean "customer_name"`, customersCols}, nil},
		{"unknown column through an alias", `SELECT o.order_id, c.name FROM orders o JOIN customers c ON o.customer_id = c.customer_id`,
			[]string{`Did you mean "customer_name"`, customersCols}, []string{"Columns of orders"}},
		{"unknown table", `SELECT * FROM ordrs`, []string{`Table "ordrs" does not exist. Did you mean "orders"?`, "Datasets: customers, orders."}, nil},
		{"singular table", `SELECT count(*) FROM customer`, []string{`Did you mean "customers"?`}, nil},
		{"schema prefix", `SELECT * FROM public.orders`, []string{"write orders, not public.orders"}, []string{"Did you mean"}},
		{"TOP n", `SELECT TOP 5 * FROM orders`, []string{"DuckDB has no TOP", "LIMIT n"}, nil},
		{"backticks", "SELECT `region` FROM orders", []string{"Backticks are not quotes", "double quotes"}, nil},
		{"DATE_FORMAT", `SELECT DATE_FORMAT(order_date, '%Y-%m') FROM orders`, []string{"strftime(date_col, '%Y-%m')"}, nil},
		{"date_trunc arguments swapped", `SELECT date_trunc(order_date, 'month') FROM orders`, []string{"date_trunc takes the part first"}, nil},
		{"bare date part", `SELECT DATEDIFF(day, order_date, current_date) FROM orders`, []string{"date part as a string", "date_diff('day', start, end)"}, nil},
		{"text in double quotes", `SELECT region FROM orders WHERE status = "shipped"`, []string{"write it in single quotes: 'shipped'"}, nil},
		{"+ on text", `SELECT region + '-' + product FROM orders`, []string{"Concatenate text with ||"}, nil},
		{"missing GROUP BY", `SELECT region, sum(quantity) FROM orders`, []string{"GROUP BY ALL"}, nil},
		{"ISNULL", `SELECT ISNULL(region, 'none') FROM orders`, []string{"coalesce(x, fallback)"}, nil},
		{"ambiguous column", `SELECT customer_id FROM orders JOIN customers ON orders.customer_id = customers.customer_id`, []string{"Qualify the column"}, nil},
		{"text compared to a number", `SELECT * FROM customers WHERE customer_name = 1`, []string{"Conversion Error", "TRY_CAST"}, nil},
		{"DIV", `SELECT quantity DIV 2 FROM orders`, []string{"// divides integers"}, nil},
		{"LIMIT skip, count", `SELECT * FROM orders LIMIT 5, 10`, []string{"LIMIT count OFFSET skip"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.sql(t, tc.sql)
			if !r.Failed || r.Display.Kind != tools.KindError || r.Display.SQL != tc.sql {
				t.Fatalf("want a Failed error result, got failed=%v kind=%q:\n%s", r.Failed, r.Display.Kind, r.ForModel)
			}
			if !strings.HasPrefix(r.ForModel, "The query failed.\nError: ") || !strings.HasSuffix(r.ForModel, "Fix the query and try again.") {
				t.Fatalf("frame:\n%s", r.ForModel)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.ForModel, w) {
					t.Errorf("missing %q in:\n%s", w, r.ForModel)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(r.ForModel, w) {
					t.Errorf("should not contain %q:\n%s", w, r.ForModel)
				}
			}
			if r.Summary == "" || len([]rune(r.Summary)) > 100 || strings.Contains(r.Summary, "\n") {
				t.Errorf("summary %q", r.Summary)
			}
		})
	}
}

// A dataset column named like a keyword gets the quoting tip.
func TestRunSQLKeywordColumn(t *testing.T) {
	e := setup(t, sqltool.Config{})
	p := filepath.Join(t.TempDir(), "steps.csv")
	if err := os.WriteFile(p, []byte("order,label\n1,a\n2,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tooltest.Load(t, e.ws, p)
	r := e.sql(t, `SELECT order, label FROM steps`)
	if !r.Failed || strings.Count(r.ForModel, `write it in double quotes: "order"`) != 1 {
		t.Fatalf("%s", r.ForModel)
	}
	if r := e.sql(t, `SELECT "order", label FROM steps ORDER BY 1`); r.Failed || r.Display.Table.Rows != 2 {
		t.Fatalf("quoted keyword column: %s", r.ForModel)
	}
}

func TestRunSQLRefused(t *testing.T) {
	e := setup(t, sqltool.Config{})
	out := filepath.Join(t.TempDir(), "out.csv")
	for _, q := range []string{
		`DROP TABLE orders`,
		`COPY orders TO '` + out + `'`,
		`DELETE FROM orders`,
		`SELECT 1; DROP TABLE orders`,
		`CREATE TABLE x AS SELECT 1`,
	} {
		t.Run(q, func(t *testing.T) {
			_, gerr := e.ws.Query.Run(context.Background(), q, query.Limits{})
			var refused *guard.RefusedError
			if !errors.As(gerr, &refused) {
				t.Fatalf("the guard did not refuse it: %v", gerr)
			}
			r := e.sql(t, q)
			if !r.Failed || !strings.Contains(r.ForModel, refused.Reason) || !strings.Contains(r.ForModel, "Only SELECT queries are allowed") {
				t.Fatalf("failed=%v:\n%s", r.Failed, r.ForModel)
			}
			if r.Summary != "refused: "+refused.Reason && !strings.HasSuffix(r.Summary, "…") {
				t.Fatalf("summary %q", r.Summary)
			}
		})
	}
	if lines := e.rawLines(t, `SELECT count(*) FROM orders`); lines[0] != "40" {
		t.Fatalf("orders changed: %v rows", lines)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("COPY wrote %s", out)
	}
}

func TestRunSQLTimeout(t *testing.T) {
	e := setup(t, sqltool.Config{Timeout: 150 * time.Millisecond})
	start := time.Now()
	r := e.sql(t, `SELECT sum(a.range * b.range) FROM range(100000000) a, range(100000) b`)
	elapsed := time.Since(start)
	if !r.Failed || !strings.Contains(r.ForModel, "Simplify or aggregate") || !strings.Contains(r.ForModel, "150ms") {
		t.Fatalf("failed=%v:\n%s", r.Failed, r.ForModel)
	}
	if elapsed > 3*time.Second {
		t.Fatalf("took %s to stop", elapsed)
	}
	// The workspace stays usable.
	if r := e.sql(t, `SELECT count(*) AS n FROM orders`); r.Failed || !strings.Contains(r.ForModel, "\n40\n") {
		t.Fatalf("after timeout:\n%s", r.ForModel)
	}
}

// A cancelled run is the caller's doing: a Go error, not a result.
func TestRunSQLCancel(t *testing.T) {
	e := setup(t, sqltool.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := e.tool.Run(ctx, tooltest.Args(t, map[string]string{"sql": `SELECT sum(a.range * b.range) FROM range(100000000) a, range(100000) b`}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Fatalf("cancel took %s", time.Since(start))
	}
}

// A closed workspace is not the model's to fix: a Go error.
func TestRunSQLInfrastructureError(t *testing.T) {
	e := setup(t, sqltool.Config{})
	if err := e.ws.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := e.tool.Run(context.Background(), tooltest.Args(t, map[string]string{"sql": "SELECT 1"}))
	if err == nil {
		t.Fatalf("want a Go error on a closed workspace, got result %+v", r)
	}
}

func TestRunSQLArgs(t *testing.T) {
	e := setup(t, sqltool.Config{})
	tests := []struct {
		name   string
		raw    string
		failed bool
		want   string
	}{
		{"object", `{"sql": "SELECT 1 AS x", "purpose": "p"}`, false, "1 row × 1 column: x INTEGER"},
		{"string-wrapped JSON", `"{\"sql\": \"SELECT 2 AS x\"}"`, false, "\n2\n"},
		{"alias query", `{"query": "SELECT 3 AS x"}`, false, "\n3\n"},
		{"plain SQL string", `"SELECT 4 AS x"`, false, "\n4\n"},
		{"missing sql", `{"purpose": "p"}`, true, `Invalid arguments for run_sql: missing required argument "sql"`},
		{"unknown argument", `{"sql": "SELECT 1", "limit": 5}`, true, `unknown argument "limit"`},
		{"not an object", `[1, 2]`, true, "must be a JSON object"},
		{"empty statement", `{"sql": "-- nothing here"}`, true, "The query is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.run(t, json.RawMessage(tc.raw))
			if r.Failed != tc.failed || !strings.Contains(r.ForModel, tc.want) {
				t.Fatalf("failed=%v (want %v):\n%s\nwant it to contain %q", r.Failed, tc.failed, r.ForModel, tc.want)
			}
			if tc.failed && strings.HasPrefix(tc.want, "Invalid") && !strings.Contains(r.ForModel, "sql (string, required)") {
				t.Fatalf("does not name the expected arguments:\n%s", r.ForModel)
			}
		})
	}
}

func TestRunSQLSpec(t *testing.T) {
	e := setup(t, sqltool.Config{})
	s := e.tool.Spec()
	if s.Name != "run_sql" || len(s.Description) > 600 || !strings.Contains(s.Description, "30 rows") {
		t.Fatalf("spec %q (%d chars)", s.Description, len(s.Description))
	}
	var schema struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(s.Parameters, &schema); err != nil || len(schema.Required) != 1 || schema.Required[0] != "sql" {
		t.Fatalf("parameters %s: %v", s.Parameters, err)
	}
	if _, err := tools.NewSet(e.tool); err != nil {
		t.Fatal(err)
	}
}

// One tool serves parallel calls (the agent may run tool calls at once);
// run with -race.
func TestRunSQLConcurrent(t *testing.T) {
	e := setup(t, sqltool.Config{})
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for w := range 6 {
		wg.Go(func() {
			for i := range 8 {
				n := 1 + (w*8+i)%40
				q := fmt.Sprintf(`SELECT order_id FROM orders WHERE order_id <= %d ORDER BY 1`, n)
				r, err := e.tool.Run(context.Background(), json.RawMessage(fmt.Sprintf(`{"sql": %q}`, q)))
				switch {
				case err != nil:
					errs <- err.Error()
				case r.Failed || r.Display.Table.Rows != int64(n):
					errs <- fmt.Sprintf("%s: %s", q, r.ForModel)
				default:
					if p, err := e.store.Page(results.Ref(r.Display.Table.Ref), n-1, 5); err != nil || len(p.Rows) != 1 || p.Rows[0][0] != int64(n) {
						errs <- fmt.Sprintf("%s: last row %v, %v", q, p.Rows, err)
					}
				}
				if (w+i)%3 == 0 {
					r, err := e.tool.Run(context.Background(), json.RawMessage(`{"sql": "SELECT regoin FROM orders"}`))
					if err != nil || !r.Failed || !strings.Contains(r.ForModel, `Did you mean "region"?`) {
						errs <- fmt.Sprintf("bad column: %v %s", err, r.ForModel)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
}
