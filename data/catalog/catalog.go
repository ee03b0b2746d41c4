// Package catalog owns what Loupe knows about each loaded dataset: where it
// came from, its columns and types, and per-column statistics computed at
// load. Records live in the workspace database (schema _loupe) and are
// written in the same transaction as the table they describe.
package catalog

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Version is the catalog's schema version, stored in _loupe.meta: 2 added
// the summary columns beside each record (see Summary), 3 the columns
// staged, attach and profiled, which what runs at every open reads
// (Attached, Unprofiled, load.SweepCopies) instead of scanning every
// record's text, 4 the column reader (see Dataset.Reader).
const Version = 4

// ForeignKey is a declared reference from Columns of a dataset to
// RefColumns of the dataset RefTable.
type ForeignKey struct {
	Columns    []string `json:"columns"`
	RefTable   string   `json:"ref_table"`
	RefColumns []string `json:"ref_columns"`
}

// ErrNotFound means no dataset has the name asked for.
var ErrNotFound = errors.New("no such dataset")

// Dataset describes one table or view the user loaded.
type Dataset struct {
	Name      string    `json:"name"`           // SQL name in the workspace (schema main)
	Kind      string    `json:"kind"`           // csv, tsv, parquet, json, xlsx, duckdb, sqlite
	Source    string    `json:"source"`         // absolute path of the user's file
	Part      string    `json:"part,omitempty"` // sheet or table inside the file
	SizeBytes int64     `json:"size_bytes"`
	ModTime   time.Time `json:"mod_time"`
	LoadedAt  time.Time `json:"loaded_at"`
	Rows      int64     `json:"rows"`
	Storage   string    `json:"storage"`          // "table" (copied in) or "view" (reads the file)
	Staged    string    `json:"staged,omitempty"` // file in the import folder a view or attachment reads
	Attach    string    `json:"attach,omitempty"` // database alias for duckdb files
	// Reader is the table macro in schema _loupe a view of a small text
	// file reads its copy (Staged) through, shared by the files of one
	// shape (see data/load's viewOver); "" for every other dataset.
	Reader string `json:"reader,omitempty"`
	// PartColumns is set for a dataset stored in parts side by side (a
	// very wide file, see data/load's wide layout): the columns of each
	// part, table PartName(i) of the database attached as Attach. The
	// dataset's name is a view joining them; see Relation.
	PartColumns int      `json:"part_columns,omitempty"`
	Columns     []Column `json:"columns"`
	Warnings    []string `json:"warnings,omitempty"`
	LoadMS      float64  `json:"load_ms"`
	// MaxRows is the row limit of a query's result imported from a
	// database (Part holds the query), so that it can be run again; 0
	// for everything else.
	MaxRows int64 `json:"max_rows,omitempty"`
	// Text holds the import options the user chose for a text file, so
	// that a refresh reads it the same way; nil when all were detected.
	Text *TextOptions `json:"text,omitempty"`
	// Note is the user's note on the dataset (see SetNotes); it is kept
	// across refreshes and renames.
	Note string `json:"note,omitempty"`
	// Comment is the source's own comment on the table (a DuckDB file's
	// COMMENT ON TABLE), read at each load; a Note wins over it.
	Comment string `json:"comment,omitempty"`
	// PrimaryKey and Foreign are the keys the source declares (a DuckDB
	// file's constraints), read at each load; Foreign's RefTable names
	// another dataset of the same file.
	PrimaryKey []string     `json:"primary_key,omitempty"`
	Foreign    []ForeignKey `json:"foreign_keys,omitempty"`
	// Profiled is set only when the column statistics were computed and
	// recorded. A load stores the dataset first and profiles it after
	// the commit, so a load killed in between leaves it false (see
	// NeedsProfile).
	Profiled bool `json:"profiled,omitempty"`
	// ProfileFailure, when set, records that computing the statistics
	// after the load failed, so that it is not tried again (and reported
	// again) until the dataset changes; see Fingerprint.
	ProfileFailure *Failure `json:"profile_failure,omitempty"`
}

