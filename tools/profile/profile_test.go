package profile_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/profile"
)

// open returns a workspace with the given files loaded.
func open(t testing.TB, files ...string) *workspace.Workspace {
	t.Helper()
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	for _, f := range files {
		if _, err := ws.Loader.Load(ctx, f, load.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func runProfile(t testing.TB, tool *profile.Tool, args string) (tools.Result, *profile.Profile) {
	t.Helper()
	res, err := tool.Run(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("Run(%s): %v", args, err)
	}
	if res.Failed {
		return res, nil
	}
	if res.Display.Kind != tools.KindProfile {
		t.Fatalf("display kind %q", res.Display.Kind)
	}
	var p profile.Profile
	if err := json.Unmarshal(res.Display.Data, &p); err != nil {
		t.Fatal(err)
	}
	return res, &p
}

func column(t *testing.T, p *profile.Profile, name string) profile.Column {
	t.Helper()
	for _, c := range p.Columns {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no column %s in profile", name)
	return profile.Column{}
}

func flagCodes(c profile.Column) []string {
	var out []string
	for _, f := range c.Flags {
		out = append(out, f.Code)
	}
	return out
}

// TestFlags: every flag is raised on the column of messy.csv built to
// raise it, and no flag at all on clean.csv.
func TestFlags(t *testing.T) {
	ws := open(t, filepath.Join("testdata", "messy.csv"), filepath.Join("testdata", "clean.csv"))
	tool := profile.New(ws, ws.Query)
	res, p := runProfile(t, tool, `{"table":"messy"}`)
	t.Log(res.ForModel)
	want := map[string]string{
		"order_id":   "duplicate_key",
		"empty_col":  "all_null",
		"const_col":  "constant",
		"sparse":     "mostly_null",
		"token":      "id_like",
		"price_text": "numbers_as_text",
		"when_text":  "dates_as_text",
		"amount":     "negative_values",
		"name":       "whitespace_padded",
		"comment":    "empty_strings",
	}
	for col, code := range want {
		c := column(t, p, col)
		if !slices.Contains(flagCodes(c), code) {
			t.Errorf("%s: flags %v, want %s", col, flagCodes(c), code)
		}
		if !strings.Contains(res.ForModel, "! "+code) {
			t.Errorf("ForModel lacks flag %s", code)
		}
	}
	// Each flag is raised by its own column only.
	for _, c := range p.Columns {
		for _, f := range flagCodes(c) {
			if f != want[c.Name] {
				t.Errorf("%s: unexpected flag %s", c.Name, f)
			}
		}
	}
	if c := column(t, p, "order_id"); !strings.Contains(c.Flags[0].Message, `"12" ×2`) || !strings.Contains(c.Flags[0].Message, `"5" ×2`) {
		t.Errorf("duplicate_key message lacks the repeated ids: %s", c.Flags[0].Message)
	}
	if c := column(t, p, "price_text"); !strings.Contains(c.Flags[0].Message, `"N/A"`) {
		t.Errorf("numbers_as_text message lacks the offending value: %s", c.Flags[0].Message)
	}
	if c := column(t, p, "amount"); c.Outliers == nil || c.Outliers.Count < 1 {
		t.Errorf("amount outliers = %+v, want the 10000 (and the negatives) counted", c.Outliers)
	}

	res, p = runProfile(t, tool, `{"table":"clean"}`)
	t.Log(res.ForModel)
	for _, c := range p.Columns {
		if len(c.Flags) > 0 {
			t.Errorf("clean.%s flagged: %+v", c.Name, c.Flags)
		}
	}
	if strings.Contains(res.ForModel, "!") {
		t.Errorf("clean profile shows flags:\n%s", res.ForModel)
	}
}

// TestStatistics checks the figures against values computed here from
// the CSV file itself.
func TestStatistics(t *testing.T) {
	path := filepath.Join("testdata", "clean.csv")
	ws := open(t, path)
	_, p := runProfile(t, profile.New(ws, ws.Query), `{"table":"clean"}`)
	if p.Rows != 40 || p.Approx {
		t.Fatalf("rows %d approx %v", p.Rows, p.Approx)
	}
	records := readCSV(t, path)
	for _, name := range []string{"amount", "qty", "n"} {
		vals := numbers(t, records, name)
		c := column(t, p, name)
		checkNumbers(t, c, vals)
	}
	region := column(t, p, "region")
	if region.Distinct != 4 || len(region.Top) != 4 || region.Top[0].Count != 10 {
		t.Errorf("region: distinct %d top %+v", region.Distinct, region.Top)
	}
	day := column(t, p, "day")
	if day.Kind != "time" || day.Min != "2024-01-01" || day.Max != "2024-02-09" || day.Distinct != 40 {
		t.Errorf("day: %+v", day)
	}
	active := column(t, p, "active")
	trues := 0
	for _, r := range records[1:] {
		if r[8] == "true" {
			trues++
		}
	}
	if active.Trues == nil || *active.Trues != int64(trues) {
		t.Errorf("active trues = %v, want %d", active.Trues, trues)
	}
}

func checkNumbers(t *testing.T, c profile.Column, vals []float64) {
	t.Helper()
	slices.Sort(vals)
	mean, sd := meanSD(vals)
	q := func(p float64) float64 { // quantile_cont: linear interpolation
		pos := p * float64(len(vals)-1)
		lo := math.Floor(pos)
		hi := math.Ceil(pos)
		return vals[int(lo)] + (vals[int(hi)]-vals[int(lo)])*(pos-lo)
	}
	near := func(what string, got, want float64) {
		if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("%s %s = %v, want %v", c.Name, what, got, want)
		}
	}
	if c.Mean == nil || c.Stddev == nil || c.Quantiles == nil {
		t.Fatalf("%s: missing stats %+v", c.Name, c)
	}
	near("mean", *c.Mean, mean)
	near("stddev", *c.Stddev, sd)
	near("min", c.Min.(float64), vals[0])
	near("max", c.Max.(float64), vals[len(vals)-1])
	near("p05", c.Quantiles.P05, q(0.05))
	near("p25", c.Quantiles.P25, q(0.25))
	near("median", c.Quantiles.Median, q(0.5))
	near("p75", c.Quantiles.P75, q(0.75))
	near("p95", c.Quantiles.P95, q(0.95))
	iqr := q(0.75) - q(0.25)
	lo, hi := q(0.25)-1.5*iqr, q(0.75)+1.5*iqr
	out := 0
	for _, v := range vals {
		if v < lo || v > hi {
			out++
		}
	}
	if c.Outliers == nil || c.Outliers.Count != int64(out) {
		t.Errorf("%s outliers = %+v, want %d", c.Name, c.Outliers, out)
	}
}

func meanSD(v []float64) (float64, float64) {
	s := 0.0
	for _, x := range v {
		s += x
	}
	m := s / float64(len(v))
	ss := 0.0
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(v)-1))
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func numbers(t *testing.T, records [][]string, col string) []float64 {
	t.Helper()
	i := slices.Index(records[0], col)
	var out []float64
	for _, r := range records[1:] {
		f, err := strconv.ParseFloat(r[i], 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// TestOutliersAndNulls uses messy.csv's amount (one huge value, three
// negatives) and sparse (70% NULL).
func TestOutliersAndNulls(t *testing.T) {
	path := filepath.Join("testdata", "messy.csv")
	ws := open(t, path)
	_, p := runProfile(t, profile.New(ws, ws.Query), `{"table":"messy","columns":["amount","sparse"]}`)
	if len(p.Columns) != 2 {
		t.Fatalf("%d columns profiled, want 2", len(p.Columns))
	}
	checkNumbers(t, column(t, p, "amount"), numbers(t, readCSV(t, path), "amount"))
	sparse := column(t, p, "sparse")
	if sparse.Nulls != 28 || sparse.NullPct != 70 {
		t.Errorf("sparse nulls %d (%v%%), want 28 (70%%)", sparse.Nulls, sparse.NullPct)
	}
	if a := column(t, p, "amount"); *a.Negatives != 3 {
		t.Errorf("negatives = %d, want 3", *a.Negatives)
	}
}

// TestLargeTableIsApproximate profiles a table above the exact limit:
// the figures are estimates, said so, and close to the truth.
func TestLargeTableIsApproximate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.csv")
	var b strings.Builder
	b.WriteString("id,v,grp\n")
	const n = 250_000
	for i := range n {
		fmt.Fprintf(&b, "%d,%d,g%d\n", i, i%1000, i%7)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := open(t, path)
	res, p := runProfile(t, profile.New(ws, ws.Query), `{"table":"big"}`)
	t.Log(res.ForModel)
	if !p.Approx || !strings.Contains(res.ForModel, "approx.") {
		t.Errorf("approx %v; ForModel:\n%s", p.Approx, res.ForModel)
	}
	v := column(t, p, "v")
	// Quantiles are estimates; a distinct count this small is then counted exactly.
	if math.Abs(v.Quantiles.Median-499.5) > 15 || v.Distinct != 1000 || v.DistinctApprox {
		t.Errorf("v median %v distinct %d (approx %v), want ≈499.5 and exactly 1000", v.Quantiles.Median, v.Distinct, v.DistinctApprox)
	}
	id := column(t, p, "id")
	if id.Distinct != n || len(id.Flags) != 0 {
		t.Errorf("id distinct %d (exact for a key), flags %+v", id.Distinct, id.Flags)
	}
	if g := column(t, p, "grp"); len(g.Top) != 7 {
		t.Errorf("grp top %+v", g.Top)
	}
}

func TestFailures(t *testing.T) {
	ws := open(t, filepath.Join("testdata", "clean.csv"))
	tool := profile.New(ws, ws.Query)
	cases := []struct{ name, args, want string }{
		{"missing table", `{}`, `missing required argument "table". Expected arguments: table (string, required)`},
		{"not an object", `42`, `Invalid arguments for profile_data`},
		{"unknown table", `{"table":"claen"}`, `No dataset is called "claen"; datasets are: clean. Did you mean "clean"?`},
		{"unknown column", `{"table":"clean","columns":["amount","regoin"]}`, `clean has no column "regoin" (did you mean "region"?); its columns are: id, day, region`},
		{"bad columns", `{"table":"clean","columns":{"a":1}}`, `argument "columns" must be`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _ := runProfile(t, tool, c.args)
			if !res.Failed || !strings.Contains(res.ForModel, c.want) {
				t.Errorf("failed %v, ForModel %q, want it to contain %q", res.Failed, res.ForModel, c.want)
			}
		})
	}
}

func TestLenientArguments(t *testing.T) {
	ws := open(t, filepath.Join("testdata", "clean.csv"))
	tool := profile.New(ws, ws.Query)
	for _, args := range []string{`"{\"table\":\"CLEAN\",\"columns\":\"region, qty\"}"`, `{"table":"main.clean","columns":["Region","qty"]}`} {
		_, p := runProfile(t, tool, args)
		if p == nil || len(p.Columns) != 2 || p.Columns[0].Name != "region" {
			t.Errorf("%s: profile %+v", args, p)
		}
	}
}

func TestCancel(t *testing.T) {
	ws := open(t, filepath.Join("testdata", "clean.csv"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := profile.New(ws, ws.Query).Run(ctx, json.RawMessage(`{"table":"clean"}`)); err == nil {
		t.Fatal("no error after cancel")
	}
}

// TestEmptyTable profiles a table with columns and no rows, one of them
// with a quote in its name.
func TestEmptyTable(t *testing.T) {
	ws := open(t, filepath.Join("testdata", "empty.csv"))
	res, p := runProfile(t, profile.New(ws, ws.Query), `{"table":"empty"}`)
	if p == nil {
		t.Fatalf("failed: %s", res.ForModel)
	}
	if p.Rows != 0 || len(p.Columns) != 3 || p.Columns[1].Name != `weird "name"` {
		t.Fatalf("profile %+v", p)
	}
	for _, c := range p.Columns {
		if len(c.Flags) != 0 || c.Quantiles != nil || c.Outliers != nil {
			t.Errorf("%s: %+v", c.Name, c)
		}
	}
	if !strings.HasPrefix(res.ForModel, "empty: 0 rows") {
		t.Errorf("ForModel %q", res.ForModel)
	}
}
