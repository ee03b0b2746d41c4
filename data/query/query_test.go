package query_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/query"
)

// jsonRows is the result's rows as the app sends them.
func jsonRows(t *testing.T, res *query.Result) string {
	t.Helper()
	b, err := json.Marshal(res.Rows)
	if err != nil {
		t.Fatalf("rows do not encode to JSON: %v", err)
	}
	return string(b)
}

func colNames(res *query.Result) string {
	var n []string
	for _, c := range res.Columns {
		n = append(n, c.Name)
	}
	return strings.Join(n, ",")
}

func colTypes(res *query.Result) string {
	var n []string
	for _, c := range res.Columns {
		n = append(n, c.Type)
	}
	return strings.Join(n, ",")
}

// column returns one column's values, JSON-encoded.
func column(t *testing.T, res *query.Result, name string) string {
	t.Helper()
	for i, c := range res.Columns {
		if c.Name == name {
			var vals []any
			for _, r := range res.Rows {
				vals = append(vals, r[i])
			}
			b, _ := json.Marshal(vals)
			return string(b)
		}
	}
	t.Fatalf("no column %q in %s", name, colNames(res))
	return ""
}

// TestAcceptance runs real analytical statements, which must pass the
// guard and give the right answers.
func TestAcceptance(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name, sql string
		check     func(t *testing.T, res *query.Result)
	}{
		{"window", `SELECT id, sum(qty) OVER (PARTITION BY region ORDER BY id) AS running FROM sales WHERE region = 'north' ORDER BY id`,
			func(t *testing.T, res *query.Result) {
				want(t, jsonRows(t, res), `[[1,3],[2,4],[7,5],[12,10]]`)
			}},
		{"window-functions", `SELECT id, row_number() OVER w AS rn, rank() OVER (ORDER BY qty DESC) AS rk, lag(qty) OVER w AS prev,
				round(avg(qty) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), 2) AS avg3
			FROM sales WINDOW w AS (ORDER BY id) ORDER BY id LIMIT 3`,
			func(t *testing.T, res *query.Result) {
				want(t, jsonRows(t, res), `[[1,1,6,null,2],[2,2,11,3,3],[3,3,3,1,2.67]]`)
			}},
		{"cte", `WITH r AS (SELECT region, sum(qty) AS q FROM sales GROUP BY region) SELECT region FROM r WHERE q = (SELECT max(q) FROM r)`,
			func(t *testing.T, res *query.Result) { want(t, jsonRows(t, res), `[["east"]]`) }},
		{"recursive-cte", `WITH RECURSIVE f(n, x) AS (SELECT 1, 1 UNION ALL SELECT n + 1, x * 2 FROM f WHERE n < 10) SELECT max(n), max(x) FROM f`,
			func(t *testing.T, res *query.Result) { want(t, jsonRows(t, res), `[[10,512]]`) }},
		{"rollup", `SELECT region, product, sum(qty) AS q FROM sales GROUP BY ROLLUP (region, product) ORDER BY ALL`,
			func(t *testing.T, res *query.Result) {
				wantInt(t, res.RowCount, 15)
				want(t, fmt.Sprint(res.Rows[2]), `[east <nil> 12]`)
				want(t, fmt.Sprint(res.Rows[14]), `[<nil> <nil> 41]`)
			}},
		{"cube", `SELECT region, product, sum(qty) AS q FROM sales GROUP BY CUBE (region, product) HAVING region IS NULL ORDER BY ALL`,
			func(t *testing.T, res *query.Result) {
				want(t, jsonRows(t, res), `[[null,"apple",26],[null,"pear",9],[null,"plum",6],[null,null,41]]`)
			}},
		{"cube-count", `SELECT count(*) FROM (SELECT 1 FROM sales GROUP BY CUBE (region, product))`,
			func(t *testing.T, res *query.Result) { want(t, jsonRows(t, res), `[[18]]`) }},
		{"pivot-in-list", `PIVOT sales ON product IN ('apple', 'pear') USING sum(qty) GROUP BY region ORDER BY region`,
			func(t *testing.T, res *query.Result) {
				want(t, colNames(res), "region,apple,pear")
				want(t, jsonRows(t, res), `[["east",6,6],["north",8,1],["south",5,2],["west",7,null]]`)
			}},
		{"pivot-expanded", `PIVOT sales ON product USING sum(qty) GROUP BY region ORDER BY region`,
			func(t *testing.T, res *query.Result) {
				want(t, colNames(res), "region,apple,pear,plum")
				want(t, jsonRows(t, res), `[["east",6,6,null],["north",8,1,1],["south",5,2,2],["west",7,null,3]]`)
			}},
		{"pivot-expanded-in-cte", `WITH p AS (PIVOT sales ON region USING count(*) GROUP BY product) SELECT product, north FROM p ORDER BY product`,
			func(t *testing.T, res *query.Result) {
				want(t, jsonRows(t, res), `[["apple",2],["pear",1],["plum",1]]`)
			}},
		{"unpivot", `SELECT * FROM (UNPIVOT (SELECT id, qty::DOUBLE AS qty, price::DOUBLE AS price FROM sales WHERE id <= 2)
				ON qty, price INTO NAME k VALUE v) ORDER BY id, k`,
			func(t *testing.T, res *query.Result) {
				want(t, jsonRows(t, res), `[[1,"price",1.5],[1,"qty",3],[2,"price",2.25],[2,"qty",1]]`)
			}},
		{"unpivot-statement", `UNPIVOT (SELECT id, qty, 0 AS zero FROM sales WHERE id = 1) ON COLUMNS(* EXCLUDE (id)) INTO NAME k VALUE v`,
			func(t *testing.T, res *query.Result) { wantInt(t, res.RowCount, 2) }},
		{"qualify", `SELECT region, id, qty FROM sales QUALIFY row_number() OVER (PARTITION BY region ORDER BY qty DESC, id) = 1 ORDER BY region`,
			func(t *testing.T, res *query.Result) {
				want(t, jsonRows(t, res), `[["east",6,6],["north",12,5],["south",3,5],["west",9,7]]`)
			}},
		{"describe", `DESCRIBE sales`, func(t *testing.T, res *query.Result) {
			want(t, column(t, res, "column_name"), `["id","region","product","day","ts","qty","price"]`)
			want(t, column(t, res, "column_type"), `["INTEGER","VARCHAR","VARCHAR","DATE","TIMESTAMP","INTEGER","DECIMAL(10,2)"]`)
		}},
		{"describe-query", `DESCRIBE SELECT region, sum(qty) AS q FROM sales GROUP BY region`, func(t *testing.T, res *query.Result) {
			want(t, column(t, res, "column_name"), `["region","q"]`)
		}},
		{"summarize", `SUMMARIZE sales`, func(t *testing.T, res *query.Result) {
			wantInt(t, res.RowCount, 7)
			want(t, column(t, res, "count"), `[12,12,12,12,12,12,12]`)
			want(t, column(t, res, "max")[:13], `["12","west",`)
		}},
		{"show-tables", `SHOW TABLES`, func(t *testing.T, res *query.Result) {
			want(t, jsonRows(t, res), `[["pk"],["quotes"],["sales"],["t"],["trades"],["v_t"]]`)
		}},
		{"show-table", `SHOW sales`, func(t *testing.T, res *query.Result) { wantInt(t, res.RowCount, 7) }},
		{"from-first", `FROM sales SELECT id WHERE qty > 5 ORDER BY id`,
			func(t *testing.T, res *query.Result) { want(t, jsonRows(t, res), `[[6],[9]]`) }},
		{"from-only", `FROM sales`, func(t *testing.T, res *query.Result) {
			wantInt(t, res.RowCount, 12)
			want(t, colNames(res), "id,region,product,day,ts,qty,price")
		}},
		{"table", `TABLE v_t`, func(t *testing.T, res *query.Result) { wantInt(t, res.RowCount, 5) }},
		{"values", `VALUES (1, 'a'), (2, 'b')`,
			func(t *testing.T, res *query.Result) { want(t, jsonRows(t, res), `[[1,"a"],[2,"b"]]`) }},
		{"set-operation", `(SELECT 1 AS x) UNION ALL (SELECT 2) ORDER BY x DESC`,
			func(t *testing.T, res *query.Result) { want(t, jsonRows(t, res), `[[2],[1]]`) }},
		{"explain", `EXPLAIN SELECT region, sum(qty) FROM sales GROUP BY region`, func(t *testing.T, res *query.Result) {
			want(t, colNames(res), "explain_key,explain_value")
			want(t, fmt.Sprint(res.Rows[0][0]), "physical_plan")
			if !strings.Contains(fmt.Sprint(res.Rows[0][1]), "HASH_GROUP_BY") {
				t.Errorf("plan without HASH_GROUP_BY: %v", res.Rows[0][1])
			}
		}},
		{"explain-analyze", `EXPLAIN ANALYZE SELECT count(*) FROM sales`, func(t *testing.T, res *query.Result) {
			want(t, fmt.Sprint(res.Rows[0][0]), "analyzed_plan")
		}},
		{"explain-options", `EXPLAIN (FORMAT json) SELECT 1`, func(t *testing.T, res *query.Result) { wantInt(t, res.RowCount, 1) }},
		{"pragma-table-info", `PRAGMA table_info('sales')`, func(t *testing.T, res *query.Result) {
			want(t, column(t, res, "name"), `["id","region","product","day","ts","qty","price"]`)
		}},
		{"loaded-dataset", `SELECT * FROM read_csv('{IMP}/loaded.csv') ORDER BY a`, func(t *testing.T, res *query.Result) {
			want(t, colTypes(res), "BIGINT,VARCHAR")
			want(t, jsonRows(t, res), `[[1,"x"],[2,"y"],[3,"z"]]`)
		}},
		{"loaded-dataset-replacement-scan", `SELECT count(*) FROM '{IMP}/sales.csv'`,
			func(t *testing.T, res *query.Result) { want(t, jsonRows(t, res), `[[12]]`) }},
		{"loaded-dataset-glob", `SELECT count(*) FROM read_csv('{IMP}/*.csv', union_by_name = true)`,
			func(t *testing.T, res *query.Result) { want(t, jsonRows(t, res), `[[15]]`) }},
		{"loaded-dataset-text", `SELECT size FROM read_text('{IMP}/loaded.csv')`,
			func(t *testing.T, res *query.Result) { want(t, jsonRows(t, res), `[[16]]`) }},
		{"strings-regexp-dates", `SELECT upper(region), regexp_extract('order-123-x', '\d+'), regexp_replace(product, 'p+', 'P'),
				strftime(day, '%Y/%m/%d'), date_trunc('month', ts), datediff('day', DATE '2024-01-01', day), split_part('a,b,c', ',', 2),
				length('héllo'), day + INTERVAL 1 MONTH, extract('dow' FROM day), concat_ws('-', region, product)
			FROM sales WHERE id = 1`,
			func(t *testing.T, res *query.Result) {
				want(t, jsonRows(t, res), `[["NORTH","123","aPle","2024/01/02","2024-01-01 00:00:00",1,"b",5,"2024-02-02 00:00:00",2,"north-apple"]]`)
			}},
		{"sample-rows", `SELECT count(*) FROM (SELECT * FROM range(1000) USING SAMPLE 10 ROWS)`,
			func(t *testing.T, res *query.Result) { want(t, jsonRows(t, res), `[[10]]`) }},
		{"sample-percent", `SELECT count(*) <= 12 FROM sales USING SAMPLE 50 PERCENT (bernoulli, 42)`,
			func(t *testing.T, res *query.Result) { want(t, jsonRows(t, res), `[[true]]`) }},
		{"asof-join", `SELECT t.id, q.price FROM trades t ASOF JOIN quotes q ON t.sym = q.sym AND t.ts >= q.ts ORDER BY t.id`,
			func(t *testing.T, res *query.Result) { want(t, jsonRows(t, res), `[[1,10],[2,11],[3,20]]`) }},
		{"asof-left-join", `SELECT t.id, q.price FROM trades t ASOF LEFT JOIN quotes q ON t.sym = q.sym AND t.ts >= q.ts ORDER BY t.id`,
			func(t *testing.T, res *query.Result) { want(t, jsonRows(t, res), `[[1,10],[2,11],[3,20],[4,null]]`) }},
		{"lists-structs", `SELECT list_sum([1, 2, 3]), [1, 2, 3][2], list_transform([1, 2], x -> x * 10), {'a': 1, 'b': 'x'}.b,
				struct_pack(k := 1), list(product ORDER BY id)[1:2], unnest([1, 2])
			FROM sales WHERE region = 'west' GROUP BY ALL`,
			func(t *testing.T, res *query.Result) {
				want(t, jsonRows(t, res), `[[6,2,[10,20],"x",{"k":1},["apple","plum"],1],[6,2,[10,20],"x",{"k":1},["apple","plum"],2]]`)
			}},
		{"aggregates-decimal", `SELECT sum(price * qty) AS revenue, sum(qty) AS q, avg(price)::DECIMAL(10,3) AS p FROM sales`,
			func(t *testing.T, res *query.Result) {
				want(t, colTypes(res), "DECIMAL(38,2),HUGEINT,DECIMAL(10,3)")
				want(t, jsonRows(t, res), `[[76.4,41,2.063]]`)
			}},
		{"decimals-exact", `SELECT 12345678901234567.89::DECIMAL(38,2) AS big, -0.05::DECIMAL(10,2) AS small,
				12.50::DECIMAL(10,2) AS trailing, 7::DECIMAL(10,0) AS whole, -99999999999999999999999999999999999.999::DECIMAL(38,3) AS most,
				0.1::DECIMAL(18,1) + 0.2::DECIMAL(18,1) AS tenths, 0::DECIMAL(5,2) AS zero`,
			func(t *testing.T, res *query.Result) {
				want(t, jsonRows(t, res), `[["12345678901234567.89",-0.05,12.5,7,"-99999999999999999999999999999999999.999",0.3,0]]`)
			}},
		{"histogram", `SELECT bin, count FROM histogram(sales, qty, bin_count := 3) ORDER BY bin`,
			func(t *testing.T, res *query.Result) {
				want(t, fmt.Sprint(res.Rows), `[[2 < x <= 4 3] [4 < x <= 6 3] [6 < x <= 8 1] [x <= 2 5]]`)
			}},
		{"catalog", `SELECT table_name, estimated_size FROM duckdb_tables() WHERE table_name = 'sales'`,
			func(t *testing.T, res *query.Result) { want(t, fmt.Sprint(res.Rows[0][0]), "sales") }},
		{"trailing-semicolon-and-comment", "-- revenue by region\nSELECT region FROM sales /* all */ GROUP BY region ORDER BY region;;\n",
			func(t *testing.T, res *query.Result) {
				want(t, jsonRows(t, res), `[["east"],["north"],["south"],["west"]]`)
			}},
		{"unicode", "SELECT 'é;ü' AS \"ç\", '\u00a0' AS nbsp,\u00a0'日本' AS j",
			func(t *testing.T, res *query.Result) {
				want(t, colNames(res), "ç,nbsp,j")
				want(t, jsonRows(t, res), `[["é;ü","`+"\u00a0"+`","日本"]]`)
			}},
		{"dollar-and-escape-strings", `SELECT $$it's; fine$$ AS a, E'tab\there' AS b, 'semi;colon' AS c`,
			func(t *testing.T, res *query.Result) {
				want(t, jsonRows(t, res), `[["it's; fine","tab\there","semi;colon"]]`)
			}},
		{"types", `SELECT DATE '2024-01-02' AS d, TIMESTAMP '2024-01-02 03:04:05.123456' AS ts, TIMESTAMPTZ '2024-01-02 03:04:05+00' AS tstz,
				TIME '12:34:56.5' AS tm, 12.34::DECIMAL(10,2) AS dec, 170141183460469231731687303715884105727::HUGEINT AS huge,
				-170141183460469231731687303715884105727::HUGEINT AS nhuge, 12::HUGEINT AS small_huge, 18446744073709551615::UBIGINT AS ubig,
				'NaN'::DOUBLE AS nan, 'inf'::DOUBLE AS inf, '-inf'::FLOAT AS ninf, '\xAA\xBB'::BLOB AS b, 'abc'::BLOB AS b2,
				[1, 2, 3] AS l, {'a': 1, 'b': 'x'} AS s, INTERVAL '1 year 2 months 3 days 04:05:06.5' AS iv, INTERVAL '-2 hours' AS niv,
				'00000000-0000-0000-0000-000000000001'::UUID AS u, true AS bo, NULL AS n, ['a', NULL] AS ls, 'hé' AS str,
				1.5::FLOAT AS fl, 42::TINYINT AS ti, 'x'::ENUM('x', 'y') AS en`,
			func(t *testing.T, res *query.Result) {
				want(t, colTypes(res), `DATE,TIMESTAMP,TIMESTAMPTZ,TIME,DECIMAL(10,2),HUGEINT,HUGEINT,HUGEINT,UBIGINT,DOUBLE,DOUBLE,FLOAT,BLOB,BLOB,INTEGER[],STRUCT("a" INTEGER, "b" VARCHAR),INTERVAL,INTERVAL,UUID,BOOLEAN,INTEGER,VARCHAR[],VARCHAR,FLOAT,TINYINT,ENUM`)
				want(t, jsonRows(t, res), `[["2024-01-02","2024-01-02 03:04:05.123456","2024-01-02 03:04:05Z","12:34:56.5",12.34,`+
					`"170141183460469231731687303715884105727","-170141183460469231731687303715884105727",12,"18446744073709551615",`+
					`"NaN","Infinity","-Infinity","\\xaabb","\\x616263",[1,2,3],{"a":1,"b":"x"},"1 year 2 months 3 days 04:05:06.5","-02:00:00",`+
					`"00000000-0000-0000-0000-000000000001",true,null,["a",null],"hé",1.5,42,"x"]]`)
			}},
		{"nested-types", `SELECT MAP {'k': 1, 'j': 2} AS m, [DATE '2024-01-02'] AS ld, [[1, 2], [3]] AS ll, [{'x': 1.5}] AS ls`,
			func(t *testing.T, res *query.Result) {
				want(t, colTypes(res), `MAP(VARCHAR, INTEGER),DATE[],INTEGER[][],STRUCT("x" DECIMAL(2,1))[]`)
				want(t, jsonRows(t, res), `[[{"j":2,"k":1},["2024-01-02"],[[1,2],[3]],[{"x":1.5}]]]`)
			}},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := f.run.Run(ctx, f.expand(c.sql), query.Limits{Timeout: 10 * time.Second})
			if err != nil {
				t.Fatalf("%s: %v", c.sql, err)
			}
			if res.Truncated {
				t.Errorf("unexpectedly truncated")
			}
			if int(res.RowCount) != len(res.Rows) {
				t.Errorf("row count %d, %d rows", res.RowCount, len(res.Rows))
			}
			c.check(t, res)
		})
	}
}

