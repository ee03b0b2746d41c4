package validate

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/results"
)

// Verdicts.
const (
	Supported    = "supported"
	Weak         = "weak"
	Contradicted = "contradicted"
	CannotCheck  = "cannot_check"
)

// Check statuses.
const (
	Pass    = "pass"
	Warn    = "warn" // makes the verdict weak
	Fail    = "fail" // makes it contradicted
	Info    = "info"
	Skipped = "skipped"
)

// Thresholds.
const (
	smallSample    = 30 // rows behind a group below which it is weak evidence
	tinySample     = 10
	minForOutliers = 8 // values needed to judge outliers
	largestSubs    = 6 // subgroups compared
	maxResultRows  = 1000
	maxCells       = 10000
	autoCandidates = 3
	maxCandidateN  = 12 // most distinct values of an automatic subgroup column
)

// Verdict is the display payload of validate_finding.
type Verdict struct {
	Finding    string      `json:"finding"`
	Verdict    string      `json:"verdict"`
	Reasons    []string    `json:"reasons"`
	Rows       int64       `json:"rows"` // rows of the query's result
	Comparison *Comparison `json:"comparison,omitempty"`
	Checks     []Check     `json:"checks"`
	NotChecked []string    `json:"not_checked"`
}

// Comparison is the two groups a finding compares.
type Comparison struct {
	Group   string  `json:"group"`   // the result column holding the groups
	Measure string  `json:"measure"` // the result column compared
	A       string  `json:"a"`
	B       string  `json:"b"`
	ValueA  float64 `json:"value_a"`
	ValueB  float64 `json:"value_b"`
	RowsA   int64   `json:"rows_a,omitempty"` // rows behind each group, when known
	RowsB   int64   `json:"rows_b,omitempty"`
}

// Check is one test and its outcome.
type Check struct {
	Name      string     `json:"name"` // sample_size, nulls, outliers, subgroups
	Status    string     `json:"status"`
	Detail    string     `json:"detail"`
	By        string     `json:"by,omitempty"` // subgroups: the column
	Subgroups []Subgroup `json:"subgroups,omitempty"`
}

// Subgroup is the comparison within one value of another column.
type Subgroup struct {
	Value  string  `json:"value"`
	ValueA float64 `json:"value_a"`
	ValueB float64 `json:"value_b"`
	RowsA  int64   `json:"rows_a"`
	RowsB  int64   `json:"rows_b"`
	Holds  bool    `json:"holds"`
}

// validate runs the checks. A problem is a mistake in the arguments the
// model can fix; an error is the query failing (or worse).
func (t *Tool) validate(ctx context.Context, a args) (*Verdict, string, error) {
	res, err := t.run.Run(ctx, a.SQL, query.Limits{MaxRows: maxResultRows})
	if err != nil {
		return nil, "", err
	}
	v := &Verdict{Finding: a.Finding, Rows: res.RowCount,
		NotChecked: []string{"statistical significance (no test is run)", "causation", "whether the query measures what the finding says"}}
	if res.RowCount == 0 {
		v.Verdict = CannotCheck
		v.Reasons = []string{"the query returns no rows, so it supports no comparison; if the finding is that nothing matches, say exactly that"}
		return v, "", nil
	}
	p, why, err := t.parse(ctx, a.SQL)
	if err != nil {
		return nil, "", err
	}
	if p != nil && len(p.node["select_list"].([]any)) != len(res.Columns) {
		p, why = nil, "its select list does not map onto its result columns"
	}
	keys := []int{}
	if p != nil {
		keys = p.keys
	}
	measure, problem := pickMeasure(a.Measure, res, keys, p)
	if problem != "" {
		return nil, problem, nil
	}
	cmp, problem := compare(a, res, keys, measure, p)
	if problem != "" {
		return nil, problem, nil
	}
	v.Comparison = cmp

	v.Checks = append(v.Checks, t.sampleSize(ctx, p, why, res, keys, cmp))
	v.Checks = append(v.Checks, nulls(res, keys, measure))
	v.Checks = append(v.Checks, outliers(res, keys, measure, p != nil && p.aggregate, cmp))
	subs, problem, err := t.subgroups(ctx, a, p, res, cmp)
	if err != nil || problem != "" {
		return nil, problem, err
	}
	v.Checks = append(v.Checks, subs...)
	if cmp == nil {
		v.NotChecked = append(v.NotChecked, "consistency within subgroups (needs a comparison: one row per group with a numeric measure)")
	} else if len(subs) == 0 {
		v.NotChecked = append(v.NotChecked, "consistency within subgroups (no candidate columns: name them in group_by)")
	}
	if why != "" {
		v.NotChecked = append(v.NotChecked, "the rows behind each group ("+why+")")
	}
	decide(v)
	return v, "", nil
}

