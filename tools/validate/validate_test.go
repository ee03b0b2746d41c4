package validate_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/validate"
)

// open returns a workspace with kidney.csv (the kidney-stone treatments
// of Charig et al., 1986: B recovers more patients overall, A more within
// both stone sizes) and shop.csv (West orders are larger than East ones
// in every product).
func open(t testing.TB) *workspace.Workspace {
	t.Helper()
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	for _, f := range []string{"kidney.csv", "shop.csv"} {
		if _, err := ws.Loader.Load(ctx, filepath.Join("testdata", f), load.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func check(t *testing.T, tool tools.Tool, args map[string]any) (tools.Result, *validate.Verdict) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := tool.Run(context.Background(), raw)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Log(res.ForModel)
	if res.Failed {
		return res, nil
	}
	if res.Display.Kind != tools.KindVerdict {
		t.Fatalf("display kind %q", res.Display.Kind)
	}
	var v validate.Verdict
	if err := json.Unmarshal(res.Display.Data, &v); err != nil {
		t.Fatal(err)
	}
	return res, &v
}

func findCheck(v *validate.Verdict, name, by string) *validate.Check {
	for i, c := range v.Checks {
		if c.Name == name && c.By == by {
			return &v.Checks[i]
		}
	}
	return nil
}

const kidneySQL = "SELECT treatment, avg(recovered) AS recovery_rate FROM kidney GROUP BY treatment ORDER BY treatment"

func TestSimpsonsParadox(t *testing.T) {
	ws := open(t)
	tool := validate.New(ws, ws.Query)
	for name, groupBy := range map[string]any{"named": []string{"stone_size"}, "automatic": nil} {
		t.Run(name, func(t *testing.T) {
			args := map[string]any{"finding": "Treatment B has a higher recovery rate than treatment A", "sql": kidneySQL}
			if groupBy != nil {
				args["group_by"] = groupBy
			}
			res, v := check(t, tool, args)
			if v == nil || v.Verdict != validate.Contradicted {
				t.Fatalf("verdict %+v, want contradicted", v)
			}
			c := v.Comparison
			if c == nil || c.A != "B" || c.B != "A" || c.RowsA != 350 || c.RowsB != 350 {
				t.Errorf("comparison %+v, want B vs A on 350 rows each", c)
			}
			sub := findCheck(v, "subgroups", "stone_size")
			if sub == nil || sub.Status != validate.Fail || len(sub.Subgroups) != 2 {
				t.Fatalf("stone_size check %+v", sub)
			}
			for _, s := range sub.Subgroups {
				if s.Holds || s.ValueA >= s.ValueB {
					t.Errorf("subgroup %+v: B should trail A within it", s)
				}
			}
			for _, want := range []string{"Verdict: contradicted", "Simpson's paradox", "stone_size=large", "stone_size=small", "recovery_rate 0.6875 vs 0.73 (80 / 263 rows)"} {
				if !strings.Contains(res.ForModel, want) {
					t.Errorf("ForModel lacks %q", want)
				}
			}
		})
	}
}

func TestSolidFinding(t *testing.T) {
	ws := open(t)
	_, v := check(t, validate.New(ws, ws.Query), map[string]any{
		"finding":  "West orders are larger than East orders",
		"sql":      "SELECT region, round(avg(amount), 2) AS avg_amount, count(*) AS orders FROM shop GROUP BY 1",
		"group_by": "product",
	})
	if v == nil || v.Verdict != validate.Supported {
		t.Fatalf("verdict %+v, want supported", v)
	}
	if c := v.Comparison; c.A != "West" || c.B != "East" || c.Measure != "avg_amount" || c.RowsA != 120 {
		t.Errorf("comparison %+v", c)
	}
	if s := findCheck(v, "subgroups", "product"); s == nil || s.Status != validate.Pass || len(s.Subgroups) != 3 {
		t.Errorf("product check %+v", s)
	}
	if s := findCheck(v, "sample_size", ""); s.Status != validate.Pass {
		t.Errorf("sample size %+v", s)
	}
}

func TestTinySample(t *testing.T) {
	ws := open(t)
	res, v := check(t, validate.New(ws, ws.Query), map[string]any{
		"finding": "West orders are larger than East orders",
		"sql":     "SELECT region, avg(amount) AS avg_amount FROM shop WHERE order_id % 40 = 0 GROUP BY region",
	})
	if v == nil || v.Verdict != validate.Weak {
		t.Fatalf("verdict %+v, want weak", v)
	}
	if s := findCheck(v, "sample_size", ""); s.Status != validate.Warn || !strings.Contains(s.Detail, "West rests on 3 rows") {
		t.Errorf("sample size %+v", s)
	}
	if !strings.Contains(res.ForModel, "small sample") {
		t.Errorf("ForModel does not say why")
	}
}

func TestShapes(t *testing.T) {
	ws := open(t)
	tool := validate.New(ws, ws.Query)
	cases := []struct {
		name    string
		args    map[string]any
		verdict string
		want    string
	}{
		{"group by alias, explicit compare", map[string]any{"finding": "A beats B", "sql": "SELECT treatment AS t, sum(recovered) * 1.0 / count(*) AS rate FROM kidney GROUP BY t", "compare": []string{"a", "b"}, "group_by": []string{"kidney.stone_size"}},
			validate.Contradicted, "overall A < B on rate"},
		{"group by all", map[string]any{"finding": "recovery differs by treatment", "sql": "SELECT treatment, avg(recovered) AS r FROM kidney GROUP BY ALL", "group_by": "stone_size"},
			validate.Contradicted, "Simpson's paradox"},
		{"scalar aggregate", map[string]any{"finding": "the overall recovery rate is 80%", "sql": "SELECT avg(recovered) FROM kidney"},
			validate.Supported, "700 rows behind the result"},
		{"raw rows", map[string]any{"finding": "some small-stone patients did not recover", "sql": "SELECT patient_id, treatment FROM kidney WHERE stone_size = 'small' AND recovered = 0 LIMIT 20"},
			validate.Weak, "only 20 rows"},
		{"empty result", map[string]any{"finding": "no patient has huge stones", "sql": "SELECT * FROM kidney WHERE stone_size = 'huge'"},
			validate.CannotCheck, "returns no rows"},
		{"nulls in the measure", map[string]any{"finding": "x", "sql": "SELECT region, avg(CASE WHEN product = 'none' THEN amount END) AS a, avg(amount) AS b FROM shop GROUP BY region", "measure": "a"},
			validate.Weak, "a is NULL in 2 of 2 rows"},
		{"outlying raw values", map[string]any{"finding": "amounts vary", "sql": "SELECT order_id, CASE WHEN order_id = 7 THEN 100000 ELSE amount END AS amount FROM shop"},
			validate.Weak, "beyond the 1.5×IQR fences"},
		{"many groups", map[string]any{"finding": "hospital matters", "sql": "SELECT hospital, stone_size, avg(recovered) FROM kidney GROUP BY ALL"},
			validate.Supported, "rows behind 6 groups"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, v := check(t, tool, c.args)
			if v == nil {
				t.Fatalf("failed: %s", res.ForModel)
			}
			if v.Verdict != c.verdict || !strings.Contains(res.ForModel, c.want) {
				t.Errorf("verdict %s, want %s with %q", v.Verdict, c.verdict, c.want)
			}
		})
	}
}

// TestJoin: the subgroup columns come from both joined tables, qualified
// by their aliases.
func TestJoin(t *testing.T) {
	ws := open(t)
	_, v := check(t, validate.New(ws, ws.Query), map[string]any{
		"finding": "B recovers more patients than A",
		"sql":     "SELECT k.treatment, avg(k.recovered) AS rate FROM kidney AS k JOIN shop AS s ON k.patient_id = s.order_id GROUP BY k.treatment",
	})
	if v == nil {
		t.Fatal("failed")
	}
	var by []string
	for _, c := range v.Checks {
		if c.Name == "subgroups" {
			by = append(by, c.By)
		}
	}
	if len(by) != 3 || !slices.Contains(by, "stone_size") || !slices.Contains(by, "region") {
		t.Errorf("subgroup checks by %v, want three including stone_size and region", by)
	}
}

// TestThinReversal: a reversal within subgroups of a handful of rows is
// reported as weak, not as a paradox.
func TestThinReversal(t *testing.T) {
	ws := open(t)
	_, v := check(t, validate.New(ws, ws.Query), map[string]any{
		"finding":  "B recovers more patients than A",
		"sql":      "SELECT treatment, avg(recovered) AS rate FROM kidney WHERE patient_id % 10 = 0 GROUP BY treatment",
		"group_by": "stone_size",
	})
	if v == nil {
		t.Fatal("failed")
	}
	s := findCheck(v, "subgroups", "stone_size")
	// Every subgroup reverses (37 vs 33 rows overall), but a cell holds fewer than 10 rows.
	if s == nil || s.Status != validate.Warn || !strings.Contains(s.Detail, "may be chance") || v.Verdict != validate.Weak {
		t.Errorf("verdict %s, stone_size check %+v", v.Verdict, s)
	}
}

func TestFailures(t *testing.T) {
	ws := open(t)
	tool := validate.New(ws, ws.Query)
	cases := []struct {
		name string
		args string
		want string
	}{
		{"missing arguments", `{"finding":"x"}`, `missing required argument "sql". Expected arguments: finding (string, required)`},
		{"three groups", `{"finding":"x","sql":"SELECT 1","compare":["A","B","C"]}`, `"compare" must name exactly two groups`},
		{"sql error", `{"finding":"x","sql":"SELECT treatmnt FROM kidney"}`, "The finding's SQL failed: Binder Error"},
		{"unknown measure", `{"finding":"x","sql":"` + kidneySQL + `","measure":"rate"}`, `measure "rate" is not a column of the query result; columns are: treatment, recovery_rate`},
		{"unknown compare", `{"finding":"x","sql":"` + kidneySQL + `","compare":["A","C"]}`, `compare value "C" is not a group of treatment; groups are: A, B`},
		{"bad group_by", `{"finding":"x","sql":"` + kidneySQL + `","group_by":["stone"]}`, `group_by "stone" cannot be added to the query's grouping`},
		{"group_by is the groups", `{"finding":"x","sql":"` + kidneySQL + `","group_by":["treatment"]}`, `is the column the groups are made of`},
		{"compare without groups", `{"finding":"x","sql":"SELECT avg(recovered) FROM kidney","compare":["A","B"]}`, `"compare" needs a query with one row per group`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := tool.Run(context.Background(), json.RawMessage(c.args))
			if err != nil {
				t.Fatal(err)
			}
			if !res.Failed || !strings.Contains(res.ForModel, c.want) {
				t.Errorf("failed %v, ForModel %q; want %q", res.Failed, res.ForModel, c.want)
			}
		})
	}
}

func TestArgumentsAsString(t *testing.T) {
	ws := open(t)
	inner, _ := json.Marshal(map[string]any{"finding": "B is better", "sql": kidneySQL, "group_by": "stone_size"})
	outer, _ := json.Marshal(string(inner))
	res, err := validate.New(ws, ws.Query).Run(context.Background(), outer)
	if err != nil || res.Failed || !strings.HasPrefix(res.ForModel, "Verdict: contradicted") {
		t.Fatalf("err %v, result %+v", err, res)
	}
}

func TestCancel(t *testing.T) {
	ws := open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := validate.New(ws, ws.Query).Run(ctx, json.RawMessage(`{"finding":"x","sql":"`+kidneySQL+`"}`)); err == nil {
		t.Fatal("no error after cancel")
	}
}
