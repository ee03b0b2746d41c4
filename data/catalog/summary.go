package catalog

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Summary is what a list of datasets shows of each: read from columns
// of its own beside the record (kept by Put), so that listing thousands
// of datasets decodes none of their records. Decode one with Get when it
// is used.
type Summary struct {
	Name      string
	Kind      string
	Source    string
	Part      string
	Storage   string
	Rows      int64
	SizeBytes int64
	Columns   int // how many; the columns themselves are in the record
	LoadedAt  time.Time
	Note      string
	Comment   string
	Warnings  []string
}

// summaryColumns are the columns of _loupe.datasets besides name,
// source, part and info, in Put's order, with their types.
var summaryColumns = [][2]string{
	{"kind", "VARCHAR"}, {"rows", "BIGINT"}, {"size_bytes", "BIGINT"}, {"storage", "VARCHAR"}, {"n_columns", "INTEGER"},
	{"loaded_at", "VARCHAR"}, {"note", "VARCHAR"}, {"comment", "VARCHAR"}, {"warnings", "VARCHAR"},
	{"staged", "VARCHAR"}, {"attach", "VARCHAR"}, {"profiled", "BOOLEAN"}, {"reader", "VARCHAR"},
}

// summaryValues are d's values for summaryColumns.
func summaryValues(d Dataset) ([]any, error) {
	warnings := ""
	if len(d.Warnings) > 0 {
		b, err := json.Marshal(d.Warnings)
		if err != nil {
			return nil, err
		}
		warnings = string(b)
	}
	return []any{d.Kind, d.Rows, d.SizeBytes, d.Storage, int32(len(d.Columns)),
		d.LoadedAt.UTC().Format(time.RFC3339Nano), d.Note, d.Comment, warnings, d.Staged, d.Attach, d.Profiled, d.Reader}, nil
}

// migrateSummaries adds the summary columns to a catalog of version 1,
// 2 or 3 and fills them from the records, once.
func migrateSummaries(ctx context.Context, c Conn) error {
	for _, col := range summaryColumns {
		if _, err := c.ExecContext(ctx, "ALTER TABLE _loupe.datasets ADD COLUMN IF NOT EXISTS "+col[0]+" "+col[1], nil); err != nil {
			return fmt.Errorf("catalog: add column %s: %w", col[0], err)
		}
	}
	q := `UPDATE _loupe.datasets SET kind = coalesce(json_extract_string(info, '$.kind'), ''), rows = coalesce((info->>'$.rows')::BIGINT, 0),
		size_bytes = coalesce((info->>'$.size_bytes')::BIGINT, 0), storage = coalesce(info->>'$.storage', ''),
		n_columns = coalesce(json_array_length(info, '$.columns'), 0), loaded_at = coalesce(info->>'$.loaded_at', ''),
		note = coalesce(info->>'$.note', ''), comment = coalesce(info->>'$.comment', ''),
		warnings = CASE WHEN coalesce(json_array_length(info, '$.warnings'), 0) = 0 THEN '' ELSE info->>'$.warnings' END
		WHERE n_columns IS NULL`
	if _, err := c.ExecContext(ctx, q, nil); err != nil {
		return fmt.Errorf("catalog: fill the summary columns: %w", err)
	}
	q = `UPDATE _loupe.datasets SET staged = coalesce(info->>'$.staged', ''), attach = coalesce(info->>'$.attach', ''),
		profiled = coalesce((info->>'$.profiled')::BOOLEAN, false) WHERE profiled IS NULL`
	if _, err := c.ExecContext(ctx, q, nil); err != nil {
		return fmt.Errorf("catalog: fill the summary columns of version 3: %w", err)
	}
	q = `UPDATE _loupe.datasets SET reader = coalesce(info->>'$.reader', '') WHERE reader IS NULL`
	if _, err := c.ExecContext(ctx, q, nil); err != nil {
		return fmt.Errorf("catalog: fill the summary columns of version 4: %w", err)
	}
	return nil
}

// Summaries returns every dataset's summary, ordered by name, without
// decoding any record: what the window's list of datasets shows.
func Summaries(ctx context.Context, db *sql.DB) ([]Summary, error) {
	rows, err := db.QueryContext(ctx, "SELECT name, kind, source, coalesce(part, ''), storage, rows, size_bytes, n_columns, loaded_at, note, comment, warnings FROM _loupe.datasets ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("list datasets: %w", err)
	}
	defer rows.Close()
	out := []Summary{}
	for rows.Next() {
		var (
			s                Summary
			loaded, warnings string
		)
		if err := rows.Scan(&s.Name, &s.Kind, &s.Source, &s.Part, &s.Storage, &s.Rows, &s.SizeBytes, &s.Columns, &loaded, &s.Note, &s.Comment, &warnings); err != nil {
			return nil, fmt.Errorf("list datasets: %w", err)
		}
		if loaded != "" {
			s.LoadedAt, _ = time.Parse(time.RFC3339Nano, loaded)
		}
		if warnings != "" {
			if err := json.Unmarshal([]byte(warnings), &s.Warnings); err != nil {
				return nil, fmt.Errorf("decode the warnings of %s: %w", s.Name, err)
			}
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Count returns how many datasets there are.
func Count(ctx context.Context, db *sql.DB) (int, error) {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM _loupe.datasets").Scan(&n); err != nil {
		return 0, fmt.Errorf("count datasets: %w", err)
	}
	return n, nil
}

// NameLike returns the name of a dataset on c called name in any case
// ("Sales" for "sales"), or "" when none is, in one lookup.
func NameLike(ctx context.Context, c Conn, name string) (string, error) {
	rows, err := c.QueryContext(ctx, "SELECT name FROM _loupe.datasets WHERE lower(name) = lower($1) ORDER BY name = $1 DESC LIMIT 1", []driver.NamedValue{{Ordinal: 1, Value: name}})
	if err != nil {
		return "", fmt.Errorf("look up dataset %s: %w", name, err)
	}
	defer rows.Close()
	dest := []driver.Value{nil}
	if err := rows.Next(dest); err != nil {
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		return "", fmt.Errorf("look up dataset %s: %w", name, err)
	}
	s, _ := dest[0].(string)
	return s, nil
}

// Shares reports whether a dataset on c other than d reads d's staged
// file or d's attached database: what removing d may let go of. It reads
// the staged and attach columns, no record.
func Shares(ctx context.Context, c Conn, d Dataset) (staged, attach bool, err error) {
	if d.Staged == "" && d.Attach == "" {
		return false, false, nil
	}
	q := `SELECT coalesce(bool_or($2 <> '' AND staged = $2), false), coalesce(bool_or($3 <> '' AND attach = $3), false)
		FROM _loupe.datasets WHERE name <> $1`
	err = each(ctx, c, q, []any{d.Name, d.Staged, d.Attach}, func(v []driver.Value) {
		staged, _ = v[0].(bool)
		attach, _ = v[1].(bool)
	})
	if err != nil {
		return false, false, fmt.Errorf("find what else reads %s: %w", d.Name, err)
	}
	return staged, attach, nil
}
