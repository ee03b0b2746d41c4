package catalog

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loupeapp/loupe/data/duck"
)

// topLimit is how many frequent values a low-cardinality column keeps, and
// lowCardinality the most distinct values a column may have to get them.
const (
	topLimit       = 5
	lowCardinality = 50
	sampleLimit    = 3
	sampleLen      = 60
)

// Bounds of one profile. A query covers at most BatchColumns columns, so
// that its memory is bounded whatever the width of the table (the
// frequent values were once one GROUPING SETS over every column: nine
// thousand columns of a four-row file took DuckDB to 19 GiB). Each query
// on a very wide table pays a fixed cost that grows with its width
// (~0.2 s at 30,000 columns on a busy machine), hence batches of
// thousands, not tens. After DefaultBudget the columns not yet profiled
// are left without statistics (see Report).
const (
	BatchColumns  = 2048
	DefaultBudget = 30 * time.Second
)

// Skipped is a column Profile left without statistics, and why.
type Skipped struct {
	Column string
	Reason string
}

// Report is a profile's outcome: the row count, every column (those in
// Skipped with their names and types only) and the columns left out.
type Report struct {
	Rows    int64
	Columns []Column
	Skipped []Skipped

	done     map[*Column]bool // while profiling: the columns reached
	unstored bool             // the relation has no stored statistics (see ProfileView)
}

// Warning says which columns were left without statistics, for the
// dataset's warnings; "" when none were.
func (r Report) Warning() string {
	if len(r.Skipped) == 0 {
		return ""
	}
	byReason := map[string][]string{}
	var reasons []string
	for _, s := range r.Skipped {
		if byReason[s.Reason] == nil {
			reasons = append(reasons, s.Reason)
		}
		byReason[s.Reason] = append(byReason[s.Reason], s.Column)
	}
	parts := make([]string, len(reasons))
	for i, why := range reasons {
		names := byReason[why]
		shown := names
		if len(shown) > 5 {
			shown = shown[:5]
		}
		q := make([]string, len(shown))
		for j, n := range shown {
			q[j] = strconv.Quote(clip(n))
		}
		list := strings.Join(q, ", ")
		if len(names) > len(shown) {
			list += fmt.Sprintf(" and %d more", len(names)-len(shown))
		}
		parts[i] = fmt.Sprintf("%d column(s) have no statistics (%s): %s", len(names), why, list)
	}
	return strings.Join(parts, "; ")
}

// Profile computes the row count and per-column statistics of table (in
// schema main) on c, within DefaultBudget; see ProfileWithin.
func Profile(ctx context.Context, c Conn, table string) (int64, []Column, error) {
	r, err := ProfileWithin(ctx, c, table, DefaultBudget)
	return r.Rows, r.Columns, err
}

// ProfileWithin computes the row count and per-column statistics of table
// (in schema main) on c, BatchColumns columns per query, and stops
// starting batches after budget. Call it on committed data: inside the
// transaction that wrote the table DuckDB has no stored statistics yet,
// and every figure is computed the slow way. Each batch makes at most
// four passes: DuckDB's stored statistics, one aggregate, one GROUPING
// SETS for frequent values, and a few sample rows. Text columns with many
// distinct values get no min/max: it would cost a full scan of every
// string for a value nobody reads.
//
// A batch whose query fails is profiled column by column, and a column
// that fails on its own, or is not reached within budget, is left without
// statistics and listed in the report's Skipped: one odd column never
// fails a load. The error is ctx's when ctx ends (DuckDB is interrupted),
// or one that concerns the whole table (it cannot be described or
// counted).
func ProfileWithin(ctx context.Context, c Conn, table string, budget time.Duration) (Report, error) {
	cols, err := Describe(ctx, c, table)
	if err != nil {
		return Report{}, err
	}
	r := Report{Columns: cols}
	if len(cols) == 0 {
		return r, nil
	}
	ident := quoteIdent(table)
	if err := each(ctx, c, "SELECT count(*) FROM "+ident, nil, func(v []driver.Value) { r.Rows = num(v[0]) }); err != nil {
		return Report{}, fmt.Errorf("count rows of %s: %w", table, err)
	}
	return r.profile(ctx, c, ident, budget)
}

