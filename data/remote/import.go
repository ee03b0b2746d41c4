package remote

import (
	"context"
	"crypto/rand"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/query"
)

// Import defaults.
const (
	DefaultImportRows    = 1_000_000
	DefaultImportTimeout = 10 * time.Minute
)

// ErrExists means the workspace already has a dataset with the name asked
// for and ImportOptions.Replace was not set.
var ErrExists = errors.New("a dataset with that name already exists")

// ImportOptions tune Import.
type ImportOptions struct {
	// Table is the new workspace table's name: letters, digits and '_',
	// not starting with a digit.
	Table string
	// Replace replaces a dataset of the same name instead of failing.
	Replace bool
	// MaxRows is the most rows imported (default DefaultImportRows); the
	// dataset carries a warning when the query had more.
	MaxRows int
	// Timeout bounds the remote query (default DefaultImportTimeout).
	Timeout time.Duration
	// Origin says where the rows came from, for the catalog: the
	// profile's URL (never with a password).
	Origin string
	// Progress, if set, is called from the importing goroutine; it must
	// be quick.
	Progress func(ImportProgress)
}

// ImportProgress reports a running import.
type ImportProgress struct {
	Table   string `json:"table"`
	Phase   string `json:"phase"` // reading, profiling, done
	Rows    int64  `json:"rows"`
	MaxRows int64  `json:"max_rows"`
}

var tableNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// Import runs text on src and stores its rows in the workspace as a new
// table, recorded in the catalog with its statistics, so that it can be
// joined with local data. The record keeps what running it again takes:
// Source is opt.Origin, Part the query, MaxRows the row limit.
//
// It is all or nothing: on any error, a cancelled ctx included, the
// workspace is left as it was (a dataset it was to replace is kept). The
// rows are read into a table of a staging name and committed (statistics
// need committed data, see catalog.ProfileWithin), profiled, and then, in
// one transaction, put in place of the dataset of that name with their
// record. Cancelling interrupts whichever runs: the remote query, the
// copy, or DuckDB's profile; the staging table is then dropped. A process
// killed in between leaves a staging table that the next open drops (see
// Sweep). The import holds the workspace's loading connection while the
// remote query runs.
func Import(ctx context.Context, eng *duck.Engine, src Source, text string, opt ImportOptions) (catalog.Dataset, error) {
	start := time.Now()
	if !tableNameRE.MatchString(opt.Table) || strings.HasPrefix(strings.ToLower(opt.Table), "_loupe") {
		return catalog.Dataset{}, fmt.Errorf("table name %q: use letters, digits and '_' (not starting with a digit or _loupe)", opt.Table)
	}
	if opt.MaxRows <= 0 {
		opt.MaxRows = DefaultImportRows
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultImportTimeout
	}
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	id := hex.EncodeToString(suffix)
	im := &importer{opt: opt, src: src, text: text, log: slog.Default().With("subsystem", "remote.import"),
		stage: importPrefix + id, table: importPrefix + id + "_t"}
	d := catalog.Dataset{Name: im.table, Kind: string(src.Dialect().Kind), Source: opt.Origin, Part: strings.TrimSpace(text),
		Storage: "table", MaxRows: int64(opt.MaxRows)}
	err := inTransaction(ctx, eng, "import", func(c *duckdb.Conn) error { return im.run(ctx, c, &d) })
	if err == nil {
		im.report("profiling")
		err = eng.Write(ctx, func(c *duckdb.Conn) error { return im.profile(ctx, c, &d) })
	}
	if err == nil {
		d.LoadedAt = time.Now().UTC()
		d.LoadMS = float64(time.Since(start).Microseconds()) / 1000
		err = inTransaction(ctx, eng, "import", func(c *duckdb.Conn) error { return im.putInPlace(ctx, c, &d) })
	}
	if err != nil {
		im.discard(eng)
		if ctx.Err() != nil {
			return catalog.Dataset{}, ctx.Err()
		}
		return catalog.Dataset{}, err
	}
	im.report("done")
	im.log.Info("imported", "table", d.Name, "rows", d.Rows, "elapsed", time.Since(start))
	return d, nil
}

