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
	"slices"
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

// sampleRows is how many rows of each table choose the column types the
// copy starts with.
const sampleRows = 1000

// errNoColumns marks an object SQLite lists but describes without columns.
var errNoColumns = errors.New("it has no columns")

// sqliteStats counts a column's non-NULL values by storage class, and how
// many of them fit the special types a declaration may ask for.
type sqliteStats struct {
	ints, reals, texts, blobs int64
	bools                     int64 // integers 0 or 1
	dates                     int64 // texts that are ISO dates or date-times
	withTime                  int64 // of those, ones with a time of day other than midnight
	times                     int64 // texts that are times of day
	invalid                   int64 // texts with invalid UTF-8 (replaced when copied)
}

func (s sqliteStats) nonNull() int64 { return s.ints + s.reals + s.texts + s.blobs }

// sqliteCol is a column of a SQLite table or view and how it is copied.
type sqliteCol struct {
	name   string // as in SQLite
	decl   string // declared type, "" when none
	want   string // DuckDB type the declaration asks for (declaredType)
	target string // DuckDB type of the column being copied
	stats  sqliteStats
	misfit bool // a value did not fit target in the current pass
}

// sqliteObj is a table or view of the database being loaded.
type sqliteObj struct {
	name     string
	rows     int64
	cols     []sqliteCol
	warnings []string
	keys     *declaredKeys // refs are lower-case table names
}

// loadSQLite copies every table and view of a SQLite database into native
// tables, one dataset each (Part is the SQLite name), in one transaction so
// that either all of them are loaded or none. The file is opened read-only
// (and immutable when no write-ahead log is pending), so it is never
// changed. Column types follow the declared types, checked against every
// value: SQLite lets any column hold any value, and a column whose values
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
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND substr(name, 1, 7) <> 'sqlite_' ORDER BY type = 'view', name")
	if err != nil {
		return nil, nil, sqliteErr(src.path, "", err)
	}
	for rows.Next() {
		var o sqliteObj
		if err := rows.Scan(&o.name); err != nil {
			rows.Close()
			return nil, nil, sqliteErr(src.path, "", err)
		}
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
		skipped = append(skipped, fmt.Sprintf("%q (%s)", o.name, sqliteMsg(err)))
	}
	return kept, skipped, nil
}

