package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// onConn runs fn on one connection of db, as the workspace's writer does.
func onConn(t *testing.T, db *sql.DB, fn func(c *duckdb.Conn) error) {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Raw(func(dc any) error { return fn(dc.(*duckdb.Conn)) }); err != nil {
		t.Fatal(err)
	}
}

// summaryOf is the summary a record should list as.
func summaryOf(d Dataset) Summary {
	return Summary{Name: d.Name, Kind: d.Kind, Source: d.Source, Part: d.Part, Storage: d.Storage, Rows: d.Rows, SizeBytes: d.SizeBytes,
		Columns: len(d.Columns), LoadedAt: d.LoadedAt, Note: d.Note, Comment: d.Comment, Warnings: d.Warnings}
}

var summaryRecords = []Dataset{
	{Name: "sales", Kind: "csv", Source: "/d/sales.csv", Storage: "view", Rows: 200, SizeBytes: 7000, Staged: "/w/import/sales-x-1.csv",
		LoadedAt: time.Date(2026, 11, 26, 1, 2, 3, 456789000, time.UTC), Note: `a note with "quotes"`, Profiled: true,
		Columns: []Column{{Name: "store", Type: "VARCHAR", Distinct: 3}, {Name: "amount", Type: "DOUBLE"}}},
	{Name: "book_jan", Kind: "xlsx", Source: "/d/book.xlsx", Part: "Jan", Storage: "table", Rows: 0, Comment: "January",
		Warnings: []string{"the table has no rows (only a header or an empty sheet)", "sheet 'Feb' is no longer in the file"}},
}

// TestSummaries: the list a window shows comes from the summary columns
// and says what the records say, for records put now.
func TestSummaries(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	onConn(t, db, func(c *duckdb.Conn) error {
		if err := Ensure(ctx, c); err != nil {
			return err
		}
		for _, d := range summaryRecords {
			if err := Put(ctx, c, d); err != nil {
				return err
			}
		}
		return nil
	})
	got, err := Summaries(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	want := []Summary{summaryOf(summaryRecords[1]), summaryOf(summaryRecords[0])}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Summaries =\n%+v\nwant\n%+v", got, want)
	}
	if n, err := Count(ctx, db); err != nil || n != 2 {
		t.Errorf("Count = %d, %v", n, err)
	}
	onConn(t, db, func(c *duckdb.Conn) error {
		for in, want := range map[string]string{"SALES": "sales", "book_JAN": "book_jan", "nope": ""} {
			if got, err := NameLike(ctx, c, in); err != nil || got != want {
				t.Errorf("NameLike(%q) = %q, %v; want %q", in, got, err, want)
			}
		}
		return nil
	})
}

