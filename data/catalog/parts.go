package catalog

import (
	"context"
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/loupeapp/loupe/data/duck"
)

// PartName is the table of part i of a dataset stored in parts.
func PartName(i int) string { return fmt.Sprintf("p%05d", i) }

// PartRel is the quoted identifier of part i in the database attached
// as alias.
func PartRel(alias string, i int) string {
	return quoteIdent(alias) + ".main." + quoteIdent(PartName(i))
}

// Relation returns the quoted relation a query on d's column number col
// may read: the part that holds it for a dataset stored in parts (a query
// through its view binds every column of the dataset, seconds at tens of
// thousands of columns; one on a part binds its own), else d itself. A
// part's columns have the dataset's names.
func (d Dataset) Relation(col int) string {
	if d.PartColumns <= 0 || d.Attach == "" {
		return quoteIdent(d.Name)
	}
	return PartRel(d.Attach, col/d.PartColumns)
}

// DescribeRel returns the columns of the relation rel, an identifier
// already quoted and qualified as it is to be written in SQL (for
// example "w"."p00001"), in order.
func DescribeRel(ctx context.Context, c Conn, rel string) ([]Column, error) {
	var cols []Column
	err := each(ctx, c, "SELECT column_name, column_type FROM (DESCRIBE "+rel+")", nil, func(v []driver.Value) {
		cols = append(cols, Column{Name: str(v[0]), Type: str(v[1])})
	})
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", rel, err)
	}
	return cols, nil
}

// releaseEvery is how many parts ProfileParts profiles before it has
// DuckDB's allocator give back what their queries freed: at 500 columns
// a part, tens of MB, which it would otherwise keep for a second or so
// (see duck.ReleaseMemory). Every part took more time for little less
// memory.
const releaseEvery = 4

// ProfileParts profiles a dataset stored as parts: tables of the same
// rows whose columns, side by side, are the dataset's (a very wide file,
// see data/load's wide layout). rels are the parts' quoted, qualified
// identifiers in order. It works as ProfileWithin, part by part, so that
// no query names the dataset's thousands of columns at once: a query
// through the view that joins the parts binds every column of it, which
// is what makes a very wide dataset slow. The report's columns are the
// parts' in order; Rows is the first part's count.
func ProfileParts(ctx context.Context, c Conn, rels []string, budget time.Duration) (Report, error) {
	var r Report
	parts := make([][]Column, len(rels))
	for i, rel := range rels {
		cols, err := DescribeRel(ctx, c, rel)
		if err != nil {
			return Report{}, err
		}
		parts[i] = cols
	}
	if len(rels) == 0 {
		return r, nil
	}
	if err := each(ctx, c, "SELECT count(*) FROM "+rels[0], nil, func(v []driver.Value) { r.Rows = num(v[0]) }); err != nil {
		return Report{}, fmt.Errorf("count rows of %s: %w", rels[0], err)
	}
	if budget <= 0 {
		budget = DefaultBudget
	}
	bctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	for i, rel := range rels {
		r.profileColumns(bctx, c, rel, parts[i])
		if i%releaseEvery == releaseEvery-1 || i == len(rels)-1 {
			duck.ReleaseMemory() // what the parts' queries freed (see there)
		}
	}
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	for _, cols := range parts {
		r.skipUnreached(cols, budget)
	}
	r.done = nil
	for _, cols := range parts {
		r.Columns = append(r.Columns, cols...)
	}
	return r, nil
}