// describeSQLite fills o's columns, row count and starting column types
// (from the declarations and the first sampleRows rows).
func describeSQLite(ctx context.Context, db *sql.DB, o *sqliteObj) error {
	// table_xinfo lists generated columns too; hidden = 1 marks a virtual
	// table's hidden columns, which SELECT * leaves out as well.
	rows, err := db.QueryContext(ctx, "SELECT name, type FROM pragma_table_xinfo(?) WHERE hidden <> 1 ORDER BY cid", o.name)
	if err != nil {
		return err
	}
	for rows.Next() {
		var c sqliteCol
		if err := rows.Scan(&c.name, &c.decl); err != nil {
			rows.Close()
			return err
		}
		c.want = declaredType(c.decl)
		o.cols = append(o.cols, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(o.cols) == 0 {
		return errNoColumns
	}
	if o.keys, err = sqliteKeys(ctx, db, o.name); err != nil {
		return err
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteSQLite(o.name)).Scan(&o.rows); err != nil {
		return err
	}
	err = scanSQLite(ctx, db, o, fmt.Sprintf(" LIMIT %d", sampleRows), func(vals []any) error {
		for i, v := range vals {
			o.cols[i].take(v)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range o.cols {
		o.cols[i].choose()
	}
	return nil
}

// scanSQLite reads o's columns, as stored, and calls fn with each row.
// The unary + keeps each value but drops its declared type, so that the
// driver does not turn texts into times on its own.
func scanSQLite(ctx context.Context, db *sql.DB, o *sqliteObj, tail string, fn func([]any) error) error {
	exprs := make([]string, len(o.cols))
	for i, c := range o.cols {
		exprs[i] = "+" + quoteSQLite(c.name)
	}
	rows, err := db.QueryContext(ctx, "SELECT "+strings.Join(exprs, ", ")+" FROM "+quoteSQLite(o.name)+tail)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, len(o.cols))
	ptrs := make([]any, len(o.cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := fn(vals); err != nil {
			return err
		}
	}
	return rows.Err()
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

// choose sets the column's DuckDB type from its declaration and the values
// counted so far: the declared type when they all fit it, else the
// narrowest type that holds them. More values only ever widen the choice
// (BOOLEAN → BIGINT → DOUBLE → VARCHAR, DATE → TIMESTAMP → VARCHAR), so a
// copy that restarts with a wider type ends.
func (c *sqliteCol) choose() {
	s := c.stats
	if s.nonNull() == 0 {
		c.target = c.want
		if c.want == "" {
			c.target = "VARCHAR"
		}
		return
	}
	fits := false
	switch c.want {
	case "BIGINT":
		fits = s.nonNull() == s.ints
	case "DOUBLE":
		fits = s.nonNull() == s.ints+s.reals
	case "BOOLEAN":
		fits = s.nonNull() == s.bools
	case "DATE", "TIMESTAMP":
		fits = s.nonNull() == s.dates
	case "TIME":
		fits = s.nonNull() == s.times
	case "VARCHAR":
		fits = true
	case "BLOB":
		fits = s.blobs > 0 // texts and numbers are kept as their bytes
	}
	switch {
	case !fits:
		c.target = s.narrowest()
	case c.want == "DATE" && s.withTime > 0:
		c.target = "TIMESTAMP"
	default:
		c.target = c.want
	}
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

// refit describes a column whose type is not the one declared, or "" when
// it is (or when the change loses nothing worth a warning: a DATE column
// with times of day, a BLOB column of texts).
func (c sqliteCol) refit() string {
	if c.want == "" || c.want == c.target || c.want == "BLOB" || (c.want == "DATE" && c.target == "TIMESTAMP") {
		return ""
	}
	return fmt.Sprintf("%q (declared %s) as %s", c.name, c.decl, c.target)
}

// take counts v in the column's statistics and returns it converted for
// the column's type, or ok=false when it does not fit that type.
func (c *sqliteCol) take(v any) (out driver.Value, ok bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case int64:
		c.stats.ints++
		if x == 0 || x == 1 {
			c.stats.bools++
		}
		switch c.target {
		case "BIGINT":
			return x, true
		case "DOUBLE":
			return float64(x), true
		case "BOOLEAN":
			return x != 0, x == 0 || x == 1
		}
	case float64:
		c.stats.reals++
		if c.target == "DOUBLE" {
			return x, true
		}
	case string:
		c.stats.texts++
		if t, kind := c.parseText(x); kind != notTime {
			switch c.target {
			case "DATE":
				return t, kind == dateOnly
			case "TIMESTAMP":
				return t, kind == dateOnly || kind == dateAndTime
			case "TIME":
				return t, kind == clockTime
			}
		}
	case []byte:
		c.stats.blobs++
		if c.target == "BLOB" {
			return x, true
		}
	}
	switch c.target {
	case "VARCHAR":
		s := sqliteText(v)
		if !utf8.ValidString(s) {
			c.stats.invalid++
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		return s, true
	case "BLOB":
		return []byte(sqliteText(v)), true
	}
	return nil, false
}

// timeKind is what parseText found in a text.
type timeKind int

const (
	notTime     timeKind = iota
	dateOnly             // a date, or a date-time at midnight
	dateAndTime          // a date-time
	clockTime            // a time of day
)

var (
	dateLayouts = []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02T15:04",
		"2006-01-02T15:04:05Z07:00", "2006-01-02 15:04:05Z07:00"}
	clockLayouts = []string{"15:04:05", "15:04"}
)

// parseText reads an ISO date, date-time (fractions of a second and a zone
// allowed, converted to UTC) or time of day, for the columns declared as
// dates or times only, and counts what it found.
func (c *sqliteCol) parseText(s string) (time.Time, timeKind) {
	switch c.want {
	case "DATE", "TIMESTAMP":
		t, ok := parseDate(s)
		if !ok {
			return t, notTime
		}
		c.stats.dates++
		if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
			return t, dateOnly
		}
		c.stats.withTime++
		return t, dateAndTime
	case "TIME":
		if len(s) < 5 || s[2] != ':' {
			return time.Time{}, notTime
		}
		for _, layout := range clockLayouts {
			if t, err := time.Parse(layout, s); err == nil {
				c.stats.times++
				return t, clockTime
			}
		}
	}
	return time.Time{}, notTime
}

func parseDate(s string) (time.Time, bool) {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return time.Time{}, false
	}
	if len(s) == 10 {
		t, err := time.Parse("2006-01-02", s)
		return t, err == nil
	}
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
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
		n, err := newNamer(ctx, c, src.path)
		if err != nil {
			return err
		}
		var done, reported int64
		staging := make([]string, len(objs))
		names := make(map[string]string, len(objs)) // lower-case SQLite name → dataset name
		for i := range objs {
			if staging[i], err = n.stage(ctx, sqlName(objs[i].name), objs[i].name); err != nil {
				return err
			}
			names[strings.ToLower(objs[i].name)] = finalName(staging[i])
		}
		for i := range objs {
			o := &objs[i]
			d := catalog.Dataset{Name: staging[i], Kind: string(SQLite), Part: o.name, Storage: "table"}
			o.keys.set(&d, names)
			report := func(rows int64) {
				// A restarted copy does not move the bar back.
				if done+rows >= reported {
					reported = done + rows
					src.report(Progress{Table: d.Name, Phase: "reading", Percent: percent(reported, total), Rows: uint64(reported)})
				}
			}
			if err := copySQLiteObj(ctx, c, db, src, o, d.Name, report); err != nil {
				return err
			}
			d.Warnings = append(d.Warnings, o.copyWarnings()...)
			done += o.rows
			if err := finish(ctx, c, src, &d, started); err != nil {
				return err
			}
			out = append(out, d)
		}
		if err := noteVanished(ctx, c, src, n, out, "table", sqliteHas(ctx, db)); err != nil {
			return err
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

// sqliteHas returns a test of whether db still holds a table or view
// called name (false when it cannot tell).
func sqliteHas(ctx context.Context, db *sql.DB) func(name string) bool {
	return func(name string) bool {
		var n int
		err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?", name).Scan(&n)
		return err == nil && n > 0
	}
}

func percent(done, total int64) float64 {
	if total <= 0 {
		return -1
	}
	return min(100, 100*float64(done)/float64(total))
}

// copyWarnings are o's warnings from the schema and from the copy: types
// that did not fit, texts that were not UTF-8.
func (o *sqliteObj) copyWarnings() []string {
	w := append([]string{}, o.warnings...)
	var refit []string
	var invalid int64
	for _, c := range o.cols {
		if r := c.refit(); r != "" {
			refit = append(refit, r)
		}
		invalid += c.stats.invalid
	}
	if len(refit) > 0 {
		w = append(w, "columns whose values do not all fit their declared type were given one that holds them: "+strings.Join(refit, ", "))
	}
	if invalid > 0 {
		w = append(w, fmt.Sprintf("%d texts were not valid UTF-8; their invalid bytes were replaced with \uFFFD", invalid))
	}
	return w
}

// copySQLiteObj replaces table name with o's rows, appended through
// DuckDB's appender on c (inside c's transaction). When a value does not
// fit its column's type, the copy starts over with that column widened
// (see choose), so the table never holds a converted or lost value.
func copySQLiteObj(ctx context.Context, c *duckdb.Conn, db *sql.DB, src *source, o *sqliteObj, name string, report func(int64)) error {
	names := uniqueColumns(o.cols)
	for {
		defs := make([]string, len(o.cols))
		for i := range o.cols {
			col := &o.cols[i]
			col.stats, col.misfit = sqliteStats{}, false
			defs[i] = duck.QuoteIdent(names[i]) + " " + col.target
		}
		if err := replaceObject(ctx, c, name); err != nil {
			return err
		}
		if err := duck.ExecOne(ctx, c, "CREATE TABLE "+duck.QuoteIdent(name)+" ("+strings.Join(defs, ", ")+")"); err != nil {
			return fmt.Errorf("create %s: %w", name, err)
		}
		app, err := duckdb.NewAppender(c, "", "main", name)
		if err != nil {
			return fmt.Errorf("append to %s: %w", name, err)
		}
		misfit, err := appendRows(ctx, app, db, o, report)
		if cerr := app.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("append to %s: %w", name, cerr)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if sqliteCode(err) != 0 {
				return sqliteErr(src.path, o.name, err)
			}
			return err
		}
		if !misfit {
			return nil
		}
		for i := range o.cols {
			if o.cols[i].misfit {
				o.cols[i].choose()
			}
		}
	}
}

// errMisfit stops a copy at the first value that does not fit its column.
var errMisfit = errors.New("a value does not fit its column's type")

// appendRows reads o from SQLite and appends each row, converted to the
// columns' DuckDB types, until a value does not fit (misfit, with the
// columns concerned marked).
func appendRows(ctx context.Context, app *duckdb.Appender, db *sql.DB, o *sqliteObj, report func(int64)) (misfit bool, err error) {
	row := make([]driver.Value, len(o.cols))
	var n int64
	err = scanSQLite(ctx, db, o, "", func(vals []any) error {
		for i, v := range vals {
			x, ok := o.cols[i].take(v)
			if !ok {
				o.cols[i].misfit = true
				misfit = true
			}
			row[i] = x
		}
		if misfit {
			return errMisfit
		}
		if err := app.AppendRow(row...); err != nil {
			return fmt.Errorf("append a row of %s: %w", o.name, err)
		}
		n++
		if n%progressEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			report(n)
		}
		return nil
	})
	if errors.Is(err, errMisfit) {
		return true, nil
	}
	if err == nil {
		report(n)
	}
	return false, err
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

// quoteSQLite quotes an identifier for SQLite, whose rules for quoted
// names are DuckDB's.
func quoteSQLite(name string) string { return duck.QuoteIdent(name) }

// sqliteCode is the primary SQLite result code of err, or 0.
func sqliteCode(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code() & 0xff
	}
	return 0
}

// sqliteMsg is the first line of err without the driver's "(code)" suffix.
func sqliteMsg(err error) string {
	msg := firstLine(err.Error())
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		if _, perr := strconv.Atoi(msg[i+2 : len(msg)-1]); perr == nil {
			msg = msg[:i]
		}
	}
	return msg
}

// sqliteErr describes a failure to read the database (or its table
// object, when given) as a FileError that says what to do.
func sqliteErr(path, object string, err error) error {
	where := ""
	if object != "" {
		where = fmt.Sprintf(" (table %q)", object)
	}
	msg := sqliteMsg(err)
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

// sqliteKeys reads the primary key and foreign keys table declares. A
// foreign key naming no columns of its parent refers to the parent's
// primary key.
func sqliteKeys(ctx context.Context, db *sql.DB, table string) (*declaredKeys, error) {
	pk, err := sqlitePrimary(ctx, db, table)
	if err != nil {
		return nil, err
	}
	k := &declaredKeys{primary: pk}
	rows, err := db.QueryContext(ctx, `SELECT id, "table", "from", coalesce("to", '') FROM pragma_foreign_key_list(?) ORDER BY id, seq`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	last := -1
	for rows.Next() {
		var id int
		var parent, from, to string
		if err := rows.Scan(&id, &parent, &from, &to); err != nil {
			return nil, err
		}
		if id != last {
			k.foreign = append(k.foreign, declaredFK{ref: strings.ToLower(parent)})
			last = id
		}
		fk := &k.foreign[len(k.foreign)-1]
		fk.columns = append(fk.columns, from)
		fk.refColumns = append(fk.refColumns, to)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, fk := range k.foreign {
		if slices.Contains(fk.refColumns, "") {
			if k.foreign[i].refColumns, err = sqlitePrimary(ctx, db, fk.ref); err != nil {
				return nil, err
			}
		}
	}
	return k, nil
}

// sqlitePrimary is the primary key of table, its columns in order.
func sqlitePrimary(ctx context.Context, db *sql.DB, table string) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