// decide sets the verdict and its reasons from the checks.
func decide(v *Verdict) {
	var fails, warns, passes []string
	for _, c := range v.Checks {
		switch c.Status {
		case Fail:
			fails = append(fails, c.Detail)
		case Warn:
			warns = append(warns, c.Detail)
		case Pass:
			passes = append(passes, c.Detail)
		}
	}
	switch {
	case len(fails) > 0:
		v.Verdict = Contradicted
	case len(warns) > 0:
		v.Verdict = Weak
	case len(passes) > 0:
		v.Verdict = Supported
	default:
		v.Verdict = CannotCheck
		v.Reasons = []string{"none of the checks could run on this query; write it as one row per group with a numeric measure"}
		return
	}
	v.Reasons = append(append(append(v.Reasons, fails...), warns...), passes...)
}

// pickMeasure returns the result column the finding is about, or -1.
func pickMeasure(name string, res *query.Result, keys []int, p *parsed) (int, string) {
	cols := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		cols[i] = c.Name
	}
	if name != "" {
		for i, c := range cols {
			if strings.EqualFold(c, name) {
				if !numeric(res.Columns[i].Type) {
					return -1, fmt.Sprintf("measure %q is %s, not a number; name a numeric column of the result (columns: %s)", c, res.Columns[i].Type, strings.Join(cols, ", "))
				}
				return i, ""
			}
		}
		return -1, fmt.Sprintf("measure %q is not a column of the query result; columns are: %s", name, strings.Join(cols, ", "))
	}
	// The first numeric column that is neither a group, a count nor an
	// identifier; else the first numeric one.
	first := -1
	for i, c := range res.Columns {
		if slices.Contains(keys, i) || !numeric(c.Type) {
			continue
		}
		if first < 0 {
			first = i
		}
		if !isCount(p, i, c.Name) && !isID(c.Name) {
			return i, ""
		}
	}
	return first, ""
}

// isID reports a column named like an identifier.
func isID(name string) bool {
	n := strings.ToLower(name)
	return n == "id" || strings.HasSuffix(n, "_id") || strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "ID")
}

// isCount reports a count(*) column, which is rarely what a finding is
// about when the result has another measure.
func isCount(p *parsed, i int, name string) bool {
	if p != nil {
		items, _ := p.node["select_list"].([]any)
		if m, ok := items[i].(map[string]any); ok {
			fn, _ := m["function_name"].(string)
			return fn == "count_star" || fn == "count"
		}
	}
	n := strings.ToLower(name)
	return n == "n" || n == "count" || strings.HasPrefix(n, "count_") || strings.HasSuffix(n, "_count") || strings.HasPrefix(n, "num_")
}