// importPrefix starts the names of an import's staging tables.
const importPrefix = "_loupe_import_"

// inTransaction runs fn in one transaction on eng's loading connection and
// commits, or rolls back on any error.
func inTransaction(ctx context.Context, eng *duck.Engine, what string, fn func(c *duckdb.Conn) error) error {
	return eng.Write(ctx, func(c *duckdb.Conn) error {
		if err := duck.Exec(ctx, c, "BEGIN TRANSACTION"); err != nil {
			return fmt.Errorf("begin %s: %w", what, err)
		}
		if err := fn(c); err != nil {
			_ = duck.Exec(context.WithoutCancel(ctx), c, "ROLLBACK")
			return err
		}
		if err := duck.Exec(ctx, c, "COMMIT"); err != nil {
			_ = duck.Exec(context.WithoutCancel(ctx), c, "ROLLBACK")
			return fmt.Errorf("commit %s: %w", what, err)
		}
		return nil
	})
}

// profile computes the statistics of the committed staging table within
// catalog.DefaultBudget; ctx ending interrupts DuckDB and ends it with
// ctx's error.
func (im *importer) profile(ctx context.Context, c *duckdb.Conn, d *catalog.Dataset) error {
	im.log.Debug("profiling", "table", im.opt.Table, "columns", len(d.Columns), "rows", d.Rows)
	r, err := catalog.ProfileWithin(ctx, c, im.table, catalog.DefaultBudget)
	if err != nil {
		return fmt.Errorf("profile %s: %w", im.opt.Table, err)
	}
	catalog.KeepColumnText(d.Columns, r.Columns)
	d.Rows, d.Columns, d.Profiled = r.Rows, r.Columns, true
	if w := r.Warning(); w != "" {
		d.Warnings = append(d.Warnings, w)
	}
	return nil
}

// putInPlace renames the staging table to the table asked for, replacing
// the dataset of that name if opt.Replace (keeping the user's notes when
// it came from the same query), and records it, in c's transaction. The
// name is checked again here: another import may have taken it since
// run checked.
func (im *importer) putInPlace(ctx context.Context, c *duckdb.Conn, d *catalog.Dataset) error {
	existing, err := catalog.Names(ctx, c)
	if err != nil {
		return err
	}
	old, replacing := existing[im.opt.Table]
	if replacing {
		if !im.opt.Replace {
			return fmt.Errorf("import %s: %w (choose another name, or replace it)", im.opt.Table, ErrExists)
		}
		if old.Source == d.Source && old.Part == d.Part {
			catalog.CarryNotes(old, d) // a refresh keeps the user's notes
		}
	}
	if err := dropObject(ctx, c, im.opt.Table); err != nil {
		return err
	}
	if err := duck.Exec(ctx, c, "ALTER TABLE "+duck.QuoteIdent(im.table)+" RENAME TO "+duck.QuoteIdent(im.opt.Table)); err != nil {
		return fmt.Errorf("put %s in place: %w", im.opt.Table, err)
	}
	d.Name = im.opt.Table
	if err := catalog.Put(ctx, c, *d); err != nil {
		return err
	}
	if replacing {
		return catalog.DropReader(ctx, c, old)
	}
	return nil
}

