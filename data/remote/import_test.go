package remote_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/remote/pg"
	"github.com/loupeapp/loupe/data/remote/remotetest"
	"github.com/loupeapp/loupe/data/remote/sqlite"
	"github.com/loupeapp/loupe/data/workspace"
)

func openPG(t *testing.T) (*pg.Source, remote.Profile) {
	t.Helper()
	env := remotetest.Servers(t, "pg")
	port, _ := strconv.Atoi(env["LOUPE_PG_PORT"])
	p := remote.Profile{Name: "chinook", Kind: remote.Postgres, Host: env["LOUPE_PG_HOST"], Port: port,
		Database: env["LOUPE_PG_DATABASE"], User: env["LOUPE_PG_RO_USER"], TLS: remote.TLSDisable}
	s, err := pg.Open(context.Background(), p, env["LOUPE_PG_RO_PASSWORD"])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p, _ = p.Normalize()
	return s, p
}

func openWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	w, err := workspace.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func one(t *testing.T, w *workspace.Workspace, text string) any {
	t.Helper()
	res, err := w.Query.Run(context.Background(), text, query.Limits{})
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return res.Rows[0][0]
}

// TestImportFromPostgres imports a remote join into the workspace and
// checks it against the server's own answers, joined with local data.
func TestImportFromPostgres(t *testing.T) {
	src, p := openPG(t)
	w := openWorkspace(t)
	ctx := context.Background()
	var mu sync.Mutex
	var phases []string
	var lastRows int64
	d, err := remote.Import(ctx, w.Engine, src, `SELECT t.track_id, t.name, t.unit_price, t.milliseconds, g.name AS name, i.invoice_date, il.quantity
FROM invoice_line il JOIN track t USING (track_id) JOIN genre g USING (genre_id) JOIN invoice i USING (invoice_id)`,
		remote.ImportOptions{Table: "pg_sales", Origin: p.URL(), Progress: func(pr remote.ImportProgress) {
			mu.Lock()
			defer mu.Unlock()
			if len(phases) == 0 || phases[len(phases)-1] != pr.Phase {
				phases = append(phases, pr.Phase)
			}
			lastRows = pr.Rows
		}})
	if err != nil {
		t.Fatal(err)
	}
	remoteLines, err := src.Query(ctx, "SELECT count(*), sum(unit_price * quantity) FROM invoice_line", query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows != remoteLines.Rows[0][0].(int64) || lastRows != d.Rows {
		t.Fatalf("imported %d rows (progress said %d), the server has %v", d.Rows, lastRows, remoteLines.Rows[0][0])
	}
	if len(phases) != 3 || phases[0] != "reading" || phases[2] != "done" {
		t.Fatalf("progress phases %v", phases)
	}
	types := map[string]string{}
	for _, c := range d.Columns {
		types[c.Name] = c.Type
	}
	want := map[string]string{"track_id": "BIGINT", "name": "VARCHAR", "name_2": "VARCHAR", "unit_price": "DOUBLE", "invoice_date": "TIMESTAMP", "quantity": "BIGINT"}
	for n, typ := range want {
		if types[n] != typ {
			t.Errorf("column %s: %s, want %s (all: %v)", n, types[n], typ, types)
		}
	}
	got, err := catalog.Get(ctx, w.Engine.DB(), "pg_sales")
	if err != nil || got.Kind != "postgres" || got.Source != p.URL() || got.Storage != "table" || len(got.Warnings) != 0 {
		t.Fatalf("catalog record: %+v %v", got, err)
	}
	if c := got.Columns[0]; c.Distinct == 0 || c.Min == nil {
		t.Fatalf("no statistics: %+v", c)
	}
	sum := one(t, w, "SELECT round(sum(unit_price * quantity), 2) FROM pg_sales")
	if sum.(float64) != remoteLines.Rows[0][1].(float64) {
		t.Fatalf("sales total %v in the workspace, %v on the server", sum, remoteLines.Rows[0][1])
	}
	if y := one(t, w, "SELECT min(year(invoice_date)) FROM pg_sales"); y.(int64) < 2000 {
		t.Fatalf("invoice dates not read as timestamps: %v", y)
	}
	// Joined with a local file.
	csv := filepath.Join(t.TempDir(), "targets.csv")
	if err := os.WriteFile(csv, []byte("genre,target\nRock,500\nJazz,50\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Loader.Load(ctx, csv, load.Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := w.Query.Run(ctx, `SELECT t.genre, round(sum(s.unit_price * s.quantity), 2) AS sales, any_value(t.target) AS target
FROM pg_sales s JOIN targets t ON t.genre = s.name_2 GROUP BY t.genre ORDER BY t.genre`, query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	rock, err := src.Query(ctx, "SELECT round(sum(il.unit_price * il.quantity), 2) FROM invoice_line il JOIN track t USING (track_id) JOIN genre g USING (genre_id) WHERE g.name = 'Rock'", query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || res.Rows[1][0] != "Rock" || res.Rows[1][1] != rock.Rows[0][0] {
		t.Fatalf("local join: %v, server says Rock sold %v", res.Rows, rock.Rows)
	}
}

func TestImportLimitReplaceCancel(t *testing.T) {
	src, p := openPG(t)
	w := openWorkspace(t)
	ctx := context.Background()
	opt := remote.ImportOptions{Table: "tracks", Origin: p.URL(), MaxRows: 100}
	d, err := remote.Import(ctx, w.Engine, src, "SELECT * FROM track ORDER BY track_id", opt)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows != 100 || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "row limit of 100") {
		t.Fatalf("limited import: %d rows, %v", d.Rows, d.Warnings)
	}
	if n := one(t, w, "SELECT max(track_id) FROM tracks"); n != int64(100) {
		t.Fatalf("max track_id %v", n)
	}
	if _, err := remote.Import(ctx, w.Engine, src, "SELECT 1 AS a", opt); !errors.Is(err, remote.ErrExists) {
		t.Fatalf("want ErrExists, got %v", err)
	}
	opt.Replace, opt.MaxRows = true, 0
	d, err = remote.Import(ctx, w.Engine, src, "SELECT genre_id, name FROM genre", opt)
	if err != nil || d.Rows != one(t, w, "SELECT count(*) FROM tracks").(int64) || len(d.Columns) != 2 {
		t.Fatalf("replace: %+v %v", d, err)
	}
	// A cancelled import leaves nothing behind, here or on the server.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(500 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err = remote.Import(cctx, w.Engine, src, "SELECT pg_sleep(60), 1 AS x", remote.ImportOptions{Table: "slow", Origin: p.URL()})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Fatalf("cancel: %v after %v", err, time.Since(start))
	}
	res, err := w.Query.Run(ctx, "SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE '_loupe_import%' OR table_name = 'slow'", query.Limits{})
	if err != nil || res.Rows[0][0] != int64(0) {
		t.Fatalf("left behind: %v %v", res.Rows, err)
	}
	if _, err := catalog.Get(ctx, w.Engine.DB(), "slow"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("catalog holds the cancelled import: %v", err)
	}
	if _, err := remote.Import(ctx, w.Engine, src, "SELECT 1 AS a", remote.ImportOptions{Table: "1bad"}); err == nil {
		t.Fatal("a bad table name was accepted")
	}
	if _, err := remote.Import(ctx, w.Engine, src, "DELETE FROM track", remote.ImportOptions{Table: "x"}); !errors.Is(err, guard.ErrRefused) {
		t.Fatalf("a write was not refused: %v", err)
	}
}

// TestImportCancelMidProfile cancels an import while DuckDB profiles the
// rows it read: Import returns context.Canceled within a second, no table
// of it is left, and the dataset it was to replace is as it was. Before,
// the profile ran to its end whatever the context (minutes on a wide
// result) and the import was kept.
func TestImportCancelMidProfile(t *testing.T) {
	src, p := openPG(t)
	w := openWorkspace(t)
	ctx := context.Background()
	prior, err := remote.Import(ctx, w.Engine, src, "SELECT genre_id, name FROM genre", remote.ImportOptions{Table: "wide", Origin: p.URL()})
	if err != nil {
		t.Fatal(err)
	}
	// 80 columns of few distinct values × 150,000 rows: a profile of
	// seconds (frequent values are counted for each column).
	sel := []string{"g AS id"}
	for i := 0; i < 80; i++ {
		sel = append(sel, fmt.Sprintf("(g * %d) %% 41 AS k%d", i+3, i))
	}
	text := "SELECT " + strings.Join(sel, ", ") + " FROM generate_series(1, 150000) AS g"
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cancelled := make(chan time.Time, 1)
	var once sync.Once
	opt := remote.ImportOptions{Table: "wide", Origin: p.URL(), Replace: true, Progress: func(ip remote.ImportProgress) {
		if ip.Phase == "profiling" {
			once.Do(func() {
				go func() {
					time.Sleep(50 * time.Millisecond)
					cancelled <- time.Now()
					cancel()
				}()
			})
		}
	}}
	_, err = remote.Import(cctx, w.Engine, src, text, opt)
	var at time.Time
	select {
	case at = <-cancelled:
	default:
		t.Fatalf("the import ended before the cancel, 50 ms into its profile: %v", err)
	}
	took := time.Since(at)
	t.Logf("Import returned %v, %s after the cancel", err, took.Round(time.Millisecond))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancel mid-profile: %v, want context.Canceled", err)
	}
	if took > time.Second {
		t.Errorf("Import returned %s after the cancel, want < 1s", took)
	}
	res, err := w.Query.Run(ctx, "SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE '_loupe_import%'", query.Limits{})
	if err != nil || res.Rows[0][0] != int64(0) {
		t.Fatalf("left behind: %v %v", res.Rows, err)
	}
	d, err := catalog.Get(ctx, w.Engine.DB(), "wide")
	if err != nil || d.Part != prior.Part || d.Rows != prior.Rows || len(d.Columns) != 2 {
		t.Fatalf("the replaced dataset after the cancel: %+v, %v; want the genre import", d, err)
	}
	if n := one(t, w, "SELECT count(*) FROM wide"); n != prior.Rows {
		t.Fatalf("wide holds %v rows, want the %d genres", n, prior.Rows)
	}
}

// TestSweepDropsImportStaging: a staging table an import killed mid-way
// left (committed before its profile) is dropped when the workspace opens
// again.
func TestSweepDropsImportStaging(t *testing.T) {
	dir := t.TempDir()
	w, err := workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Engine.DB().Exec("CREATE TABLE _loupe_import_0123456789ab_t AS SELECT 1 AS a"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	w, err = workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var n int64
	if err := w.Engine.DB().QueryRow("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE '_loupe_import%'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d staging tables left after open (%v)", n, err)
	}
}

// TestImportFromSQLite covers a source that names no type for
// expressions: the first row's values decide.
func TestImportFromSQLite(t *testing.T) {
	path, _ := filepath.Abs("sqlite/testdata/Chinook_Sqlite.sqlite")
	src, err := sqlite.Open(context.Background(), remote.Profile{Name: "c", Kind: remote.SQLite, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	w := openWorkspace(t)
	d, err := remote.Import(context.Background(), w.Engine, src,
		" SELECT BillingCountry AS country, count(*) AS invoices, sum(Total) AS total, min(InvoiceDate) AS first FROM Invoice GROUP BY 1\n",
		remote.ImportOptions{Table: "by_country", Origin: "connection c", MaxRows: 500})
	if err != nil {
		t.Fatal(err)
	}
	// The record says how to run the import again.
	rec, err := catalog.Get(context.Background(), w.Engine.DB(), "by_country")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Source != "connection c" || rec.MaxRows != 500 || !strings.HasPrefix(rec.Part, "SELECT BillingCountry") || strings.HasSuffix(rec.Part, "\n") {
		t.Fatalf("catalog record: source %q, part %q, max rows %d", rec.Source, rec.Part, rec.MaxRows)
	}
	types := map[string]string{}
	for _, c := range d.Columns {
		types[c.Name] = c.Type
	}
	if types["invoices"] != "BIGINT" || types["total"] != "DOUBLE" || types["country"] != "VARCHAR" {
		t.Fatalf("types %v", types)
	}
	count, err := src.Query(context.Background(), "SELECT count(*) FROM Invoice", query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if n := one(t, w, "SELECT sum(invoices)::BIGINT FROM by_country"); n != count.Rows[0][0] {
		t.Fatalf("sum of invoices %v, the file has %v", n, count.Rows[0][0])
	}
}

// TestImportReplacingASmallCSVDropsItsReader replaces a small CSV kept as
// a view (reading its copy through a reader, a table macro of the
// catalog's schema) by an import of the same name: the reader, which
// nothing reads through any more, goes with it.
func TestImportReplacingASmallCSVDropsItsReader(t *testing.T) {
	ctx := context.Background()
	w := openWorkspace(t)
	p := filepath.Join(t.TempDir(), "by_country.csv")
	if err := os.WriteFile(p, []byte("country,invoices\nItaly,3\nFrance,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := w.Loader.Load(ctx, p, load.Options{})
	if err != nil || ds[0].Reader == "" {
		t.Fatalf("load: %v, %+v; want a view through a reader", err, ds)
	}
	readers := "SELECT count(*) FROM duckdb_functions() WHERE schema_name = '_loupe' AND function_type = 'table_macro'"
	if n := one(t, w, readers); n != int64(1) {
		t.Fatalf("%v readers after the load, want 1", n)
	}
	path, _ := filepath.Abs("sqlite/testdata/Chinook_Sqlite.sqlite")
	src, err := sqlite.Open(ctx, remote.Profile{Name: "c", Kind: remote.SQLite, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	_, err = remote.Import(ctx, w.Engine, src, "SELECT BillingCountry AS country, count(*) AS invoices FROM Invoice GROUP BY 1",
		remote.ImportOptions{Table: "by_country", Origin: "connection c", MaxRows: 500, Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := one(t, w, readers); n != int64(0) {
		t.Errorf("%v readers after the import replaced the CSV, want 0", n)
	}
	if n := one(t, w, "SELECT count(*) FROM by_country"); n.(int64) < 3 {
		t.Errorf("%v rows imported", n)
	}
}