// compare finds the two groups the finding compares: named in compare,
// else the two group values the finding mentions, else the highest and
// lowest. It needs one group column and a measure.
func compare(a args, res *query.Result, keys []int, measure int, p *parsed) (*Comparison, string) {
	usable := p != nil && p.aggregate && len(keys) == 1 && measure >= 0 && len(res.Rows) >= 2
	if !usable {
		if len(a.Compare) > 0 {
			return nil, `"compare" needs a query with one row per group and a numeric measure, e.g. SELECT treatment, avg(recovered) AS rate FROM t GROUP BY treatment`
		}
		return nil, ""
	}
	k := keys[0]
	vals := map[string]float64{}
	var order []string
	for _, r := range res.Rows {
		f, ok := results.Number(r[measure])
		if !ok {
			continue
		}
		s := keyText(r[k])
		if _, dup := vals[s]; !dup {
			order = append(order, s)
		}
		vals[s] = f
	}
	if len(order) < 2 {
		return nil, ""
	}
	c := &Comparison{Group: res.Columns[k].Name, Measure: res.Columns[measure].Name}
	switch {
	case len(a.Compare) == 2:
		for i, want := range a.Compare {
			found := ""
			for _, s := range order {
				if strings.EqualFold(s, want) {
					found = s
				}
			}
			if found == "" {
				return nil, fmt.Sprintf("compare value %q is not a group of %s; groups are: %s", want, c.Group, strings.Join(clipList(order, 20), ", "))
			}
			if i == 0 {
				c.A = found
			} else {
				c.B = found
			}
		}
	default:
		if m := mentioned(a.Finding, order); len(m) == 2 {
			c.A, c.B = m[0], m[1]
		} else {
			c.A, c.B = order[0], order[0]
			for _, s := range order {
				if vals[s] > vals[c.A] {
					c.A = s
				}
				if vals[s] < vals[c.B] {
					c.B = s
				}
			}
		}
	}
	if c.A == c.B {
		return nil, ""
	}
	c.ValueA, c.ValueB = vals[c.A], vals[c.B]
	return c, ""
}

// mentioned returns the groups the finding names, in the order it names
// them, when it names exactly two.
func mentioned(finding string, groups []string) []string {
	type hit struct {
		pos int
		g   string
	}
	var hits []hit
	for _, g := range groups {
		if strings.TrimSpace(g) == "" || g == "NULL" {
			continue
		}
		pat := `\b` + regexp.QuoteMeta(g) + `\b`
		if len([]rune(g)) >= 3 {
			pat = `(?i)` + pat
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			continue
		}
		if loc := re.FindStringIndex(finding); loc != nil {
			hits = append(hits, hit{loc[0], g})
		}
	}
	if len(hits) != 2 {
		return nil
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].pos < hits[j].pos })
	return []string{hits[0].g, hits[1].g}
}

// sampleSize counts the rows behind the result: per group for an
// aggregate (the query re-run with count(*) added), else the result's rows.
func (t *Tool) sampleSize(ctx context.Context, p *parsed, why string, res *query.Result, keys []int, cmp *Comparison) Check {
	c := Check{Name: "sample_size"}
	if p == nil {
		c.Status, c.Detail = Skipped, fmt.Sprintf("could not count the rows behind the result (%s); it has %d rows", why, res.RowCount)
		return c
	}
	if !p.aggregate {
		c.Detail = fmt.Sprintf("the finding rests on %d rows", res.RowCount)
		c.Status = Pass
		if res.RowCount < smallSample {
			c.Status = Warn
			c.Detail = fmt.Sprintf("the finding rests on only %d rows", res.RowCount)
		}
		return c
	}
	sql, err := t.rewrite(ctx, p, "")
	var counted *query.Result
	if err == nil {
		counted, err = t.run.Run(ctx, sql, query.Limits{MaxRows: maxResultRows})
	}
	if err != nil {
		c.Status, c.Detail = Skipped, "could not count the rows behind each group: "+firstLine(err.Error())
		return c
	}
	nc := len(counted.Columns) - 1
	type group struct {
		name string
		n    int64
	}
	var groups []group
	var total int64
	for _, r := range counted.Rows {
		var parts []string
		for _, k := range keys {
			parts = append(parts, keyText(r[k]))
		}
		n := toInt(r[nc])
		total += n
		groups = append(groups, group{strings.Join(parts, " / "), n})
	}
	if len(keys) == 0 {
		c.Status, c.Detail = Pass, fmt.Sprintf("%d rows behind the result", total)
		if total < smallSample {
			c.Status, c.Detail = Warn, fmt.Sprintf("only %d rows behind the result", total)
		}
		return c
	}
	if cmp != nil {
		for _, g := range groups {
			switch g.name {
			case cmp.A:
				cmp.RowsA = g.n
			case cmp.B:
				cmp.RowsB = g.n
			}
		}
		c.Detail = fmt.Sprintf("%s: %d rows, %s: %d rows (%d rows in all groups)", cmp.A, cmp.RowsA, cmp.B, cmp.RowsB, total)
		c.Status = Pass
		if small := min(cmp.RowsA, cmp.RowsB); small < smallSample {
			c.Status = Warn
			c.Detail = fmt.Sprintf("small sample: %s rests on %d rows and %s on %d; a difference between so few rows can be chance", cmp.A, cmp.RowsA, cmp.B, cmp.RowsB)
		}
		return c
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].n < groups[j].n })
	var small []string
	for _, g := range groups {
		if g.n < smallSample {
			small = append(small, fmt.Sprintf("%s (%d)", g.name, g.n))
		}
	}
	c.Status, c.Detail = Pass, fmt.Sprintf("%d rows behind %d groups; the smallest has %d", total, len(groups), groups[0].n)
	if len(small) > 0 {
		word := "small"
		if groups[0].n < tinySample {
			word = "very small"
		}
		c.Status, c.Detail = Warn, fmt.Sprintf("%s groups: %s rows", word, strings.Join(clipList(small, 6), ", "))
	}
	return c
}