// ProfileView is ProfileWithin for a view over a file that the caller
// has just described (cols, as Describe gives them), such as the view a
// load makes of a small text file: it skips the lookup of the columns,
// counts the rows in the pass that computes the columns' statistics, and
// skips the pass over stored statistics, which DuckDB does not keep for
// a view over a file. Each query of such a view reads the file again, so
// at a few milliseconds a file the passes saved are most of the profile's
// cost. That pass reads every value of every column: a value the view
// cannot convert to its column's type fails it, and the columns are then
// in the report's Skipped (all of them, and Rows is -1, when no
// aggregate pass succeeded). cols is not changed; the report holds a
// copy.
func ProfileView(ctx context.Context, c Conn, view string, cols []Column, budget time.Duration) (Report, error) {
	r := Report{Rows: -1, Columns: make([]Column, len(cols)), unstored: true}
	for i, col := range cols {
		r.Columns[i] = Column{Name: col.Name, Type: col.Type}
	}
	if len(cols) == 0 {
		r.Rows = 0
		return r, nil
	}
	return r.profile(ctx, c, quoteIdent(view), budget)
}

// profile fills in r's columns, of the relation ident whose rows r
// counts, within budget.
func (r Report) profile(ctx context.Context, c Conn, ident string, budget time.Duration) (Report, error) {
	if budget <= 0 {
		budget = DefaultBudget
	}
	bctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	r.profileColumns(bctx, c, ident, r.Columns)
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	r.skipUnreached(r.Columns, budget)
	r.done = nil
	return r, nil
}

// profileColumns fills in the statistics of cols, columns of the relation
// ident, BatchColumns per query, until bctx ends; a column that fails on
// its own is recorded in r.Skipped. The columns it did not reach are left
// with no statistic and unmarked (see skipUnreached).
func (r *Report) profileColumns(bctx context.Context, c Conn, ident string, cols []Column) {
	if r.done == nil {
		r.done = map[*Column]bool{}
	}
	done := func(i int) { r.done[&cols[i]] = true }
	for lo := 0; lo < len(cols) && bctx.Err() == nil; lo += BatchColumns {
		hi := min(lo+BatchColumns, len(cols))
		err := profileBatch(bctx, c, ident, &r.Rows, cols[lo:hi], r.unstored)
		if err == nil {
			for i := lo; i < hi; i++ {
				done(i)
			}
			continue
		}
		// One column spoils the batch's query: profile them one by one.
		for i := lo; i < hi && bctx.Err() == nil; i++ {
			if cerr := profileBatch(bctx, c, ident, &r.Rows, cols[i:i+1], r.unstored); cerr == nil {
				done(i)
			} else if bctx.Err() == nil {
				r.skip(cols, i, "DuckDB could not compute them: "+firstLine(duckMsg(cerr)))
				done(i)
			}
		}
	}
}

// skipUnreached records the columns of cols profileColumns did not reach
// (out of time, possibly mid-batch) as left without statistics.
func (r *Report) skipUnreached(cols []Column, budget time.Duration) {
	for i := range cols {
		if !r.done[&cols[i]] {
			r.skip(cols, i, fmt.Sprintf("profiling stopped after %s, the time allowed", budget.Round(time.Second)))
		}
	}
}

// skip records column i as left without statistics, clearing what a
// failed pass may have half filled in.
func (r *Report) skip(cols []Column, i int, reason string) {
	c := cols[i]
	cols[i] = Column{Name: c.Name, Type: c.Type, Note: c.Note, Comment: c.Comment}
	r.Skipped = append(r.Skipped, Skipped{Column: c.Name, Reason: reason})
}

