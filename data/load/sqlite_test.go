package load_test

import (
	"context"
	"database/sql"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
)

var chinookTables = map[string]int64{
	"album": 347, "artist": 275, "customer": 59, "employee": 8, "genre": 25, "invoice": 412,
	"invoice_line": 2240, "media_type": 5, "playlist": 18, "playlist_track": 8715, "track": 3503,
}

// TestSQLiteChinook loads the Chinook sample database: 11 tables, 15,607
// rows, declared types mapped, joins answering as in SQLite, progress up
// to 100 %, and a reload that refreshes the same datasets.
func TestSQLiteChinook(t *testing.T) {
	w := openWS(t)
	path := material(t, "../remote/sqlite/testdata/Chinook_Sqlite.sqlite")
	var mu sync.Mutex
	var last load.Progress
	ds, err := w.Loader.Load(context.Background(), path, load.Options{Progress: func(p load.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Phase == "reading" {
			if p.Rows < last.Rows {
				t.Errorf("rows went back from %d to %d", last.Rows, p.Rows)
			}
			last = p
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != len(chinookTables) {
		t.Fatalf("%d datasets %v, want %d", len(ds), names(ds), len(chinookTables))
	}
	var total int64
	for _, d := range ds {
		want, ok := chinookTables[d.Name]
		if !ok {
			t.Errorf("unexpected dataset %s (part %s)", d.Name, d.Part)
			continue
		}
		if d.Rows != want || d.Kind != "sqlite" || d.Storage != "table" || d.Source != path || d.Part == "" {
			t.Errorf("%s: rows %d (want %d), kind %q, storage %q, source %q, part %q", d.Name, d.Rows, want, d.Kind, d.Storage, d.Source, d.Part)
		}
		total += d.Rows
	}
	if total != 15607 {
		t.Errorf("%d rows in all, want 15607", total)
	}
	if last.Percent != 100 || last.Rows != 15607 {
		t.Errorf("last reading progress %+v, want 100%% of 15607 rows", last)
	}
	parts := byPart(ds)
	if parts["InvoiceLine"].Name != "invoice_line" {
		t.Errorf("InvoiceLine loaded as %q", parts["InvoiceLine"].Name)
	}
	types := columnTypes(parts["Invoice"])
	for col, typ := range map[string]string{"InvoiceId": "BIGINT", "InvoiceDate": "TIMESTAMP", "BillingCity": "VARCHAR", "Total": "DOUBLE"} {
		if types[col] != typ {
			t.Errorf("Invoice.%s is %s, want %s", col, types[col], typ)
		}
	}
	for q, want := range map[string]string{
		"SELECT g.Name, count(*) FROM track t JOIN genre g USING (GenreId) GROUP BY 1 ORDER BY 2 DESC LIMIT 1":                          "Rock|1297",
		"SELECT c.Country, round(sum(i.Total), 2) FROM invoice i JOIN customer c USING (CustomerId) GROUP BY 1 ORDER BY 2 DESC LIMIT 1": "USA|523.06",
		"SELECT min(InvoiceDate), max(InvoiceDate) FROM invoice":                                                                        "2021-01-01T00:00:00|2025-12-22T00:00:00",
		"SELECT count(*) FROM playlist_track pt JOIN track t USING (TrackId) JOIN playlist p USING (PlaylistId)":                        "8715",
	} {
		got := queryAll(t, w, q)
		if len(got) != 1 || strings.Join(got[0], "|") != want {
			t.Errorf("%s\n got %q\nwant %q", q, got, want)
		}
	}

	again, err := w.Loader.Load(context.Background(), path, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(names(again), ",") != strings.Join(names(ds), ",") {
		t.Errorf("reload gave %v, want %v", names(again), names(ds))
	}
	list, err := catalog.List(context.Background(), w.Engine.DB())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(chinookTables) {
		t.Errorf("catalog holds %d datasets after a reload, want %d", len(list), len(chinookTables))
	}
}

// TestSQLiteNorthwind loads Northwind built by the sqlite3 tool: tables
// and views, names with spaces, DATE and DATETIME columns, pictures.
func TestSQLiteNorthwind(t *testing.T) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Fatal("the sqlite3 command-line tool is missing: run make deps (it installs sqlite3)")
	}
	script, err := os.Open(material(t, "testdata/northwind/create.sql"))
	if err != nil {
		t.Fatal(err)
	}
	defer script.Close()
	path := filepath.Join(t.TempDir(), "nw.db")
	cmd := exec.Command("sqlite3", path)
	// Without syncs the build takes a fraction of a second instead of seconds.
	cmd.Stdin = io.MultiReader(strings.NewReader("PRAGMA synchronous = OFF;\nPRAGMA journal_mode = MEMORY;\n"), script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v: %.500s", err, out)
	}
	w := openWS(t)
	ds, err := w.Loader.Load(context.Background(), path, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	parts := byPart(ds)
	if len(ds) != 13+16 {
		t.Errorf("%d datasets %v, want 13 tables and 16 views", len(ds), names(ds))
	}
	for part, want := range map[string]struct {
		name string
		rows int64
	}{
		"Orders": {"orders", 830}, "Order Details": {"order_details", 2155}, "Employees": {"employees", 9},
		"Categories": {"categories", 8}, "Order Subtotals": {"order_subtotals", 830}, "Alphabetical list of products": {"alphabetical_list_of_products", 69},
	} {
		d := parts[part]
		if d.Name != want.name || d.Rows != want.rows {
			t.Errorf("%q: got %s with %d rows, want %s with %d", part, d.Name, d.Rows, want.name, want.rows)
		}
	}
	for _, c := range []struct{ part, col, typ string }{
		{"Orders", "OrderDate", "TIMESTAMP"}, {"Employees", "BirthDate", "DATE"}, {"Categories", "Picture", "BLOB"},
		{"Order Details", "UnitPrice", "DOUBLE"}, {"Order Details", "Quantity", "BIGINT"}, {"Order Subtotals", "Subtotal", "DOUBLE"},
	} {
		if got := columnTypes(parts[c.part])[c.col]; got != c.typ {
			t.Errorf("%s.%s is %s, want %s", c.part, c.col, got, c.typ)
		}
	}
	got := queryAll(t, w, `SELECT e.LastName, count(*) FROM orders o JOIN employees e USING (EmployeeID) GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`)
	if len(got) != 1 || strings.Join(got[0], "|") != "Peacock|156" {
		t.Errorf("top employee by orders: %q, want Peacock|156", got)
	}
}

// TestSQLiteTypes builds a database whose values do not all match their
// declared types and checks how each column is loaded.
func TestSQLiteTypes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mixed.sqlite")
	sqliteExec(t, path,
		`CREATE TABLE "My Table" (
			id INTEGER PRIMARY KEY, qty INT, price DECIMAL(10,2), ratio REAL, flag BOOLEAN, born DATE, seen DATETIME,
			at TIME, note TEXT, raw BLOB, anything, maybe_int INTEGER, maybe_date DATE, maybe_flag BOOL,
			doubled INTEGER GENERATED ALWAYS AS (qty * 2) VIRTUAL)`,
		`INSERT INTO "My Table" (id, qty, price, ratio, flag, born, seen, at, note, raw, anything, maybe_int, maybe_date, maybe_flag) VALUES
			(1, 10, 9.99, 0.5, 1, '2020-01-31', '2020-01-31 10:00:00', '10:30', 'plain', x'00ff', 7, 1, '2020-02-30', 2),
			(2, NULL, 5, 1, 0, '1999-12-31', '2020-02-01T08:15:30.250', '23:59:59', CAST(x'6361ff' AS TEXT), 'text in blob', 8, 'n/a', '2020-01-01', 0),
			(3, 30, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 2.5, NULL, NULL)`,
		`CREATE TABLE my_table (x TEXT)`,
		`INSERT INTO my_table VALUES ('other')`,
		`CREATE TABLE gone (a INT)`,
		`CREATE VIEW broken AS SELECT a FROM gone`,
		`DROP TABLE gone`,
		`CREATE VIEW totals AS SELECT count(*) AS n, sum(qty) AS qty_sum, 'x' || id AS label FROM "My Table"`,
	)
	w := openWS(t)
	ds, err := w.Loader.Load(context.Background(), path, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	parts := byPart(ds)
	if len(ds) != 3 || parts["My Table"].Name != "my_table" || parts["my_table"].Name != "my_table_2" || parts["totals"].Name != "totals" {
		t.Fatalf("datasets %v by part %v", names(ds), parts)
	}
	mixed := parts["My Table"]
	wantTypes := map[string]string{
		"id": "BIGINT", "qty": "BIGINT", "price": "DOUBLE", "ratio": "DOUBLE", "flag": "BOOLEAN", "born": "DATE",
		"seen": "TIMESTAMP", "at": "TIME", "note": "VARCHAR", "raw": "BLOB", "anything": "BIGINT",
		"maybe_int": "VARCHAR", "maybe_date": "VARCHAR", "maybe_flag": "BIGINT", "doubled": "BIGINT",
	}
	types := columnTypes(mixed)
	for col, typ := range wantTypes {
		if types[col] != typ {
			t.Errorf("%s is %s, want %s", col, types[col], typ)
		}
	}
	warn := strings.Join(mixed.Warnings, "\n")
	for _, want := range []string{`"broken"`, `"maybe_int" (declared INTEGER) as VARCHAR`, `"maybe_date" (declared DATE) as VARCHAR`,
		`"maybe_flag" (declared BOOL) as BIGINT`, "1 texts were not valid UTF-8"} {
		if !strings.Contains(warn, want) {
			t.Errorf("warnings %q do not say %s", mixed.Warnings, want)
		}
	}
	got := queryAll(t, w, `SELECT id, qty, price, flag, born, seen, "at", note, raw, maybe_int, maybe_date, doubled FROM my_table ORDER BY id`)
	compareRows(t, "my_table", got, [][]string{
		{"1", "10", "9.99", "True", "2020-01-31", "2020-01-31T10:00:00", "10:30:00", "plain", "\x00\xff", "1", "2020-02-30", "20"},
		{"2", "", "5", "False", "1999-12-31", "2020-02-01T08:15:30", "23:59:59", "ca\uFFFD", "text in blob", "n/a", "2020-01-01", ""},
		{"3", "30", "", "", "", "", "", "", "", "2.5", "", "60"},
	})
	if ms := queryAll(t, w, `SELECT millisecond(seen) FROM my_table WHERE id = 2`); ms[0][0] != "30250" {
		t.Errorf("fractional seconds: %v, want 30250 ms", ms)
	}
	got = queryAll(t, w, `SELECT n, qty_sum, label FROM totals`)
	compareRows(t, "totals", got, [][]string{{"3", "40", "x1"}})
}

// TestSQLiteLateMisfit has values that fit the declared types in the rows
// sampled first and not after them: the copy starts over with the columns
// widened, and progress never goes back.
func TestSQLiteLateMisfit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "late.sqlite")
	sqliteExec(t, path,
		`CREATE TABLE readings (n INTEGER, day DATE, v INTEGER)`,
		`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)
			INSERT INTO readings SELECT i, date('2024-01-01', '+' || (i % 300) || ' days'), i FROM c`,
		`UPDATE readings SET day = '2024-05-05 12:30:00' WHERE n = 15000`,
		`UPDATE readings SET v = 'overflow' WHERE n = 19999`,
	)
	w := openWS(t)
	var mu sync.Mutex
	var last uint64
	ds, err := w.Loader.Load(context.Background(), path, load.Options{Progress: func(p load.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Phase == "reading" {
			if p.Rows < last {
				t.Errorf("progress went back from %d to %d rows", last, p.Rows)
			}
			last = p.Rows
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	d := ds[0]
	types := columnTypes(d)
	if types["n"] != "BIGINT" || types["day"] != "TIMESTAMP" || types["v"] != "VARCHAR" || d.Rows != 20000 {
		t.Errorf("types %v, %d rows; want n BIGINT, day TIMESTAMP, v VARCHAR, 20000 rows", types, d.Rows)
	}
	if warn := strings.Join(d.Warnings, "\n"); !strings.Contains(warn, `"v" (declared INTEGER) as VARCHAR`) || strings.Contains(warn, `"day"`) {
		t.Errorf("warnings %q: want one for v only", d.Warnings)
	}
	got := queryAll(t, w, `SELECT n, day, v FROM readings WHERE n IN (1, 15000, 19999) ORDER BY n`)
	compareRows(t, "readings", got, [][]string{
		{"1", "2024-01-02T00:00:00", "1"}, {"15000", "2024-05-05T12:30:00", "15000"}, {"19999", "2024-07-18T00:00:00", "overflow"},
	})
}

// TestSQLiteWAL reads a database in WAL mode whose latest rows are still
// only in the -wal file, while another connection holds it open.
func TestSQLiteWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE TABLE events (id INTEGER, what TEXT)", "INSERT INTO events VALUES (1, 'start'), (2, 'stop')"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if info, err := os.Stat(path + "-wal"); err != nil || info.Size() == 0 {
		t.Fatalf("expected a pending -wal file: %v", err)
	}
	w := openWS(t)
	ds, err := w.Loader.Load(context.Background(), path, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].Rows != 2 {
		t.Errorf("loaded %+v, want events with 2 rows", ds)
	}
}

func sqliteExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestSQLiteBadFiles checks that damaged, encrypted-looking and fake
// databases fail with a FileError that names the file.
func TestSQLiteBadFiles(t *testing.T) {
	real, err := os.ReadFile(material(t, "../remote/sqlite/testdata/Chinook_Sqlite.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, b, 0o644))
		return p
	}
	zeroed := append([]byte{}, real...)
	for i := 100; i < len(zeroed) && i < 64<<10; i++ {
		zeroed[i] = 0x5a
	}
	noise := make([]byte, 8192)
	for i := range noise {
		noise[i] = byte(i*7919 + i/13)
	}
	empty := filepath.Join(dir, "empty.sqlite")
	sqliteExec(t, empty, "PRAGMA user_version = 1")
	cases := []struct {
		name, path, want string
	}{
		{"header then garbage", write("damaged.sqlite", zeroed), "damaged"},
		{"truncated", write("short.sqlite", real[:16<<10]), "damaged"},
		{"header only", write("header.db", real[:100]), "sqlite"},
		{"encrypted (no header)", write("cipher.sqlite", noise), "not a valid sqlite"},
		{"text renamed", write("notes.db", []byte("id,name\n1,a\n")), "holds text"},
		{"no tables", empty, "no tables"},
	}
	w := openWS(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.Loader.Load(context.Background(), tc.path, load.Options{})
			assertFileError(t, err, tc.path, tc.want)
			t.Log(err)
		})
	}
	list, err := catalog.List(context.Background(), w.Engine.DB())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 0 {
		t.Errorf("failed loads left datasets %v", names(list))
	}
}

// TestSQLiteFailedLoadLeavesNothing cancels the Chinook load while its
// second table is copied: no table or record may remain.
func TestSQLiteFailedLoadLeavesNothing(t *testing.T) {
	w := openWS(t)
	path := material(t, "../remote/sqlite/testdata/Chinook_Sqlite.sqlite")
	assertCancelLeavesNothing(t, w, path, []string{"album", "artist", "customer"})
}