// nulls looks for NULLs in the result: in the measure they weaken the
// finding; elsewhere they are worth knowing.
func nulls(res *query.Result, keys []int, measure int) Check {
	c := Check{Name: "nulls", Status: Pass, Detail: "no NULLs in the result"}
	var notes []string
	for i, col := range res.Columns {
		n := 0
		for _, r := range res.Rows {
			if r[i] == nil {
				n++
			}
		}
		if n == 0 {
			continue
		}
		switch {
		case i == measure:
			c.Status = Warn
			notes = append([]string{fmt.Sprintf("%s is NULL in %d of %d rows of the result", col.Name, n, len(res.Rows))}, notes...)
		case slices.Contains(keys, i):
			notes = append(notes, fmt.Sprintf("a NULL %s group is in the result", col.Name))
		default:
			notes = append(notes, fmt.Sprintf("%s is NULL in %d rows", col.Name, n))
		}
	}
	if len(notes) > 0 {
		if c.Status == Pass {
			c.Status = Info
		}
		c.Detail = strings.Join(notes, "; ")
	}
	if res.Truncated {
		c.Detail += fmt.Sprintf(" (first %d rows checked)", len(res.Rows))
	}
	return c
}

// outliers finds values beyond 1.5×IQR in the numeric result columns. In
// an aggregate result they are noted; in raw rows an outlying measure
// weakens a finding about it.
func outliers(res *query.Result, keys []int, measure int, aggregate bool, cmp *Comparison) Check {
	c := Check{Name: "outliers"}
	var notes []string
	judged := 0
	for i, col := range res.Columns {
		if slices.Contains(keys, i) || !numeric(col.Type) {
			continue
		}
		var vals []float64
		for _, r := range res.Rows {
			if f, ok := results.Number(r[i]); ok {
				vals = append(vals, f)
			}
		}
		if len(vals) < minForOutliers {
			continue
		}
		judged++
		sorted := slices.Clone(vals)
		slices.Sort(sorted)
		q1, q3 := quantile(sorted, 0.25), quantile(sorted, 0.75)
		lo, hi := q1-1.5*(q3-q1), q3+1.5*(q3-q1)
		var out []string
		for ri, r := range res.Rows {
			f, ok := results.Number(r[i])
			if !ok || (f >= lo && f <= hi) {
				continue
			}
			label := num(f)
			if len(keys) > 0 {
				label = keyText(res.Rows[ri][keys[0]]) + " (" + num(f) + ")"
			}
			out = append(out, label)
		}
		if len(out) == 0 {
			continue
		}
		note := fmt.Sprintf("%s has %d value(s) beyond the 1.5×IQR fences [%s, %s]: %s", col.Name, len(out), num(lo), num(hi), strings.Join(clipList(out, 5), ", "))
		if i == measure && !aggregate {
			c.Status = Warn
			note += "; an average over these rows leans on them"
		}
		if i == measure && cmp != nil {
			for _, o := range out {
				if strings.HasPrefix(o, cmp.A+" (") || strings.HasPrefix(o, cmp.B+" (") {
					note += "; the comparison involves an outlying group"
					break
				}
			}
		}
		notes = append(notes, note)
	}
	switch {
	case judged == 0:
		c.Status, c.Detail = Skipped, fmt.Sprintf("too few numeric values to judge outliers (need %d)", minForOutliers)
	case len(notes) == 0:
		c.Status, c.Detail = Pass, "no values beyond 1.5×IQR"
	default:
		if c.Status == "" {
			c.Status = Info
		}
		c.Detail = strings.Join(notes, "; ")
	}
	return c
}