// profileBatch fills in the statistics of cols (a slice of the table's
// columns) in at most four queries; three when the relation has no
// stored statistics (unstored). *total is the relation's row count; a
// negative one is counted (with no stored statistics, the aggregate pass
// always runs).
func profileBatch(ctx context.Context, c Conn, ident string, total *int64, cols []Column, unstored bool) error {
	have := make([]stored, len(cols))
	if !unstored {
		have = storedStats(ctx, c, ident, cols)
	}
	if err := aggregate(ctx, c, ident, total, cols, have); err != nil {
		return err
	}
	if err := topValues(ctx, c, ident, *total, cols); err != nil {
		return err
	}
	return samples(ctx, c, ident, cols)
}

// duckMsg strips DuckDB's error-type prefix.
func duckMsg(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "Error: "); i >= 0 && i < 40 {
		msg = msg[i+len("Error: "):]
	}
	return msg
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip(s)
}

// Describe returns the columns and types of table (in schema main),
// without statistics, or none when there is no such table or view. It
// looks the table up by name (DESCRIBE), so its cost does not grow with
// the number of tables in the workspace as a scan of duckdb_columns()
// does; a missing table is a binder error, which leaves the caller's
// transaction usable.
func Describe(ctx context.Context, c Conn, table string) ([]Column, error) {
	q := "SELECT column_name, column_type FROM (DESCRIBE main." + quoteIdent(table) + ")"
	var cols []Column
	err := each(ctx, c, q, nil, func(v []driver.Value) {
		cols = append(cols, Column{Name: str(v[0]), Type: str(v[1])})
	})
	if err != nil {
		if strings.Contains(err.Error(), "Catalog Error") && strings.Contains(err.Error(), "does not exist") {
			return nil, nil
		}
		return nil, fmt.Errorf("describe %s: %w", table, err)
	}
	return cols, nil
}

var (
	approxUnique = regexp.MustCompile(`\[Approx Unique: (\d+)\]`)
	minMax       = regexp.MustCompile(`^\[Min: (.*), Max: (.*?)\]\[`)
	noNulls      = regexp.MustCompile(`\[Has Null: false`)
)

// stored is what DuckDB's own statistics already know about a column.
type stored struct {
	distinct, minMax, noNulls bool
}

// storedStats reads the statistics DuckDB keeps with a native table's
// storage (distinct-count estimate, min/max, whether NULLs occur) through
// the stats() function, so that the aggregate pass can skip them. Views
// over files have fewer and are computed instead. Text min/max are not
// taken from here: DuckDB keeps only a prefix of them.
func storedStats(ctx context.Context, c Conn, ident string, cols []Column) []stored {
	got := make([]stored, len(cols))
	parts := make([]string, len(cols))
	for i, col := range cols {
		parts[i] = "stats(" + quoteIdent(col.Name) + ")"
	}
	_ = each(ctx, c, "SELECT "+strings.Join(parts, ", ")+" FROM "+ident+" LIMIT 1", nil, func(v []driver.Value) {
		for i := range cols {
			st := str(v[i])
			if m := approxUnique.FindStringSubmatch(st); m != nil {
				if n, err := strconv.ParseInt(m[1], 10, 64); err == nil {
					cols[i].Distinct, got[i].distinct = n, true
				}
			}
			if m := minMax.FindStringSubmatch(st); m != nil && m[1] != "NULL" && !isText(cols[i].Type) && orderable(cols[i].Type) {
				lo, hi := m[1], m[2]
				cols[i].Min, cols[i].Max, got[i].minMax = &lo, &hi, true
			}
			got[i].noNulls = noNulls.MatchString(st)
		}
	})
	return got
}