func want(t *testing.T, got, wanted string) {
	t.Helper()
	if got != wanted {
		t.Errorf("got  %s\nwant %s", got, wanted)
	}
}

func wantInt(t *testing.T, got int64, wanted int64) {
	t.Helper()
	if got != wanted {
		t.Errorf("got %d, want %d", got, wanted)
	}
}

// TestCaps checks the row and byte caps, and that the full row count is
// still reported.
func TestCaps(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wide := make([]string, 1500)
	for i := range wide {
		wide[i] = fmt.Sprintf("%d AS c%d", i, i)
	}
	if _, err := f.eng.DB().ExecContext(ctx, "CREATE TABLE wide AS SELECT "+strings.Join(wide, ", ")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, sql string
		lim       query.Limits
		rows      int
		total     int64
		truncated bool
		first     string
	}{
		{"default-cap", `SELECT * FROM range(5000)`, query.Limits{}, 1000, 5000, true, "[0]"},
		{"ordered", `SELECT * FROM range(5000) ORDER BY range DESC`, query.Limits{}, 1000, 5000, true, "[4999]"},
		{"exactly-at-cap", `SELECT * FROM range(1000)`, query.Limits{}, 1000, 1000, false, "[0]"},
		{"under-cap", `SELECT * FROM sales ORDER BY id`, query.Limits{MaxRows: 20}, 12, 12, false, ""},
		{"custom-cap", `SELECT id FROM sales ORDER BY id`, query.Limits{MaxRows: 10}, 10, 12, true, "[1]"},
		{"limit-in-query", `SELECT * FROM range(5000) LIMIT 1500`, query.Limits{}, 1000, 1500, true, "[0]"},
		{"expanded-pivot", `PIVOT (SELECT range AS id, range % 3 AS k, 1 AS v FROM range(5000)) ON k USING sum(v) ORDER BY id`,
			query.Limits{}, 1000, 5000, true, "[0 1 <nil> <nil>]"},
		{"pragma-not-wrapped", `PRAGMA table_info('wide')`, query.Limits{}, 1000, 1500, true, "[0 c0 INTEGER false <nil> false]"},
		{"show", `SHOW wide`, query.Limits{}, 1000, 1500, true, ""},
		{"describe", `DESCRIBE wide`, query.Limits{}, 1000, 1500, true, ""},
		{"summarize", `SUMMARIZE SELECT range FROM range(10)`, query.Limits{MaxRows: 1}, 1, 1, false, ""},
		{"bytes", `SELECT repeat('x', 1000) AS s FROM range(100)`, query.Limits{MaxBytes: 10_000}, 10, 100, true, ""},
		{"bytes-one-huge-row", `SELECT repeat('x', 100000) AS s FROM range(3)`, query.Limits{MaxBytes: 1000}, 1, 3, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := f.run.Run(ctx, c.sql, c.lim)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != c.rows || res.RowCount != c.total || res.Truncated != c.truncated {
				t.Errorf("%d rows of %d, truncated %v; want %d of %d, truncated %v", len(res.Rows), res.RowCount, res.Truncated, c.rows, c.total, c.truncated)
			}
			if c.first != "" && len(res.Rows) > 0 && fmt.Sprint(res.Rows[0]) != c.first {
				t.Errorf("first row %v, want %s", res.Rows[0], c.first)
			}
		})
	}
}