// subgroups re-runs the comparison within the values of each candidate
// column. A column the model named that the query cannot group by is a
// problem for it to fix.
func (t *Tool) subgroups(ctx context.Context, a args, p *parsed, res *query.Result, cmp *Comparison) ([]Check, string, error) {
	if cmp == nil || p == nil {
		return nil, "", nil
	}
	keyItem := p.node["select_list"].([]any)[p.keys[0]]
	cands, problem, err := t.candidates(ctx, a.GroupBy, p, keyItem, res)
	if err != nil || problem != "" {
		return nil, problem, err
	}
	var checks []Check
	for _, cd := range cands {
		sql, err := t.rewrite(ctx, p, cd.expr)
		var cells *query.Result
		if err == nil {
			cells, err = t.run.Run(ctx, sql, query.Limits{MaxRows: maxCells})
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
			if cd.named {
				return nil, fmt.Sprintf("group_by %q cannot be added to the query's grouping: %s. Name a column of the tables in its FROM (qualify it as table.column when ambiguous).", cd.label, firstLine(err.Error())), nil
			}
			continue
		}
		checks = append(checks, simpson(cd.label, cells, p.keys[0], columnIndex(res, cmp.Measure), cmp))
	}
	return checks, "", nil
}

type candidate struct {
	label string // as shown: the column name
	expr  string // as added to the query
	named bool   // the model named it
}

// candidates are the model's group_by columns, or up to three
// low-cardinality columns of the query's tables that are neither the
// groups nor read by the measure.
func (t *Tool) candidates(ctx context.Context, named []string, p *parsed, keyItem any, res *query.Result) ([]candidate, string, error) {
	used := map[string]bool{}
	columnRefs(keyItem, used)
	items := p.node["select_list"].([]any)
	for _, it := range items {
		columnRefs(it, used)
	}
	var out []candidate
	for _, n := range named {
		parts := strings.Split(n, ".")
		q := make([]string, len(parts))
		for i, s := range parts {
			q[i] = duck.QuoteIdent(strings.Trim(strings.TrimSpace(s), `"`))
		}
		if isGroupColumn(parts[len(parts)-1], keyItem) {
			return nil, fmt.Sprintf("group_by %q is the column the groups are made of; name a different column that could confound the comparison", n), nil
		}
		out = append(out, candidate{label: n, expr: strings.Join(q, "."), named: true})
	}
	if len(named) > 0 || t.cat == nil {
		return out, "", nil
	}
	all, err := t.cat.Datasets(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("list datasets: %w", err)
	}
	type scored struct {
		candidate
		distinct int64
		order    int
	}
	var pool []scored
	for _, tb := range p.tables {
		for _, d := range all {
			if !strings.EqualFold(d.Name, tb.name) {
				continue
			}
			for ci, col := range d.Columns {
				if used[strings.ToLower(col.Name)] || col.Distinct < 2 || col.Distinct > maxCandidateN || !groupable(col.Type) {
					continue
				}
				expr := duck.QuoteIdent(col.Name)
				if len(p.tables) > 1 {
					expr = duck.QuoteIdent(tb.ref) + "." + expr
				}
				pool = append(pool, scored{candidate{label: col.Name, expr: expr}, col.Distinct, ci})
			}
		}
	}
	sort.SliceStable(pool, func(i, j int) bool { return pool[i].distinct < pool[j].distinct })
	seen := map[string]bool{}
	for _, s := range pool {
		if len(out) == autoCandidates {
			break
		}
		if !seen[strings.ToLower(s.label)] {
			seen[strings.ToLower(s.label)] = true
			out = append(out, s.candidate)
		}
	}
	return out, "", nil
}