// TextOptions are how a delimited text file is read, where the user
// says rather than Loupe detects. Empty fields are detected.
type TextOptions struct {
	Delimiter string `json:"delimiter,omitempty"` // one character; "\t" is a tab
	Decimal   string `json:"decimal,omitempty"`   // "," or "."
	Header    string `json:"header,omitempty"`    // "yes" or "no"
	Encoding  string `json:"encoding,omitempty"`  // "utf-8", "latin-1" or "utf-16"
	SkipRows  int    `json:"skip_rows,omitempty"` // lines before the header (or the data)
}

// IsZero reports whether o leaves everything to detection.
func (o TextOptions) IsZero() bool { return o == TextOptions{} }

// Failure is a failed attempt at a dataset's statistics.
type Failure struct {
	Fingerprint string    `json:"fingerprint"`
	Error       string    `json:"error"`
	At          time.Time `json:"at"`
}

// Fingerprint identifies the version of d's data: it changes when d is
// loaded again or its source file changes size or time.
func (d Dataset) Fingerprint() string {
	return fmt.Sprintf("%s|%s|%d|%s|%s", d.Source, d.Part, d.SizeBytes, d.ModTime.UTC().Format(time.RFC3339Nano), d.LoadedAt.UTC().Format(time.RFC3339Nano))
}

// GaveUpProfiling reports whether computing d's statistics failed for
// this version of its data.
func (d Dataset) GaveUpProfiling() bool {
	return d.ProfileFailure != nil && d.ProfileFailure.Fingerprint == d.Fingerprint()
}

// NeedsProfile reports whether d lacks its column statistics: it was never
// marked Profiled and, for records written before that flag existed, no
// column has any statistic either.
func (d Dataset) NeedsProfile() bool {
	if d.Profiled {
		return false
	}
	for _, c := range d.Columns {
		if c.Nulls != 0 || c.Distinct != 0 || c.Min != nil || c.Max != nil || len(c.Top) > 0 || len(c.Samples) > 0 {
			return false
		}
	}
	return true
}

// Column holds a column's type and statistics.
type Column struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Nulls    int64    `json:"nulls"`
	Distinct int64    `json:"distinct"` // approximate
	Min      *string  `json:"min,omitempty"`
	Max      *string  `json:"max,omitempty"`
	Top      []Value  `json:"top,omitempty"`     // most frequent values of low-cardinality columns
	Samples  []string `json:"samples,omitempty"` // a few example values
	Note     string   `json:"note,omitempty"`    // the user's note (see SetNotes)
	Comment  string   `json:"comment,omitempty"` // the source's comment, read at load
}

// Value is a value and how often it occurs.
type Value struct {
	Value string `json:"value"`
	Count int64  `json:"count"`
}

// Conn is the driver connection catalog writes go through, so that they
// join the caller's transaction.
type Conn interface {
	driver.ExecerContext
	driver.QueryerContext
}

// Ensure creates the catalog's schema if it is missing, and brings a
// catalog of an older version up to this one.
func Ensure(ctx context.Context, c Conn) error {
	cols := ""
	for _, col := range summaryColumns {
		cols += ", " + col[0] + " " + col[1]
	}
	for _, q := range []string{
		"CREATE SCHEMA IF NOT EXISTS _loupe",
		"CREATE TABLE IF NOT EXISTS _loupe.meta (key VARCHAR PRIMARY KEY, value VARCHAR)",
		"CREATE TABLE IF NOT EXISTS _loupe.datasets (name VARCHAR PRIMARY KEY, source VARCHAR, part VARCHAR, info VARCHAR" + cols + ")",
	} {
		if _, err := c.ExecContext(ctx, q, nil); err != nil {
			return fmt.Errorf("catalog schema: %w", err)
		}
	}
	version := 0
	err := each(ctx, c, "SELECT value FROM _loupe.meta WHERE key = 'catalog_version'", nil, func(v []driver.Value) {
		version, _ = strconv.Atoi(fmt.Sprint(v[0]))
	})
	if err != nil {
		return fmt.Errorf("catalog version: %w", err)
	}
	if version >= Version {
		return nil
	}
	if version > 0 {
		if err := migrateSummaries(ctx, c); err != nil {
			return err
		}
	}
	if _, err := c.ExecContext(ctx, fmt.Sprintf("INSERT OR REPLACE INTO _loupe.meta VALUES ('catalog_version', '%d')", Version), nil); err != nil {
		return fmt.Errorf("catalog version: %w", err)
	}
	return nil
}