// TestSummariesOfAnOlderCatalog: a workspace made before the summary
// columns gets them, filled from its records, when it opens.
func TestSummariesOfAnOlderCatalog(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Version 1's schema, as Ensure made it, with records as Put wrote them.
	for _, q := range []string{
		"CREATE SCHEMA _loupe",
		"CREATE TABLE _loupe.meta (key VARCHAR PRIMARY KEY, value VARCHAR)",
		"CREATE TABLE _loupe.datasets (name VARCHAR PRIMARY KEY, source VARCHAR, part VARCHAR, info VARCHAR)",
		"INSERT INTO _loupe.meta VALUES ('catalog_version', '1')",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range summaryRecords {
		b, _ := json.Marshal(d)
		if _, err := db.ExecContext(ctx, "INSERT INTO _loupe.datasets VALUES ($1, $2, $3, $4)", d.Name, d.Source, d.Part, string(b)); err != nil {
			t.Fatal(err)
		}
	}
	onConn(t, db, func(c *duckdb.Conn) error { return Ensure(ctx, c) })
	got, err := Summaries(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	want := []Summary{summaryOf(summaryRecords[1]), summaryOf(summaryRecords[0])}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Summaries after the upgrade =\n%+v\nwant\n%+v", got, want)
	}
	var v string
	if err := db.QueryRowContext(ctx, "SELECT value FROM _loupe.meta WHERE key = 'catalog_version'").Scan(&v); err != nil || v != strconv.Itoa(Version) {
		t.Errorf("catalog_version = %q, %v; want %d", v, err, Version)
	}
	// A record put after the upgrade lists too, and a second Ensure leaves all as it is.
	onConn(t, db, func(c *duckdb.Conn) error {
		if err := Put(ctx, c, Dataset{Name: "new", Kind: "parquet", Storage: "view", Rows: 5}); err != nil {
			return err
		}
		return Ensure(ctx, c)
	})
	if got, _ := Summaries(ctx, db); len(got) != 3 || got[1].Name != "new" || got[1].Rows != 5 || got[2].Note != summaryRecords[0].Note {
		t.Errorf("after a put and a second Ensure: %+v", got)
	}
}

// TestShares: removing a dataset lets go of its staged file or attached
// database only when no other dataset reads them.
func TestShares(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	trips := Dataset{Name: "nyc_trips", Part: "trips", Staged: "/w/import/nyc.duckdb", Attach: "src_nyc"}
	zones := Dataset{Name: "nyc_zones", Part: "zones", Staged: "/w/import/nyc.duckdb", Attach: "src_nyc"}
	alone := Dataset{Name: "sales", Staged: "/w/import/sales-x-1.csv", Note: `mentions "staged":"/w/import/nyc.duckdb"`}
	onConn(t, db, func(c *duckdb.Conn) error {
		if err := Ensure(ctx, c); err != nil {
			return err
		}
		for _, d := range []Dataset{trips, zones, alone} {
			if err := Put(ctx, c, d); err != nil {
				return err
			}
		}
		for _, tc := range []struct {
			d              Dataset
			staged, attach bool
		}{{trips, true, true}, {alone, false, false}, {Dataset{Name: "plain"}, false, false}} {
			s, a, err := Shares(ctx, c, tc.d)
			if err != nil || s != tc.staged || a != tc.attach {
				t.Errorf("Shares(%s) = %v, %v, %v; want %v, %v", tc.d.Name, s, a, err, tc.staged, tc.attach)
			}
		}
		if err := Delete(ctx, c, "nyc_zones"); err != nil {
			return err
		}
		if s, a, err := Shares(ctx, c, trips); err != nil || s || a {
			t.Errorf("Shares(nyc_trips) alone = %v, %v, %v; want false, false (a note's text is not a staged file)", s, a, err)
		}
		return nil
	})
}

// TestColumnsOfVersion3: a catalog of version 2 gets the staged, attach
// and profiled columns, filled from its records, when it opens, and
// Attached, Unprofiled and Shares find the records by them.
func TestColumnsOfVersion3(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v2 := "kind VARCHAR, rows BIGINT, size_bytes BIGINT, storage VARCHAR, n_columns INTEGER, loaded_at VARCHAR, note VARCHAR, comment VARCHAR, warnings VARCHAR"
	for _, q := range []string{
		"CREATE SCHEMA _loupe",
		"CREATE TABLE _loupe.meta (key VARCHAR PRIMARY KEY, value VARCHAR)",
		"CREATE TABLE _loupe.datasets (name VARCHAR PRIMARY KEY, source VARCHAR, part VARCHAR, info VARCHAR, " + v2 + ")",
		"INSERT INTO _loupe.meta VALUES ('catalog_version', '2')",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	records := []Dataset{
		{Name: "trips", Staged: "/w/import/nyc.duckdb", Attach: "src_nyc", Profiled: true},
		{Name: "daily", Staged: "/w/import/daily-x-1.csv", Profiled: true, Note: `says "attach":"src_nyc"`},
		{Name: "fresh"},
	}
	for _, d := range records {
		b, _ := json.Marshal(d)
		if _, err := db.ExecContext(ctx, "INSERT INTO _loupe.datasets (name, source, part, info, n_columns) VALUES ($1, $2, $3, $4, 0)", d.Name, d.Source, d.Part, string(b)); err != nil {
			t.Fatal(err)
		}
	}
	onConn(t, db, func(c *duckdb.Conn) error { return Ensure(ctx, c) })
	names := func(ds []Dataset, err error) string {
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range ds {
			out = append(out, d.Name)
		}
		return strings.Join(out, ",")
	}
	attached := func(as []Attachment, err error) string {
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range as {
			out = append(out, a.Name)
		}
		return strings.Join(out, ",")
	}
	if got := attached(Attached(ctx, db)); got != "trips" {
		t.Errorf("Attached after the upgrade: %s, want trips", got)
	}
	if got := names(Unprofiled(ctx, db)); got != "fresh" {
		t.Errorf("Unprofiled after the upgrade: %s, want fresh", got)
	}
	var staged string
	if err := db.QueryRowContext(ctx, "SELECT staged FROM _loupe.datasets WHERE name = 'daily'").Scan(&staged); err != nil || staged != records[1].Staged {
		t.Errorf("staged of daily = %q, %v; want %s", staged, err, records[1].Staged)
	}
	onConn(t, db, func(c *duckdb.Conn) error {
		if err := Put(ctx, c, Dataset{Name: "zones", Staged: "/w/import/nyc.duckdb", Attach: "src_nyc", Profiled: true}); err != nil {
			return err
		}
		if s, a, err := Shares(ctx, c, records[0]); err != nil || !s || !a {
			t.Errorf("Shares(trips) with zones put = %v, %v, %v; want true, true", s, a, err)
		}
		return nil
	})
	if got := attached(Attached(ctx, db)); got != "trips,zones" {
		t.Errorf("Attached after a put: %s, want trips,zones", got)
	}
}