func isGroupColumn(name string, keyItem any) bool {
	refs := map[string]bool{}
	columnRefs(keyItem, refs)
	return refs[strings.ToLower(strings.Trim(name, `" `))]
}

// simpson compares A and B within each of the largest subgroups. cells
// holds the query's columns, then the row count, then the subgroup value.
func simpson(by string, cells *query.Result, key, measure int, cmp *Comparison) Check {
	c := Check{Name: "subgroups", By: by}
	nCol, subCol := len(cells.Columns)-2, len(cells.Columns)-1
	type pair struct {
		va, vb       float64
		na, nb       int64
		hasA, hasB   bool
		value, order string
	}
	subs := map[string]*pair{}
	for _, r := range cells.Rows {
		k := keyText(r[key])
		if k != cmp.A && k != cmp.B {
			continue
		}
		f, ok := results.Number(r[measure])
		if !ok {
			continue
		}
		s := keyText(r[subCol])
		sp := subs[s]
		if sp == nil {
			sp = &pair{value: s}
			subs[s] = sp
		}
		if k == cmp.A {
			sp.va, sp.na, sp.hasA = f, toInt(r[nCol]), true
		} else {
			sp.vb, sp.nb, sp.hasB = f, toInt(r[nCol]), true
		}
	}
	var both []*pair
	var compared, covered int64
	for _, sp := range subs {
		compared += sp.na + sp.nb
		if sp.hasA && sp.hasB {
			both = append(both, sp)
		}
	}
	sort.Slice(both, func(i, j int) bool {
		if both[i].na+both[i].nb != both[j].na+both[j].nb {
			return both[i].na+both[i].nb > both[j].na+both[j].nb
		}
		return both[i].value < both[j].value
	})
	if len(both) > largestSubs {
		both = both[:largestSubs]
	}
	if len(both) < 2 {
		c.Status, c.Detail = Skipped, fmt.Sprintf("by %s: fewer than two subgroups hold both %s and %s", by, cmp.A, cmp.B)
		return c
	}
	overall := sign(cmp.ValueA - cmp.ValueB)
	var held, reversed []string
	thin := false // a reversal within a cell of very few rows
	for _, sp := range both {
		covered += sp.na + sp.nb
		s := sign(sp.va - sp.vb)
		c.Subgroups = append(c.Subgroups, Subgroup{Value: sp.value, ValueA: sp.va, ValueB: sp.vb, RowsA: sp.na, RowsB: sp.nb, Holds: s == overall})
		line := fmt.Sprintf("%s=%s: %s %s vs %s (%d / %d rows)", by, sp.value, cmp.Measure, num(sp.va), num(sp.vb), sp.na, sp.nb)
		switch {
		case s == overall:
			held = append(held, line)
		case s == -overall:
			reversed = append(reversed, line)
			thin = thin || min(sp.na, sp.nb) < tinySample
		}
	}
	rel := map[int]string{1: ">", -1: "<", 0: "="}
	head := fmt.Sprintf("overall %s %s %s on %s (%s vs %s)", cmp.A, rel[overall], cmp.B, cmp.Measure, num(cmp.ValueA), num(cmp.ValueB))
	share := ""
	if compared > 0 && covered < compared {
		share = fmt.Sprintf(" (covering %d%% of their rows)", covered*100/compared)
	}
	switch {
	case overall == 0:
		c.Status, c.Detail = Skipped, head+": no difference to test"
	case len(reversed) == len(both) && thin:
		c.Status = Warn
		c.Detail = fmt.Sprintf("%s, but %s %s %s within each of the %d largest %s subgroups — %s; some of these subgroups hold fewer than %d rows of a group, so the reversal may be chance",
			head, cmp.A, rel[-overall], cmp.B, len(both), by, strings.Join(reversed, "; "), tinySample)
	case len(reversed) == len(both):
		c.Status = Fail
		c.Detail = fmt.Sprintf("Simpson's paradox: %s, but %s %s %s within every one of the %d largest %s subgroups%s — %s. The overall difference comes from how %s is spread across %s; compare within %s instead",
			head, cmp.A, rel[-overall], cmp.B, len(both), by, share, strings.Join(reversed, "; "), cmp.Group, by, by)
	case len(reversed) > 0:
		c.Status = Warn
		c.Detail = fmt.Sprintf("%s, and in %d of the %d largest %s subgroups, but it reverses in %s", head, len(held), len(both), by, strings.Join(reversed, "; "))
	case len(held) == len(both):
		c.Status = Pass
		c.Detail = fmt.Sprintf("%s holds within each of the %d largest %s subgroups%s", head, len(both), by, share)
	default:
		c.Status = Info
		c.Detail = fmt.Sprintf("%s; some %s subgroups show no difference", head, by)
	}
	return c
}