// aggregate counts rows and NULLs and computes what storedStats lacked,
// in one pass; it sets *total when it is negative. Min/max of text
// columns come from topValues instead.
func aggregate(ctx context.Context, c Conn, ident string, total *int64, cols []Column, have []stored) error {
	parts := []string{"count(*)"}
	type slot struct{ col, kind int }
	var slots []slot
	add := func(expr string, col, kind int) {
		parts = append(parts, expr)
		slots = append(slots, slot{col, kind})
	}
	for i, col := range cols {
		q := quoteIdent(col.Name)
		if !have[i].noNulls {
			add("count("+q+")", i, 0)
		}
		if !have[i].minMax && orderable(col.Type) && !isText(col.Type) {
			add("min("+q+")::VARCHAR", i, 1)
			add("max("+q+")::VARCHAR", i, 2)
		}
		if !have[i].distinct {
			add("approx_count_distinct("+q+")", i, 3)
		}
	}
	if len(slots) == 0 {
		return nil
	}
	err := each(ctx, c, "SELECT "+strings.Join(parts, ", ")+" FROM "+ident, nil, func(v []driver.Value) {
		if *total < 0 {
			*total = num(v[0])
		}
		for k, s := range slots {
			x := v[k+1]
			switch s.kind {
			case 0:
				cols[s.col].Nulls = *total - num(x)
			case 1:
				cols[s.col].Min = strPtr(x)
			case 2:
				cols[s.col].Max = strPtr(x)
			case 3:
				cols[s.col].Distinct = num(x)
			}
		}
	})
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	for i := range cols {
		// The estimate can exceed the number of values; clamp it.
		if nonNull := *total - cols[i].Nulls; cols[i].Distinct > nonNull {
			cols[i].Distinct = nonNull
		}
	}
	return nil
}

func isText(typ string) bool {
	return typ == "VARCHAR" || strings.HasPrefix(typ, "ENUM")
}

// topValues fills Top for columns with few distinct values, in one pass.
func topValues(ctx context.Context, c Conn, ident string, total int64, cols []Column) error {
	var pick []int
	for i, col := range cols {
		if col.Distinct > 0 && col.Distinct <= lowCardinality && groupable(col.Type) {
			pick = append(pick, i)
		}
	}
	if len(pick) == 0 {
		return nil
	}
	// Two forms, each cheap where the other is not. A GROUPING SETS pays
	// a hash table per set, fixed costs that grew faster than the sets
	// (512 sets over four rows took 15 s, nine thousand 19 GiB), so it
	// gets at most groupingSets columns per query. One hash aggregate over
	// (column, value) pairs pays per value instead (four times the
	// GROUPING SETS' time on 10 M rows), and serves short tables, where
	// the per-query cost of a wide table dominates.
	var err error
	if total*int64(len(pick)) <= unnestValues {
		err = topByPairs(ctx, c, ident, cols, pick)
	} else {
		for lo := 0; lo < len(pick) && err == nil; lo += groupingSets {
			err = topBySets(ctx, c, ident, cols, pick[lo:min(lo+groupingSets, len(pick))])
		}
	}
	if err != nil {
		return fmt.Errorf("frequent values: %w", err)
	}
	for _, i := range pick {
		t := cols[i].Top
		if isText(cols[i].Type) && len(t) > 0 {
			lo, hi := t[0].Value, t[0].Value
			for _, v := range t {
				lo, hi = min(lo, v.Value), max(hi, v.Value)
			}
			cols[i].Min, cols[i].Max = strPtr(lo), strPtr(hi)
		}
		sort.Slice(t, func(a, b int) bool {
			if t[a].Count != t[b].Count {
				return t[a].Count > t[b].Count
			}
			return t[a].Value < t[b].Value
		})
		if len(t) > topLimit {
			cols[i].Top = t[:topLimit]
		}
	}
	return nil
}

// Bounds of the two forms of topValues.
const (
	unnestValues = 20_000_000
	groupingSets = 32
)