// slowSQL runs for minutes unless interrupted.
const slowSQL = `SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = -1`

// TestTimeout checks that a slow query is interrupted close to its limit
// and that the workspace stays usable.
func TestTimeout(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const limit = 500 * time.Millisecond
	for _, sql := range []string{
		slowSQL,
		`WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r`,
		`SELECT sleep_ms(5000)`,
		`PIVOT (SELECT a.range AS id, b.range % 3 AS k FROM range(100000) a, range(100000) b) ON k USING count(*)`,
	} {
		began := time.Now()
		_, err := f.run.Run(ctx, sql, query.Limits{Timeout: limit})
		took := time.Since(began)
		var te *query.TimeoutError
		if !errors.As(err, &te) || te.Limit != limit {
			t.Errorf("%s: want a *query.TimeoutError, got %v", sql, err)
		}
		if took > limit+time.Second {
			t.Errorf("%s: stopped after %s, limit %s", sql, took, limit)
		}
		t.Logf("%.40s… stopped after %s", sql, took.Round(time.Millisecond))
	}
	// Every pooled connection still works, inside its own read-only
	// transaction (a leftover transaction would fail BEGIN).
	for i := 0; i < 8; i++ {
		res, err := f.run.Run(ctx, `SELECT 42`, query.Limits{})
		if err != nil || jsonRows(t, res) != `[[42]]` {
			t.Fatalf("after timeouts: %v %v", res, err)
		}
	}
}