func columnIndex(res *query.Result, name string) int {
	for i, c := range res.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func sign(f float64) int {
	switch {
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return 0
}

func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

func numeric(typ string) bool {
	t := strings.ToUpper(typ)
	switch t {
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "REAL":
		return true
	}
	return strings.HasPrefix(t, "DECIMAL")
}

func groupable(typ string) bool {
	t := strings.ToUpper(typ)
	return t != "DOUBLE" && t != "FLOAT" && t != "REAL" && !strings.ContainsAny(t, "[(") || strings.HasPrefix(t, "ENUM")
}

func keyText(v any) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprint(v)
}

func toInt(v any) int64 {
	f, _ := results.Number(v)
	return int64(f)
}

// num prints a number briefly.
func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	if math.Abs(f) >= 1e4 {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'g', 4, 64)
}

func clipList(l []string, n int) []string {
	if len(l) <= n {
		return l
	}
	return append(slices.Clone(l[:n]), fmt.Sprintf("… %d more", len(l)-n))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i > 0 {
		return s[:i]
	}
	return s
}

// text renders the verdict for the model.
func (v *Verdict) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Verdict: %s", v.Verdict)
	if len(v.Reasons) > 0 {
		fmt.Fprintf(&b, " — %s", v.Reasons[0])
	}
	b.WriteByte('\n')
	if c := v.Comparison; c != nil {
		fmt.Fprintf(&b, "Compared: %s %s vs %s on %s: %s vs %s", c.Group, c.A, c.B, c.Measure, num(c.ValueA), num(c.ValueB))
		if c.RowsA > 0 || c.RowsB > 0 {
			fmt.Fprintf(&b, " (%d / %d rows)", c.RowsA, c.RowsB)
		}
		b.WriteByte('\n')
	}
	for _, c := range v.Checks {
		name := c.Name
		if c.By != "" {
			name += " by " + c.By
		}
		fmt.Fprintf(&b, "- %s: %s — %s\n", name, c.Status, c.Detail)
	}
	fmt.Fprintf(&b, "Not checked: %s.", strings.Join(v.NotChecked, "; "))
	if v.Verdict == Contradicted {
		b.WriteString("\nDo not report the finding as stated; report the subgroup comparison instead.")
	}
	return b.String()
}
