package load

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	duckdb "github.com/duckdb/duckdb-go/v2"
	"modernc.org/sqlite"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// SQLite primary result codes (the low byte of an extended code).
const (
	sqliteCodeError    = 1
	sqliteCodeBusy     = 5
	sqliteCodeReadonly = 8
	sqliteCodeCorrupt  = 11
	sqliteCodeCantOpen = 14
	sqliteCodeNotADB   = 26
)

// statColumns bounds how many columns one statistics query covers, so that
// its result stays under SQLite's limit of 2000 result columns.
const statColumns = 200

// errNoColumns marks an object SQLite lists but describes without columns.
var errNoColumns = errors.New("it has no columns")

// sqliteStats counts a column's non-NULL values by storage class, and how
// many of them fit the special types a declaration may ask for.
type sqliteStats struct {
	ints, reals, texts, blobs int64
	bools                     int64 // integers 0 or 1
	dates                     int64 // texts that are valid ISO dates or date-times
	withTime                  int64 // of those, ones with a time of day other than midnight
	times                     int64 // texts that are valid times of day
}

func (s sqliteStats) nonNull() int64 { return s.ints + s.reals + s.texts + s.blobs }

// sqliteCol is a column of a SQLite table or view and how it is copied.
type sqliteCol struct {
	name   string // as in SQLite
	decl   string // declared type, "" when none
	target string // DuckDB type
	stats  sqliteStats
}

// sqliteObj is a table or view of the database being loaded.
type sqliteObj struct {
	name     string
	view     bool
	rows     int64
	cols     []sqliteCol
	warnings []string
}

// loadSQLite copies every table and view of a SQLite database into native
// tables, one dataset each (Part is the SQLite name), in one transaction so
// that either all of them are loaded or none. The file is opened read-only
// (and immutable when no write-ahead log is pending), so it is never
// changed. Column types follow the declared types, checked against the
// values: SQLite lets any column hold any value, and a column whose values
// do not fit its declared type gets the narrowest type that holds them all,
// with a warning. Views or virtual tables SQLite itself cannot read (a
// missing table or module) are skipped with a warning.
func (l *Loader) loadSQLite(ctx context.Context, src *source) ([]catalog.Dataset, error) {
	db, warning, err := openSQLite(ctx, src.path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	objs, skipped, err := sqliteSchema(ctx, db, src)
	if err != nil {
		return nil, err
	}
	if len(objs) == 0 {
		if len(skipped) > 0 {
			return nil, fileErr(src.path, "none of the database's tables can be read: "+skipped[0], "check the database with the sqlite3 command-line tool", nil)
		}
		return nil, fileErr(src.path, "the SQLite database has no tables", "open a database that holds data", nil)
	}
	var first []string
	if warning != "" {
		first = append(first, warning)
	}
	if len(skipped) > 0 {
		first = append(first, "skipped what SQLite cannot read: "+strings.Join(skipped, "; "))
	}
	objs[0].warnings = append(first, objs[0].warnings...)
	return l.copySQLite(ctx, src, db, objs)
}

// openSQLite opens the database read-only and checks that it is one. The
// warning says what was left out when the write-ahead log could not be
// read.
func openSQLite(ctx context.Context, path string) (*sql.DB, string, error) {
	immutable := !pendingLog(path)
	db, err := trySQLite(ctx, path, immutable)
	if err == nil {
		return db, "", nil
	}
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	if code := sqliteCode(err); !immutable && (code == sqliteCodeCantOpen || code == sqliteCodeReadonly) {
		if db, ierr := trySQLite(ctx, path, true); ierr == nil {
			return db, "the database's write-ahead log (-wal file) could not be read, so its latest changes are missing; close the program that writes to it and reload", nil
		}
	}
	return nil, "", sqliteErr(path, "", err)
}

// pendingLog reports whether the database has a non-empty write-ahead log
// or rollback journal beside it, which an immutable open would ignore.
func pendingLog(path string) bool {
	for _, suffix := range []string{"-wal", "-journal"} {
		if info, err := os.Stat(path + suffix); err == nil && info.Size() > 0 {
			return true
		}
	}
	return false
}

func trySQLite(ctx context.Context, path string, immutable bool) (*sql.DB, error) {
	db, err := sql.Open("sqlite", sqliteDSN(path, immutable))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	var n int64
	// Reading the schema is the first access that checks the file.
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// sqliteDSN is a read-only SQLite URI for path, escaped so that '?', '#'
// and '%' in file names survive.
func sqliteDSN(path string, immutable bool) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter: file:///C:/…
	}
	dsn := (&url.URL{Scheme: "file", Path: p}).String() + "?mode=ro"
	if immutable {
		dsn += "&immutable=1"
	}
	return dsn
}