// topByPairs appends to Top of the columns pick with one hash aggregate
// over (column, value) pairs.
func topByPairs(ctx context.Context, c Conn, ident string, cols []Column, pick []int) error {
	idx := make([]string, len(pick))
	vals := make([]string, len(pick))
	for j, i := range pick {
		idx[j] = strconv.Itoa(j)
		vals[j] = quoteIdent(cols[i].Name) + "::VARCHAR"
	}
	query := "SELECT i, v, count(*) FROM (SELECT unnest([" + strings.Join(idx, ", ") + "]) AS i, unnest([" + strings.Join(vals, ", ") + "]) AS v FROM " + ident +
		") WHERE v IS NOT NULL GROUP BY i, v"
	return each(ctx, c, query, nil, func(v []driver.Value) {
		if j := int(num(v[0])); j >= 0 && j < len(pick) {
			cols[pick[j]].Top = append(cols[pick[j]].Top, Value{Value: str(v[1]), Count: num(v[2])})
		}
	})
}

// topBySets appends to Top of the columns pick with one GROUPING SETS.
func topBySets(ctx context.Context, c Conn, ident string, cols []Column, pick []int) error {
	var sel, sets, flags []string
	for _, i := range pick {
		q := quoteIdent(cols[i].Name)
		sel = append(sel, q+"::VARCHAR")
		sets = append(sets, "("+q+")")
		flags = append(flags, "grouping("+q+")")
	}
	query := "SELECT " + strings.Join(sel, ", ") + ", " + strings.Join(flags, ", ") + ", count(*) FROM " + ident +
		" GROUP BY GROUPING SETS (" + strings.Join(sets, ", ") + ")"
	k := len(pick)
	return each(ctx, c, query, nil, func(v []driver.Value) {
		for j, i := range pick {
			if num(v[k+j]) != 0 || v[j] == nil {
				continue // not this column's set, or its NULL group
			}
			cols[i].Top = append(cols[i].Top, Value{Value: str(v[j]), Count: num(v[2*k])})
		}
	})
}

// samples fills Samples with a few distinct values from the first rows.
func samples(ctx context.Context, c Conn, ident string, cols []Column) error {
	sel := make([]string, len(cols))
	for i, col := range cols {
		sel[i] = quoteIdent(col.Name) + "::VARCHAR"
	}
	err := each(ctx, c, "SELECT "+strings.Join(sel, ", ")+" FROM "+ident+" LIMIT 50", nil, func(v []driver.Value) {
		for i := range cols {
			s, ok := v[i].(string)
			if !ok || s == "" || len(cols[i].Samples) >= sampleLimit {
				continue
			}
			s = clip(s)
			dup := false
			for _, have := range cols[i].Samples {
				dup = dup || have == s
			}
			if !dup {
				cols[i].Samples = append(cols[i].Samples, s)
			}
		}
	})
	if err != nil {
		return fmt.Errorf("sample values: %w", err)
	}
	return nil
}

func orderable(typ string) bool {
	return !(strings.HasSuffix(typ, "[]") || strings.HasPrefix(typ, "STRUCT") || strings.HasPrefix(typ, "MAP") ||
		strings.HasPrefix(typ, "UNION") || typ == "BLOB" || strings.Contains(typ, "[") || typ == "JSON")
}

func groupable(typ string) bool {
	return orderable(typ) && !strings.HasPrefix(typ, "DOUBLE") && !strings.HasPrefix(typ, "FLOAT")
}

// each runs query on c and calls fn for every row.
func each(ctx context.Context, c Conn, query string, args []any, fn func([]driver.Value)) error {
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	rows, err := c.QueryContext(ctx, query, named)
	if err != nil {
		return err
	}
	defer rows.Close()
	dest := make([]driver.Value, len(rows.Columns()))
	for {
		if err := rows.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		fn(dest)
	}
}

func str(v driver.Value) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

func strPtr(v driver.Value) *string {
	if v == nil {
		return nil
	}
	s := clip(str(v))
	return &s
}

func num(v driver.Value) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case uint64:
		return int64(x)
	case float64:
		return int64(x)
	}
	return 0
}

func quoteIdent(name string) string { return duck.QuoteIdent(name) }

// clip shortens s to at most sampleLen runes.
func clip(s string) string {
	r := []rune(s)
	if len(r) <= sampleLen {
		return s
	}
	return string(r[:sampleLen]) + "…"
}
