package load

import (
	"context"
	"fmt"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// raggedWarning says how many rows of a CSV had fewer fields than the
// header (padded with NULL, read with null_padding) or more (the table got
// extra columns for them), and the first line of each; "" when none did.
// A short row leaves its last column NULL, so the file is read again
// strictly, with DuckDB recording the rows it rejects, only when table's
// last column holds a NULL: a file whose rows are all whole costs one
// count. The check only informs: when it cannot run, no warning is given
// and the load stands. The strict reading runs on a connection of its own
// (eng's pool), so that whatever it meets cannot abort the load's
// transaction on c.
func raggedWarning(ctx context.Context, eng *duck.Engine, c *duckdb.Conn, o csvOpts, staged, table string, cols []catalog.Column) string {
	if len(cols) < 2 {
		return ""
	}
	var nulls int64
	q := "SELECT count(*) FROM " + duck.QuoteIdent(table) + " WHERE " + duck.QuoteIdent(cols[len(cols)-1].Name) + " IS NULL"
	if err := each(ctx, c, q, func(v []any) { nulls = toInt(v[0]) }); err != nil || nulls == 0 {
		return ""
	}
	strict := o
	strict.strict, strict.skipBad = true, true
	var parts []string
	_ = eng.Raw(ctx, func(rc *duckdb.Conn) error {
		defer func() {
			for _, t := range []string{"reject_errors", "reject_scans"} {
				_ = duck.Exec(context.Background(), rc, "DROP TABLE IF EXISTS "+t)
			}
		}()
		if err := each(ctx, rc, "SELECT count(*) FROM "+strict.sql(staged), func([]any) {}); err != nil {
			return err
		}
		return rejectedShape(ctx, rc, &parts)
	})
	return strings.Join(parts, "; ")
}

// rejectedShape reads the rows of rc's last strict reading that had too
// few or too many fields into parts, one sentence per kind.
func rejectedShape(ctx context.Context, rc *duckdb.Conn, parts *[]string) error {
	return each(ctx, rc, `SELECT error_type, count(DISTINCT line), min(line) FROM reject_errors
		WHERE error_type IN ('MISSING COLUMNS', 'TOO MANY COLUMNS') GROUP BY error_type ORDER BY error_type`, func(v []any) {
		n, first := toInt(v[1]), fmt.Sprint(v[2])
		if fmt.Sprint(v[0]) == "MISSING COLUMNS" {
			*parts = append(*parts, fmt.Sprintf("%s had fewer fields than the header and %s padded with NULL (first at line %s)",
				plural(n, "row"), were(n), first))
		} else {
			*parts = append(*parts, fmt.Sprintf("%s had more fields than the header (first at line %s); the table has extra columns for them, NULL in the other rows",
				plural(n, "row"), first))
		}
	})
}

func plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

func were(n int64) string {
	if n == 1 {
		return "was"
	}
	return "were"
}