// sqliteSchema lists the tables and views (not SQLite's own) with their
// columns, row counts and chosen types. skipped describes the objects
// SQLite could not read.
func sqliteSchema(ctx context.Context, db *sql.DB, src *source) (objs []sqliteObj, skipped []string, err error) {
	rows, err := db.QueryContext(ctx, "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND substr(name, 1, 7) <> 'sqlite_' ORDER BY type = 'view', name")
	if err != nil {
		return nil, nil, sqliteErr(src.path, "", err)
	}
	for rows.Next() {
		var o sqliteObj
		var typ string
		if err := rows.Scan(&o.name, &typ); err != nil {
			rows.Close()
			return nil, nil, sqliteErr(src.path, "", err)
		}
		o.view = typ == "view"
		objs = append(objs, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, sqliteErr(src.path, "", err)
	}
	kept := objs[:0]
	for _, o := range objs {
		err := describeSQLite(ctx, db, &o)
		if err == nil {
			kept = append(kept, o)
			continue
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if !errors.Is(err, errNoColumns) && sqliteCode(err) != sqliteCodeError {
			return nil, nil, sqliteErr(src.path, o.name, err)
		}
		skipped = append(skipped, fmt.Sprintf("%q (%s)", o.name, firstLine(err.Error())))
	}
	return kept, skipped, nil
}

// describeSQLite fills o's columns, row count and column types.
func describeSQLite(ctx context.Context, db *sql.DB, o *sqliteObj) error {
	rows, err := db.QueryContext(ctx, "SELECT name, type FROM pragma_table_info(?) ORDER BY cid", o.name)
	if err != nil {
		return err
	}
	for rows.Next() {
		var c sqliteCol
		if err := rows.Scan(&c.name, &c.decl); err != nil {
			rows.Close()
			return err
		}
		o.cols = append(o.cols, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(o.cols) == 0 {
		return errNoColumns
	}
	if err := countSQLite(ctx, db, o); err != nil {
		return err
	}
	var refit []string
	for i := range o.cols {
		if w := o.cols[i].choose(); w != "" {
			refit = append(refit, w)
		}
	}
	if len(refit) > 0 {
		o.warnings = append(o.warnings, "columns whose values do not all fit their declared type were given one that holds them: "+strings.Join(refit, ", "))
	}
	return nil
}

// countSQLite counts o's rows and its columns' values by kind, in one pass
// per statColumns columns.
func countSQLite(ctx context.Context, db *sql.DB, o *sqliteObj) error {
	for start := 0; start < len(o.cols); start += statColumns {
		cols := o.cols[start:min(start+statColumns, len(o.cols))]
		exprs := []string{"count(*)"}
		for _, c := range cols {
			exprs = append(exprs, statExprs(c)...)
		}
		per := (len(exprs) - 1) / len(cols)
		vals := make([]any, len(exprs))
		ptrs := make([]any, len(exprs))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		q := "SELECT " + strings.Join(exprs, ", ") + " FROM " + quoteSQLite(o.name)
		if err := db.QueryRowContext(ctx, q).Scan(ptrs...); err != nil {
			return err
		}
		o.rows = toInt(vals[0])
		for i := range cols {
			v := vals[1+i*per : 1+(i+1)*per]
			cols[i].stats = sqliteStats{ints: toInt(v[0]), reals: toInt(v[1]), texts: toInt(v[2]), blobs: toInt(v[3]),
				bools: toInt(v[4]), dates: toInt(v[5]), withTime: toInt(v[6]), times: toInt(v[7])}
		}
	}
	return nil
}

// statExprs are the aggregates that fill a column's sqliteStats, in order.
func statExprs(c sqliteCol) []string {
	q := quoteSQLite(c.name)
	isText := "typeof(" + q + ") = 'text'"
	isDate := isText + " AND " + q + " GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*' AND date(julianday(" + q + ")) = substr(" + q + ", 1, 10)"
	sum := func(cond string) string { return "sum(" + cond + ")" }
	out := []string{
		sum("typeof(" + q + ") = 'integer'"), sum("typeof(" + q + ") = 'real'"), sum(isText), sum("typeof(" + q + ") = 'blob'"),
		"0", "0", "0", "0",
	}
	switch declaredType(c.decl) {
	case "BOOLEAN":
		out[4] = sum("typeof(" + q + ") = 'integer' AND " + q + " IN (0, 1)")
	case "DATE", "TIMESTAMP":
		out[5] = sum(isDate)
		out[6] = sum(isDate + " AND time(" + q + ") <> '00:00:00'")
	case "TIME":
		out[7] = sum(isText + " AND " + q + " GLOB '[0-2][0-9]:[0-5][0-9]*' AND time(" + q + ") IS NOT NULL")
	}
	return out
}

// declaredType maps a SQLite declared type to a DuckDB type by SQLite's
// affinity rules, refined for booleans and dates; "" means no type.
func declaredType(decl string) string {
	t := strings.ToUpper(decl)
	switch {
	case strings.TrimSpace(t) == "":
		return ""
	case strings.Contains(t, "INT"):
		return "BIGINT"
	case strings.Contains(t, "CHAR"), strings.Contains(t, "CLOB"), strings.Contains(t, "TEXT"):
		return "VARCHAR"
	case strings.Contains(t, "BLOB"):
		return "BLOB"
	case strings.Contains(t, "REAL"), strings.Contains(t, "FLOA"), strings.Contains(t, "DOUB"):
		return "DOUBLE"
	case strings.Contains(t, "BOOL"):
		return "BOOLEAN"
	case strings.Contains(t, "DATETIME"), strings.Contains(t, "TIMESTAMP"):
		return "TIMESTAMP"
	case strings.Contains(t, "DATE"):
		return "DATE"
	case strings.Contains(t, "TIME"):
		return "TIME"
	}
	return "DOUBLE" // NUMERIC, DECIMAL(p,s) and other numeric affinities
}

// choose sets the column's DuckDB type from its declaration and its
// values, and describes the change when the declaration did not fit.
func (c *sqliteCol) choose() string {
	want := declaredType(c.decl)
	s := c.stats
	if s.nonNull() == 0 {
		c.target = want
		if want == "" {
			c.target = "VARCHAR"
		}
		return ""
	}
	ok := false
	switch want {
	case "":
		c.target = s.narrowest()
		return ""
	case "BIGINT":
		ok = s.nonNull() == s.ints
	case "DOUBLE":
		ok = s.nonNull() == s.ints+s.reals
	case "BOOLEAN":
		ok = s.nonNull() == s.bools
	case "DATE", "TIMESTAMP":
		ok = s.nonNull() == s.dates
		if ok && s.withTime > 0 {
			want = "TIMESTAMP"
		}
	case "TIME":
		ok = s.nonNull() == s.times
	case "VARCHAR":
		ok = true
	case "BLOB":
		if s.blobs == 0 {
			c.target = s.narrowest()
			return ""
		}
		ok = true
	}
	if ok {
		c.target = want
		return ""
	}
	c.target = s.narrowest()
	return fmt.Sprintf("%q (declared %s) as %s", c.name, c.decl, c.target)
}

// narrowest is the narrowest DuckDB type that holds every value counted.
func (s sqliteStats) narrowest() string {
	switch s.nonNull() {
	case s.ints:
		return "BIGINT"
	case s.ints + s.reals:
		return "DOUBLE"
	case s.blobs:
		return "BLOB"
	}
	return "VARCHAR"
}

// selectExpr is what is read from SQLite for the column: dates normalised
// by SQLite's own date functions, everything else as stored. The unary +
// keeps the value but drops the declared type, so that the driver does not
// turn texts into times on its own.
func (c sqliteCol) selectExpr() string {
	q := quoteSQLite(c.name)
	switch c.target {
	case "DATE":
		return "date(" + q + ")"
	case "TIMESTAMP":
		return "strftime('%Y-%m-%d %H:%M:%f', " + q + ")"
	case "TIME":
		return "strftime('%H:%M:%f', " + q + ")"
	}
	return "+" + q
}

// copySQLite creates and fills one DuckDB table per object in a single
// transaction, reporting rows copied against the total.
func (l *Loader) copySQLite(ctx context.Context, src *source, db *sql.DB, objs []sqliteObj) ([]catalog.Dataset, error) {
	var total int64
	for _, o := range objs {
		total += o.rows
	}
	started := time.Now()
	var out []catalog.Dataset
	err := l.commit(ctx, func(c *duckdb.Conn) error {
		out = out[:0]
		n, err := newNamer(ctx, c)
		if err != nil {
			return err
		}
		var done int64
		for _, o := range objs {
			d := catalog.Dataset{Name: n.pick(sqlName(o.name), src.path, o.name), Kind: string(SQLite), Part: o.name, Storage: "table"}
			d.Warnings = append(d.Warnings, o.warnings...)
			report := func(rows int64) {
				src.report(Progress{Table: d.Name, Phase: "reading", Percent: percent(done+rows, total), Rows: uint64(done + rows)})
			}
			invalid, err := copySQLiteObj(ctx, c, db, src, o, d.Name, report)
			if err != nil {
				return err
			}
			if invalid > 0 {
				d.Warnings = append(d.Warnings, fmt.Sprintf("%d texts were not valid UTF-8; their invalid bytes were replaced with �", invalid))
			}
			done += o.rows
			if err := finish(ctx, c, src, &d, started); err != nil {
				return err
			}
			out = append(out, d)
		}
		// A cancellation that came too late to stop a statement still
		// stops the commit.
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func percent(done, total int64) float64 {
	if total <= 0 {
		return -1
	}
	return min(100, 100*float64(done)/float64(total))
}

// copySQLiteObj replaces table name with o's rows, appended through
// DuckDB's appender on c (inside c's transaction). It returns how many
// texts had invalid UTF-8 replaced.
func copySQLiteObj(ctx context.Context, c *duckdb.Conn, db *sql.DB, src *source, o sqliteObj, name string, report func(int64)) (int64, error) {
	if err := replaceObject(ctx, c, name); err != nil {
		return 0, err
	}
	names := uniqueColumns(o.cols)
	defs := make([]string, len(o.cols))
	exprs := make([]string, len(o.cols))
	for i, col := range o.cols {
		defs[i] = duck.QuoteIdent(names[i]) + " " + col.target
		exprs[i] = col.selectExpr()
	}
	if err := duck.Exec(ctx, c, "CREATE TABLE "+duck.QuoteIdent(name)+" ("+strings.Join(defs, ", ")+")"); err != nil {
		return 0, fmt.Errorf("create %s: %w", name, err)
	}
	app, err := duckdb.NewAppender(c, "", "main", name)
	if err != nil {
		return 0, fmt.Errorf("append to %s: %w", name, err)
	}
	invalid, err := appendRows(ctx, app, db, src, o, strings.Join(exprs, ", "), report)
	if cerr := app.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("append to %s: %w", name, cerr)
	}
	return invalid, err
}

// appendRows reads o from SQLite and appends each row, converted to the
// columns' DuckDB types.
func appendRows(ctx context.Context, app *duckdb.Appender, db *sql.DB, src *source, o sqliteObj, exprs string, report func(int64)) (int64, error) {
	rows, err := db.QueryContext(ctx, "SELECT "+exprs+" FROM "+quoteSQLite(o.name))
	if err != nil {
		return 0, sqliteErr(src.path, o.name, err)
	}
	defer rows.Close()
	vals := make([]any, len(o.cols))
	ptrs := make([]any, len(o.cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	row := make([]driver.Value, len(o.cols))
	var n, invalid int64
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return invalid, sqliteErr(src.path, o.name, err)
		}
		for i, v := range vals {
			x, bad, err := convertSQLite(o.cols[i].target, v)
			if err != nil {
				return invalid, fileErr(src.path, fmt.Sprintf("table %q changed while it was read (column %q: %v)", o.name, o.cols[i].name, err), "close the program that writes to the database and load it again", err)
			}
			if bad {
				invalid++
			}
			row[i] = x
		}
		if err := app.AppendRow(row...); err != nil {
			return invalid, fmt.Errorf("append a row of %s: %w", o.name, err)
		}
		n++
		if n%progressEvery == 0 {
			if err := ctx.Err(); err != nil {
				return invalid, err
			}
			report(n)
		}
	}
	if err := rows.Err(); err != nil {
		return invalid, sqliteErr(src.path, o.name, err)
	}
	report(n)
	return invalid, nil
}

// convertSQLite turns a value read from SQLite into one the appender takes
// for a column of type target. bad reports invalid UTF-8 that was replaced.
func convertSQLite(target string, v any) (out driver.Value, bad bool, err error) {
	if v == nil {
		return nil, false, nil
	}
	switch target {
	case "BIGINT":
		if i, ok := v.(int64); ok {
			return i, false, nil
		}
	case "DOUBLE":
		switch x := v.(type) {
		case float64:
			return x, false, nil
		case int64:
			return float64(x), false, nil
		}
	case "BOOLEAN":
		if i, ok := v.(int64); ok {
			return i != 0, false, nil
		}
	case "DATE", "TIMESTAMP", "TIME":
		if s, ok := v.(string); ok {
			return parseSQLiteTime(target, s)
		}
	case "BLOB":
		switch x := v.(type) {
		case []byte:
			return x, false, nil
		case string:
			return []byte(x), false, nil
		default:
			return []byte(sqliteText(x)), false, nil
		}
	case "VARCHAR":
		s := sqliteText(v)
		if !utf8.ValidString(s) {
			return strings.ToValidUTF8(s, "\uFFFD"), true, nil
		}
		return s, false, nil
	}
	return nil, false, fmt.Errorf("%T value %v does not fit %s", v, v, target)
}

// parseSQLiteTime parses what selectExpr's date functions return.
func parseSQLiteTime(target, s string) (driver.Value, bool, error) {
	layout := map[string]string{"DATE": "2006-01-02", "TIMESTAMP": "2006-01-02 15:04:05.000", "TIME": "15:04:05.000"}[target]
	t, err := time.Parse(layout, s)
	if err != nil {
		return nil, false, err
	}
	return t, false, nil
}

// sqliteText is how SQLite itself shows a value as text.
func sqliteText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case time.Time:
		return x.Format("2006-01-02 15:04:05.999999999")
	}
	return fmt.Sprint(v)
}

// uniqueColumns returns the columns' names made unique the way DuckDB
// compares them (case-insensitively), with empty ones named by position.
func uniqueColumns(cols []sqliteCol) []string {
	seen := map[string]bool{}
	out := make([]string, len(cols))
	for i, c := range cols {
		base := c.name
		if strings.TrimSpace(base) == "" {
			base = "column" + strconv.Itoa(i+1)
		}
		name := base
		for k := 2; seen[strings.ToLower(name)]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
		seen[strings.ToLower(name)] = true
		out[i] = name
	}
	return out
}

func quoteSQLite(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// sqliteCode is the primary SQLite result code of err, or 0.
func sqliteCode(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code() & 0xff
	}
	return 0
}

// sqliteErr describes a failure to read the database (or its table
// object, when given) as a FileError that says what to do.
func sqliteErr(path, object string, err error) error {
	where := ""
	if object != "" {
		where = fmt.Sprintf(" (table %q)", object)
	}
	msg := firstLine(err.Error())
	switch sqliteCode(err) {
	case sqliteCodeNotADB:
		return fileErr(path, "this is not a SQLite database, or it is encrypted", "if it is encrypted (for example with SQLCipher), export it unencrypted from the program that made it; otherwise check that the right file was chosen", err)
	case sqliteCodeCorrupt:
		return fileErr(path, "the SQLite database is damaged"+where+": "+msg, "repair it with the sqlite3 tool (sqlite3 FILE .recover), or copy it again from its source", err)
	case sqliteCodeBusy:
		return fileErr(path, "the SQLite database is locked by another program", "close the program that is writing to it and try again", err)
	case sqliteCodeCantOpen, sqliteCodeReadonly:
		return fileErr(path, "cannot open the SQLite database: "+msg, "check that the file and its folder are readable; if another program is writing to it, close that program and try again", err)
	}
	return fileErr(path, "cannot read the SQLite database"+where+": "+msg, "check it with the sqlite3 tool (sqlite3 FILE 'PRAGMA integrity_check')", err)
}