// Put stores d, replacing any record with the same name. A new name is
// inserted plainly: DuckDB's INSERT OR REPLACE holds several copies of
// the record while it looks for the conflict (a 6 MB record, the
// columns of a 30,000-column file, took 60 MB against 20 MB), so a
// caller replacing a large record in a transaction deletes it first.
func Put(ctx context.Context, c Conn, d Dataset) error {
	taken, err := Taken(ctx, c, d.Name)
	if err != nil {
		return err
	}
	if taken {
		return store(ctx, c, "INSERT OR REPLACE", d)
	}
	return store(ctx, c, "INSERT", d)
}

// Insert stores d, which no record is called yet (the caller has just
// looked, in the same transaction; see GetOn): a plain insert costs
// DuckDB about half of Put's, which must look for a record to replace.
// A record of the same name is an error.
func Insert(ctx context.Context, c Conn, d Dataset) error {
	return store(ctx, c, "INSERT", d)
}

func store(ctx context.Context, c Conn, verb string, d Dataset) error {
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("encode dataset %s: %w", d.Name, err)
	}
	summary, err := summaryValues(d)
	if err != nil {
		return fmt.Errorf("encode dataset %s: %w", d.Name, err)
	}
	cols, marks := "name, source, part, info", "$1, $2, $3, $4"
	args := []driver.NamedValue{{Ordinal: 1, Value: d.Name}, {Ordinal: 2, Value: d.Source}, {Ordinal: 3, Value: d.Part}, {Ordinal: 4, Value: string(b)}}
	for i, col := range summaryColumns {
		cols += ", " + col[0]
		marks += fmt.Sprintf(", $%d", i+5)
		args = append(args, driver.NamedValue{Ordinal: i + 5, Value: summary[i]})
	}
	_, err = c.ExecContext(ctx, verb+" INTO _loupe.datasets ("+cols+") VALUES ("+marks+")", args)
	if err != nil {
		return fmt.Errorf("record dataset %s: %w", d.Name, err)
	}
	return nil
}

// GetOn reads the record of name on c, inside the caller's transaction.
func GetOn(ctx context.Context, c Conn, name string) (Dataset, error) { return getOn(ctx, c, name) }

// Delete removes the record of name.
func Delete(ctx context.Context, c Conn, name string) error {
	_, err := c.ExecContext(ctx, "DELETE FROM _loupe.datasets WHERE name = $1", []driver.NamedValue{{Ordinal: 1, Value: name}})
	if err != nil {
		return fmt.Errorf("forget dataset %s: %w", name, err)
	}
	return nil
}

// List returns every dataset, ordered by name. It decodes every record:
// what runs at every start (see Attached, Unprofiled) or for every file
// loaded (see OfSource, Taken) reads only the records it needs.
func List(ctx context.Context, db *sql.DB) ([]Dataset, error) {
	return listWhere(ctx, db, "")
}

// Attachment is what opening a workspace needs of a dataset that reads
// an attached database file: its name, source, file and alias.
type Attachment struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	Kind   string `json:"kind"`
	Part   string `json:"part,omitempty"`
	Staged string `json:"staged"`
	Attach string `json:"attach"`
}