// TestCancel checks that cancelling the caller's context stops the query
// at once and reports context.Canceled.
func TestCancel(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(200 * time.Millisecond)
		cancel()
	}()
	began := time.Now()
	_, err := f.run.Run(ctx, slowSQL, query.Limits{Timeout: 30 * time.Second})
	took := time.Since(began)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("want context.Canceled, got %v", err)
	}
	if took > 1200*time.Millisecond {
		t.Errorf("cancel took %s", took)
	}
	if _, err := f.run.Run(context.Background(), `SELECT 1`, query.Limits{}); err != nil {
		t.Fatalf("after cancel: %v", err)
	}
	// An already cancelled context does not start anything.
	_, err = f.run.Run(ctx, `SELECT 1`, query.Limits{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: want context.Canceled, got %v", err)
	}
}

// TestErrors checks the error kinds callers tell apart.
func TestErrors(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, sql := range []string{"", "  ;; ", "-- just a comment", "/* nothing */"} {
		if _, err := f.run.Run(ctx, sql, query.Limits{}); !errors.Is(err, guard.ErrEmpty) {
			t.Errorf("%q: want ErrEmpty, got %v", sql, err)
		}
	}
	for _, sql := range []string{"SELECT * FROM missing_table", "SELEC 1", "SELECT nope FROM sales"} {
		_, err := f.run.Run(ctx, sql, query.Limits{})
		if err == nil || errors.Is(err, guard.ErrRefused) {
			t.Errorf("%q: want DuckDB's own error, got %v", sql, err)
		}
	}
}