// discard drops the import's staging tables, whatever ctx did: it is a
// few catalog changes.
func (im *importer) discard(eng *duck.Engine) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := eng.Write(ctx, func(c *duckdb.Conn) error {
		for _, t := range []string{im.table, im.stage} {
			if err := duck.Exec(ctx, c, "DROP TABLE IF EXISTS "+duck.QuoteIdent(t)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		im.log.Error("drop the staging tables of a failed import", "table", im.opt.Table, "err", err)
	}
}

// Sweep drops the staging tables an import killed before it put its
// table in place left behind (see Import). The workspace calls it at
// open, on its loading connection, before anything else runs.
func Sweep(ctx context.Context, c *duckdb.Conn) error {
	rows, err := c.QueryContext(ctx, "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND starts_with(table_name, "+duck.QuoteString(importPrefix)+")", nil)
	if err != nil {
		return fmt.Errorf("find the staging tables of interrupted imports: %w", err)
	}
	var names []string
	dest := make([]driver.Value, 1)
	for rows.Next(dest) == nil {
		names = append(names, fmt.Sprint(dest[0]))
	}
	_ = rows.Close()
	for _, n := range names {
		if err := duck.Exec(ctx, c, "DROP TABLE IF EXISTS "+duck.QuoteIdent(n)); err != nil {
			return fmt.Errorf("drop %s: %w", n, err)
		}
	}
	return nil
}

// importer streams one remote result into a staging table through
// DuckDB's appender, then casts it into the final table.
type importer struct {
	opt  ImportOptions
	src  Source
	text string
	log  *slog.Logger

	cols    []stagedCol
	stage   string // the table the rows are appended to
	table   string // the table cast from it, renamed into place at the end
	app     *duckdb.Appender
	rows    int64
	more    bool
	lastRep time.Time
}

type stagedCol struct {
	name   string // in the final table
	source string // type name the source reported
	stage  string // DuckDB type of the staging column: BIGINT, DOUBLE, BOOLEAN or VARCHAR
	final  string // DuckDB type of the final column
	misfit int64  // values that did not fit stage and were left NULL
}

func (im *importer) report(phase string) {
	if im.opt.Progress != nil {
		im.opt.Progress(ImportProgress{Table: im.opt.Table, Phase: phase, Rows: im.rows, MaxRows: int64(im.opt.MaxRows)})
	}
}

func (im *importer) run(ctx context.Context, c *duckdb.Conn, d *catalog.Dataset) error {
	existing, err := catalog.Names(ctx, c)
	if err != nil {
		return err
	}
	if _, ok := existing[im.opt.Table]; ok && !im.opt.Replace {
		// Checked before the remote query runs, and again when the
		// table is put in place.
		return fmt.Errorf("import %s: %w (choose another name, or replace it)", im.opt.Table, ErrExists)
	}
	defer func() {
		if im.app != nil {
			_ = im.app.Close()
		}
	}()
	im.report("reading")
	err = im.src.Stream(ctx, im.text, im.opt.Timeout, Visitor{
		Columns: func(cols []query.Column) error { return im.columns(cols) },
		Row:     func(row []any) error { return im.row(ctx, c, row) },
	})
	if err != nil {
		return err
	}
	if err := im.ensureStage(ctx, c, nil); err != nil {
		return err
	}
	if err := im.app.Close(); err != nil {
		im.app = nil
		return fmt.Errorf("write the imported rows: %w", err)
	}
	im.app = nil
	if err := im.finish(ctx, c, d); err != nil {
		return err
	}
	return duck.Exec(ctx, c, "DROP TABLE "+duck.QuoteIdent(im.stage))
}

// columns names the final columns (unique, never empty) and picks types.
func (im *importer) columns(cols []query.Column) error {
	if len(cols) == 0 {
		return errors.New("the query returns no columns")
	}
	seen := map[string]int{}
	for i, col := range cols {
		name := strings.TrimSpace(col.Name)
		if name == "" || name == "?column?" {
			name = fmt.Sprintf("column_%d", i+1)
		}
		key := strings.ToLower(name)
		if n := seen[key]; n > 0 {
			seen[key] = n + 1
			name = fmt.Sprintf("%s_%d", name, n+1)
			key = strings.ToLower(name)
		}
		seen[key]++
		stage, final := duckTypes(col.Type)
		im.cols = append(im.cols, stagedCol{name: name, source: col.Type, stage: stage, final: final})
	}
	return nil
}

// ensureStage creates the staging table and its appender. Columns whose
// type the source did not name take theirs from the first row's values.
func (im *importer) ensureStage(ctx context.Context, c *duckdb.Conn, first []any) error {
	if im.app != nil {
		return nil
	}
	defs := make([]string, len(im.cols))
	for i := range im.cols {
		col := &im.cols[i]
		if col.source == "" && first != nil {
			col.stage, col.final = inferType(first[i])
		}
		defs[i] = fmt.Sprintf("c%d %s", i, col.stage)
	}
	if err := duck.Exec(ctx, c, "CREATE TABLE "+duck.QuoteIdent(im.stage)+" ("+strings.Join(defs, ", ")+")"); err != nil {
		return fmt.Errorf("create the staging table: %w", err)
	}
	app, err := duckdb.NewAppenderFromConn(c, "", im.stage)
	if err != nil {
		return fmt.Errorf("open the appender: %w", err)
	}
	im.app = app
	return nil
}

func (im *importer) row(ctx context.Context, c *duckdb.Conn, row []any) error {
	if im.rows >= int64(im.opt.MaxRows) {
		im.more = true
		return ErrStop
	}
	if err := im.ensureStage(ctx, c, row); err != nil {
		return err
	}
	vals := make([]driver.Value, len(row))
	for i, v := range row {
		x, ok := convert(v, im.cols[i].stage)
		if !ok {
			im.cols[i].misfit++
		}
		vals[i] = x
	}
	if err := im.app.AppendRow(vals...); err != nil {
		return fmt.Errorf("append row %d: %w", im.rows+1, err)
	}
	im.rows++
	if im.rows%5000 == 0 && time.Since(im.lastRep) > 250*time.Millisecond {
		im.lastRep = time.Now()
		im.report("reading")
	}
	return nil
}

// finish casts the staging table into the final one and notes what did
// not fit.
func (im *importer) finish(ctx context.Context, c *duckdb.Conn, d *catalog.Dataset) error {
	sel := make([]string, len(im.cols))
	var checks []string
	var checked []int
	for i, col := range im.cols {
		src := fmt.Sprintf("c%d", i)
		expr := src
		if col.final != col.stage {
			expr = fmt.Sprintf("TRY_CAST(%s AS %s)", src, col.final)
			checks = append(checks, fmt.Sprintf("count(*) FILTER (WHERE %s IS NOT NULL AND %s IS NULL)", src, expr))
			checked = append(checked, i)
		}
		sel[i] = expr + " AS " + duck.QuoteIdent(col.name)
	}
	q := "CREATE TABLE " + duck.QuoteIdent(im.table) + " AS SELECT " + strings.Join(sel, ", ") + " FROM " + duck.QuoteIdent(im.stage)
	if err := duck.ExecOne(ctx, c, q); err != nil { // the remote result's column names
		return fmt.Errorf("create %s: %w", im.opt.Table, err)
	}
	if len(checks) > 0 {
		rows, err := c.QueryContext(ctx, "SELECT "+strings.Join(checks, ", ")+" FROM "+duck.QuoteIdent(im.stage), nil)
		if err != nil {
			return fmt.Errorf("check casts: %w", err)
		}
		dest := make([]driver.Value, len(checks))
		if err := rows.Next(dest); err == nil {
			for j, i := range checked {
				if n, _ := dest[j].(int64); n > 0 {
					im.cols[i].misfit += n
				}
			}
		}
		_ = rows.Close()
	}
	for _, col := range im.cols {
		if col.misfit > 0 {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%d values of column %s did not read as %s and were left NULL", col.misfit, col.name, col.final))
		}
	}
	if im.more {
		d.Warnings = append(d.Warnings, fmt.Sprintf("stopped at the row limit of %d: the query returns more rows; filter or aggregate it on the server, or raise the limit", im.opt.MaxRows))
	}
	if im.rows == 0 {
		d.Warnings = append(d.Warnings, "the query returned no rows")
	}
	d.Rows = im.rows
	cols, err := catalog.Describe(ctx, c, im.table)
	if err != nil {
		return err
	}
	d.Columns = cols
	return nil
}

// dropObject drops the table or view called name and its catalog record.
func dropObject(ctx context.Context, c *duckdb.Conn, name string) error {
	q := duck.QuoteIdent(name)
	for _, s := range []string{"DROP VIEW IF EXISTS " + q, "DROP TABLE IF EXISTS " + q} {
		if err := duck.Exec(ctx, c, s); err != nil && !strings.Contains(err.Error(), "trying to drop") && !strings.Contains(err.Error(), "is of type") {
			return fmt.Errorf("replace %s: %w", name, err)
		}
	}
	return catalog.Delete(ctx, c, name)
}

// duckTypes maps a source column type to the staging and final DuckDB
// types. Dates and times travel as text and are cast at the end.
func duckTypes(typ string) (stage, final string) {
	t := strings.ToUpper(strings.TrimSpace(typ))
	t = strings.TrimPrefix(t, "UNSIGNED ")
	if i := strings.IndexByte(t, '('); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	switch t {
	case "":
		return "VARCHAR", "VARCHAR" // decided by the first row (inferType)
	case "INT2", "INT4", "INT8", "SMALLINT", "INTEGER", "INT", "BIGINT", "TINYINT", "MEDIUMINT", "SERIAL", "BIGSERIAL", "YEAR", "OID":
		return "BIGINT", "BIGINT"
	case "FLOAT4", "FLOAT8", "REAL", "DOUBLE", "DOUBLE PRECISION", "FLOAT", "NUMERIC", "DECIMAL":
		return "DOUBLE", "DOUBLE"
	case "BOOL", "BOOLEAN":
		return "BOOLEAN", "BOOLEAN"
	case "DATE":
		return "VARCHAR", "DATE"
	case "TIMESTAMP", "DATETIME", "TIMESTAMP WITHOUT TIME ZONE":
		return "VARCHAR", "TIMESTAMP"
	case "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE":
		return "VARCHAR", "TIMESTAMPTZ"
	case "TIME", "TIME WITHOUT TIME ZONE":
		return "VARCHAR", "TIME"
	}
	return "VARCHAR", "VARCHAR"
}

// inferType picks a type from a value when the source named none (SQLite
// expressions).
func inferType(v any) (stage, final string) {
	switch v.(type) {
	case int64:
		return "BIGINT", "BIGINT"
	case float64:
		return "DOUBLE", "DOUBLE"
	case bool:
		return "BOOLEAN", "BOOLEAN"
	}
	return "VARCHAR", "VARCHAR"
}

// convert turns a normalized value into one the appender takes for typ.
// ok is false when a non-NULL value did not fit and NULL is stored.
func convert(v any, typ string) (driver.Value, bool) {
	if v == nil {
		return nil, true
	}
	switch typ {
	case "BIGINT":
		switch x := v.(type) {
		case int64:
			return x, true
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
				return int64(x), true
			}
		case bool:
			if x {
				return int64(1), true
			}
			return int64(0), true
		case string:
			if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
				return n, true
			}
		}
		return nil, false
	case "DOUBLE":
		switch x := v.(type) {
		case float64:
			return x, true
		case int64:
			return float64(x), true
		case string:
			if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return f, true
			}
		}
		return nil, false
	case "BOOLEAN":
		switch x := v.(type) {
		case bool:
			return x, true
		case int64:
			return x != 0, true
		case string:
			if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
				return b, true
			}
		}
		return nil, false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case []any, map[string]any:
		b, err := json.Marshal(x)
		if err != nil {
			return nil, false
		}
		return string(b), true
	}
	return fmt.Sprint(v), true
}