// Attached returns the attachments of the datasets that read an attached
// database file (Attach set), ordered by name. Only their records are
// read, found by their attach column, and of each only these fields are
// decoded: the record of a wide dataset holds tens of thousands of
// columns (6 MB of JSON at 30,000), which an open has no use for.
func Attached(ctx context.Context, db *sql.DB) ([]Attachment, error) {
	rows, err := db.QueryContext(ctx, `SELECT info FROM _loupe.datasets WHERE attach <> '' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list attached datasets: %w", err)
	}
	defer rows.Close()
	var out []Attachment
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return nil, fmt.Errorf("list attached datasets: %w", err)
		}
		var a Attachment
		if err := json.Unmarshal([]byte(raw), &a); err != nil {
			return nil, fmt.Errorf("decode dataset record: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Unprofiled returns the datasets whose records are not marked Profiled,
// ordered by name: the candidates of NeedsProfile, found by their
// profiled column without reading the records of the others.
func Unprofiled(ctx context.Context, db *sql.DB) ([]Dataset, error) {
	return listWhere(ctx, db, `WHERE NOT profiled`)
}

func listWhere(ctx context.Context, db *sql.DB, where string) ([]Dataset, error) {
	rows, err := db.QueryContext(ctx, "SELECT info FROM _loupe.datasets "+where+" ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("list datasets: %w", err)
	}
	defer rows.Close()
	var out []Dataset
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return nil, fmt.Errorf("list datasets: %w", err)
		}
		var d Dataset
		if err := json.Unmarshal([]byte(raw), &d); err != nil {
			return nil, fmt.Errorf("decode dataset record: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// Get returns the dataset called name, or ErrNotFound.
func Get(ctx context.Context, db *sql.DB, name string) (Dataset, error) {
	var raw string
	err := db.QueryRowContext(ctx, "SELECT info FROM _loupe.datasets WHERE name = $1", name).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return Dataset{}, fmt.Errorf("dataset %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return Dataset{}, fmt.Errorf("dataset %q: %w", name, err)
	}
	var d Dataset
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		return Dataset{}, fmt.Errorf("decode dataset %q: %w", name, err)
	}
	return d, nil
}

// Names returns every dataset on c by name. It decodes every record; a
// load uses OfSource and Taken instead, whose cost does not grow with the
// number of datasets.
func Names(ctx context.Context, c Conn) (map[string]Dataset, error) {
	return byName(ctx, c, "SELECT info FROM _loupe.datasets", nil)
}

// OfSource returns the datasets on c loaded from source (an absolute
// path), by name, reading only their records: a reload of the file keeps
// their names and drops the parts that vanished from it.
func OfSource(ctx context.Context, c Conn, source string) (map[string]Dataset, error) {
	return byName(ctx, c, "SELECT info FROM _loupe.datasets WHERE source = $1", []driver.NamedValue{{Ordinal: 1, Value: source}})
}

// Taken reports whether a dataset on c is called name, in one lookup
// whatever the number of datasets.
func Taken(ctx context.Context, c Conn, name string) (bool, error) {
	rows, err := c.QueryContext(ctx, "SELECT 1 FROM _loupe.datasets WHERE name = $1", []driver.NamedValue{{Ordinal: 1, Value: name}})
	if err != nil {
		return false, fmt.Errorf("look up dataset %s: %w", name, err)
	}
	defer rows.Close()
	err = rows.Next([]driver.Value{nil})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, io.EOF):
		return false, nil
	}
	return false, fmt.Errorf("look up dataset %s: %w", name, err)
}

func byName(ctx context.Context, c Conn, q string, args []driver.NamedValue) (map[string]Dataset, error) {
	rows, err := c.QueryContext(ctx, q, args)
	if err != nil {
		return nil, fmt.Errorf("list datasets: %w", err)
	}
	defer rows.Close()
	out := map[string]Dataset{}
	dest := []driver.Value{nil}
	for {
		if err := rows.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("list datasets: %w", err)
		}
		var d Dataset
		raw, _ := dest[0].(string)
		if err := json.Unmarshal([]byte(raw), &d); err != nil {
			return nil, fmt.Errorf("decode dataset record: %w", err)
		}
		out[d.Name] = d
	}
}
