package load_test

import (
	"archive/zip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// queryAll runs q on the workspace database and returns its rows rendered
// as csvkit writes values: dates ISO, booleans True/False, numbers without
// a trailing .0, NULL as "".
func queryAll(t *testing.T, w *workspace.Workspace, q string) [][]string {
	t.Helper()
	rs, err := w.Engine.DB().QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	types, err := rs.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for rs.Next() {
		vals := make([]any, len(types))
		ptrs := make([]any, len(types))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = render(v, types[i].DatabaseTypeName())
		}
		out = append(out, row)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func render(v any, typ string) string {
	switch x := v.(type) {
	case nil:
		return ""
	case time.Time:
		switch typ {
		case "DATE":
			return x.Format("2006-01-02")
		case "TIME":
			return x.Format("15:04:05")
		}
		return x.Format("2006-01-02T15:04:05")
	case bool:
		if x {
			return "True"
		}
		return "False"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

// columnTypes returns name → DuckDB type of a dataset's columns.
func columnTypes(d catalog.Dataset) map[string]string {
	m := map[string]string{}
	for _, c := range d.Columns {
		m[c.Name] = c.Type
	}
	return m
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// assertFileError checks that err is a *load.FileError that names path
// and whose message contains want.
func assertFileError(t *testing.T, err error, path, want string) {
	t.Helper()
	var fe *load.FileError
	if !errors.As(err, &fe) {
		t.Fatalf("load %s: got %v (%T), want a *load.FileError", filepath.Base(path), err, err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file %s", err, path)
	}
	if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(want)) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if fe.Hint == "" {
		t.Errorf("error %q has no hint", err)
	}
}

func byPart(ds []catalog.Dataset) map[string]catalog.Dataset {
	m := map[string]catalog.Dataset{}
	for _, d := range ds {
		m[d.Part] = d
	}
	return m
}

// TestXLSXCSVKit loads csvkit's workbooks and compares every value with
// csvkit's own conversion of the same data (testxlsx_converted.csv):
// dates as DATE, date-times as TIMESTAMP, numbers unformatted.
func TestXLSXCSVKit(t *testing.T) {
	edge := material(t, "testdata/csv-edge-cases")
	chicago := readCSV(t, filepath.Join(edge, "testxlsx_converted.csv"))
	abc := [][]string{{"a", "b", "c"}, {"1", "2", "3"}}
	chicagoTypes := map[string]string{"text": "VARCHAR", "date": "DATE", "integer": "BIGINT", "boolean": "BOOLEAN", "float": "DOUBLE", "datetime": "TIMESTAMP"}
	type sheet struct {
		name  string
		want  [][]string // header then rows, as csvkit writes them
		types map[string]string
	}
	cases := []struct {
		file    string
		sheets  map[string]sheet // by sheet name
		warning string           // on the first dataset
	}{
		{file: "test.xlsx", sheets: map[string]sheet{"Sheet1": {"test", chicago, chicagoTypes}}},
		{file: "test_skip_lines.xlsx", sheets: map[string]sheet{"Sheet1": {"test_skip_lines", chicago, chicagoTypes}}},
		{file: "dummy.xlsx", sheets: map[string]sheet{"Sheet1": {"dummy", abc, map[string]string{"a": "BIGINT", "b": "BIGINT", "c": "BIGINT"}}}},
		// sheets.xlsx uses the 1904 date system; its "data" sheet holds the
		// same table as test.xlsx and its first sheet is empty.
		{file: "sheets.xlsx", warning: `"not this one"`, sheets: map[string]sheet{
			"data": {"sheets_data", chicago, chicagoTypes},
			"ʤ":    {"sheets", abc, nil},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			w := openWS(t)
			path := filepath.Join(edge, tc.file)
			ds, err := w.Loader.Load(context.Background(), path, load.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(ds) != len(tc.sheets) {
				t.Fatalf("%d datasets, want %d: %+v", len(ds), len(tc.sheets), ds)
			}
			if tc.warning != "" && !strings.Contains(strings.Join(ds[0].Warnings, "\n"), tc.warning) {
				t.Errorf("first dataset's warnings %q do not mention %s", ds[0].Warnings, tc.warning)
			}
			got := byPart(ds)
			for part, want := range tc.sheets {
				d, ok := got[part]
				if !ok {
					t.Fatalf("no dataset for sheet %q in %+v", part, ds)
				}
				if d.Name != want.name || d.Kind != "xlsx" || d.Storage != "table" || d.Source != path {
					t.Errorf("sheet %q: got name %q kind %q storage %q source %q", part, d.Name, d.Kind, d.Storage, d.Source)
				}
				if d.Rows != int64(len(want.want)-1) {
					t.Errorf("%s: %d rows, want %d", d.Name, d.Rows, len(want.want)-1)
				}
				types := columnTypes(d)
				for col, typ := range want.types {
					if types[col] != typ {
						t.Errorf("%s.%s is %s, want %s (all: %v)", d.Name, col, types[col], typ, types)
					}
				}
				rows := queryAll(t, w, "SELECT * FROM "+d.Name)
				compareTable(t, d, want.want, rows)
			}
		})
	}
}

// compareTable compares a table's columns and rows with a CSV's header
// and records; headers csvkit invented for unnamed columns are not compared.
func compareTable(t *testing.T, d catalog.Dataset, want [][]string, got [][]string) {
	t.Helper()
	for i, h := range want[0] {
		if i >= len(d.Columns) {
			t.Fatalf("%s has %d columns, want %d", d.Name, len(d.Columns), len(want[0]))
		}
		if len(h) > 1 && d.Columns[i].Name != h {
			t.Errorf("%s column %d is %q, want %q", d.Name, i+1, d.Columns[i].Name, h)
		}
	}
	for r, rec := range want[1:] {
		if r >= len(got) {
			t.Fatalf("%s: %d rows, want %d", d.Name, len(got), len(want)-1)
		}
		for c, v := range rec {
			if c >= len(got[r]) {
				t.Fatalf("%s row %d: %d values, want %d", d.Name, r+1, len(got[r]), len(rec))
			}
			if got[r][c] != v {
				t.Errorf("%s row %d column %q: got %q, want %q", d.Name, r+1, d.Columns[c].Name, got[r][c], v)
			}
		}
	}
}

// writeWorkbook saves a workbook built by fill to dir/name.
func writeWorkbook(t *testing.T, dir, name string, fill func(f *excelize.File)) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	fill(f)
	p := filepath.Join(dir, name)
	if err := f.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// salesWorkbook has a sheet with a date column in a custom format, an
// amount with thousands separators, a date-time, a time, an error value
// and an empty and a duplicate header; an empty sheet; and a one-column
// sheet of texts holding commas, semicolons, quotes and line breaks.
func salesWorkbook(t *testing.T, dir string) string {
	return writeWorkbook(t, dir, "Q3 Report.xlsx", func(f *excelize.File) {
		must(t, f.SetSheetName("Sheet1", "Sales 2024"))
		s := "Sales 2024"
		must(t, f.SetSheetRow(s, "A1", &[]any{"Date", "Amount", "Region", "", "Amount", "Booked", "Opens"}))
		dmy := "dd/mm/yyyy"
		dateStyle, err := f.NewStyle(&excelize.Style{CustomNumFmt: &dmy})
		must(t, err)
		money, err := f.NewStyle(&excelize.Style{NumFmt: 4}) // #,##0.00
		must(t, err)
		stamp := "d mmm yyyy h:mm AM/PM"
		stampStyle, err := f.NewStyle(&excelize.Style{CustomNumFmt: &stamp})
		must(t, err)
		clock, err := f.NewStyle(&excelize.Style{NumFmt: 20}) // h:mm
		must(t, err)
		rows := [][]any{
			{time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC), 1234567.5, "North", "x", 1, time.Date(2024, 7, 1, 9, 30, 0, 0, time.UTC), 0.375},
			{time.Date(2024, 8, 15, 0, 0, 0, 0, time.UTC), 0.25, "South", "", 2, time.Date(2024, 8, 15, 17, 5, 0, 0, time.UTC), 0.75},
			{time.Date(2024, 9, 30, 0, 0, 0, 0, time.UTC), -42, "#N/A", "y", 3, time.Date(2024, 9, 30, 0, 0, 0, 0, time.UTC), 0.5},
		}
		for i, r := range rows {
			cell, _ := excelize.CoordinatesToCellName(1, i+2)
			must(t, f.SetSheetRow(s, cell, &r))
		}
		must(t, f.SetCellStyle(s, "A2", "A4", dateStyle))
		must(t, f.SetCellStyle(s, "B2", "B4", money))
		must(t, f.SetCellStyle(s, "F2", "F4", stampStyle))
		must(t, f.SetCellStyle(s, "G2", "G4", clock))
		_, err = f.NewSheet("Empty")
		must(t, err)
		_, err = f.NewSheet("Notes")
		must(t, err)
		for i, v := range []string{"note", "a;b", `say "hi", then
leave`, "c;d"} {
			must(t, f.SetCellStr("Notes", "A"+strconv.Itoa(i+1), v))
		}
	})
}

// TestXLSXGenerated loads a workbook written with excelize: one table per
// non-empty sheet named after file and sheet, ISO dates, unformatted
// numbers, renamed headers, error cells, and a refresh on reload.
func TestXLSXGenerated(t *testing.T) {
	w := openWS(t)
	path := salesWorkbook(t, t.TempDir())
	var rowsSeen atomic.Int64
	opt := load.Options{Progress: func(p load.Progress) {
		if p.Phase == "reading" && p.Rows > 0 {
			rowsSeen.Store(int64(p.Rows))
		}
	}}
	ds, err := w.Loader.Load(context.Background(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].Name != "q3_report_sales_2024" || ds[1].Name != "q3_report_notes" {
		t.Fatalf("datasets %v, want q3_report_sales_2024 and q3_report_notes", names(ds))
	}
	if rowsSeen.Load() == 0 {
		t.Error("no progress with rows written was reported")
	}
	sales, notes := ds[0], ds[1]
	warn := strings.Join(sales.Warnings, "\n")
	for _, want := range []string{`empty sheets were skipped: "Empty"`, "1 cells held Excel errors", "columns renamed"} {
		if !strings.Contains(warn, want) {
			t.Errorf("warnings %q do not say %q", sales.Warnings, want)
		}
	}
	var cols []string
	for _, c := range sales.Columns {
		cols = append(cols, c.Name+" "+c.Type)
	}
	wantCols := []string{"Date DATE", "Amount DOUBLE", "Region VARCHAR", "column4 VARCHAR", "Amount_1 BIGINT", "Booked TIMESTAMP", "Opens TIME"}
	if strings.Join(cols, ", ") != strings.Join(wantCols, ", ") {
		t.Errorf("columns\n got %v\nwant %v", cols, wantCols)
	}
	got := queryAll(t, w, `SELECT * FROM q3_report_sales_2024 ORDER BY "Date"`)
	want := [][]string{
		{"2024-07-01", "1234567.5", "North", "x", "1", "2024-07-01T09:30:00", "09:00:00"},
		{"2024-08-15", "0.25", "South", "", "2", "2024-08-15T17:05:00", "18:00:00"},
		{"2024-09-30", "-42", "", "y", "3", "2024-09-30T00:00:00", "12:00:00"},
	}
	compareRows(t, "sales", got, want)
	got = queryAll(t, w, "SELECT * FROM q3_report_notes")
	compareRows(t, "notes", got, [][]string{{"a;b"}, {"say \"hi\", then\nleave"}, {"c;d"}})
	if notes.Part != "Notes" || sales.Part != "Sales 2024" {
		t.Errorf("parts %q, %q", sales.Part, notes.Part)
	}

	again, err := w.Loader.Load(context.Background(), path, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(names(again), ",") != strings.Join(names(ds), ",") {
		t.Errorf("reload gave %v, want the same names %v", names(again), names(ds))
	}
	list, err := catalog.List(context.Background(), w.Engine.DB())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Errorf("catalog holds %v after a reload, want 2 datasets", names(list))
	}
	leftovers, _ := os.ReadDir(w.Engine.ImportDir())
	for _, e := range leftovers {
		if strings.HasSuffix(e.Name(), ".csv") || strings.HasPrefix(e.Name(), ".staging") {
			t.Errorf("staged file %s left in the import folder", e.Name())
		}
	}
}

func names(ds []catalog.Dataset) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Name)
	}
	return out
}

func compareRows(t *testing.T, what string, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows %q, want %d", what, len(got), got, len(want))
	}
	for i := range want {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("%s row %d:\n got %q\nwant %q", what, i+1, got[i], want[i])
		}
	}
}

// TestXLSXNumberFormats writes one column per number format and checks
// what the loader reads: ISO dates and times for date formats, the stored
// number for every numeric format, text formats as shown.
func TestXLSXNumberFormats(t *testing.T) {
	cases := []struct {
		name   string
		numFmt int    // built-in format id, when code is ""
		code   string // custom format code
		value  any
		want   string
		typ    string
	}{
		{name: "general", value: 41800000.01, want: "41800000.01", typ: "DOUBLE"},
		{name: "thousands", numFmt: 4, value: 1234567.891, want: "1234567.891", typ: "DOUBLE"},
		{name: "percent", numFmt: 9, value: 0.255, want: "0.255", typ: "DOUBLE"},
		{name: "scientific", code: "0.00E+00", value: 12345.678, want: "12345.678", typ: "DOUBLE"},
		{name: "currency", code: `[$€-407]#,##0.00;[Red]-[$€-407]#,##0.00`, value: -1234.5, want: "-1234.5", typ: "DOUBLE"},
		{name: "integer", code: "#,##0", value: 1500000, want: "1500000", typ: "BIGINT"},
		{name: "short_date", numFmt: 14, value: 45474, want: "2024-07-01", typ: "DATE"},
		{name: "locale_date", code: `[$-F800]dddd\, mmmm dd\, yyyy`, value: 45474, want: "2024-07-01", typ: "DATE"},
		{name: "month_year", code: "mmmm yyyy", value: 45474, want: "2024-07-01", typ: "DATE"},
		{name: "leap_bug", numFmt: 14, value: 60, want: "1900-02-28", typ: "DATE"},
		{name: "stamp", numFmt: 22, value: 45474.75, want: "2024-07-01T18:00:00", typ: "TIMESTAMP"},
		{name: "quoted_stamp", code: `yyyy"年"m"月"d"日" h:mm`, value: 45474.5, want: "2024-07-01T12:00:00", typ: "TIMESTAMP"},
		{name: "clock", code: "h:mm AM/PM", value: 0.8125, want: "19:30:00", typ: "TIME"},
		{name: "elapsed", numFmt: 46, value: 1.5, want: "36:00:00", typ: "VARCHAR"},
		{name: "text", numFmt: 49, value: "A-17", want: "A-17", typ: "VARCHAR"},
		{name: "label", code: `"high";"high";"low"`, value: 1, want: "high", typ: "VARCHAR"},
	}
	path := writeWorkbook(t, t.TempDir(), "formats.xlsx", func(f *excelize.File) {
		for i, tc := range cases {
			col, err := excelize.ColumnNumberToName(i + 1)
			must(t, err)
			must(t, f.SetCellStr("Sheet1", col+"1", tc.name))
			style := &excelize.Style{NumFmt: tc.numFmt}
			if tc.code != "" {
				style = &excelize.Style{CustomNumFmt: &tc.code}
			}
			id, err := f.NewStyle(style)
			must(t, err)
			for row := 2; row <= 3; row++ {
				cell := col + strconv.Itoa(row)
				must(t, f.SetCellValue("Sheet1", cell, tc.value))
				must(t, f.SetCellStyle("Sheet1", cell, cell, id))
			}
		}
	})
	w := openWS(t)
	ds, err := w.Loader.Load(context.Background(), path, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	types := columnTypes(ds[0])
	got := queryAll(t, w, "SELECT * FROM formats LIMIT 1")
	for i, tc := range cases {
		if types[tc.name] != tc.typ {
			t.Errorf("%s: type %s, want %s", tc.name, types[tc.name], tc.typ)
		}
		if len(got) == 1 && i < len(got[0]) && got[0][i] != tc.want {
			t.Errorf("%s: read %q, want %q", tc.name, got[0][i], tc.want)
		}
	}
}

// TestXLSXBadFiles checks that broken workbooks fail with a FileError
// that names the file and says what is wrong.
func TestXLSXBadFiles(t *testing.T) {
	dir := t.TempDir()
	real, err := os.ReadFile(material(t, "testdata/csv-edge-cases/test.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, b, 0o644))
		return p
	}
	cases := []struct {
		name string
		path string
		want string
	}{
		{"truncated", write("truncated.xlsx", real[:len(real)/2]), "damaged"},
		{"text renamed", write("notes.xlsx", []byte("this is,just text\n1,2\n")), "holds text"},
		{"encrypted", write("secret.xlsx", append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 4096)...)), "encrypted"},
		{"zip without workbook", write("archive.xlsx", zipOf(t, map[string]string{"readme.txt": "hello"})), "workbook"},
		{"all sheets empty", writeWorkbook(t, dir, "blank.xlsx", func(f *excelize.File) {
			_, err := f.NewSheet("Other")
			must(t, err)
		}), "no data"},
	}
	w := openWS(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.Loader.Load(context.Background(), tc.path, load.Options{})
			assertFileError(t, err, tc.path, tc.want)
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

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var b strings.Builder
	zw := zip.NewWriter(&b)
	for name, content := range files {
		fw, err := zw.Create(name)
		must(t, err)
		_, err = fw.Write([]byte(content))
		must(t, err)
	}
	must(t, zw.Close())
	return []byte(b.String())
}

// TestXLSXFailedLoadLeavesNothing cancels a two-sheet load while the second
// table is being made: neither table nor any record or staged file may
// remain, and the next load gets the plain names.
func TestXLSXFailedLoadLeavesNothing(t *testing.T) {
	w := openWS(t)
	path := salesWorkbook(t, t.TempDir())
	assertCancelLeavesNothing(t, w, path, []string{"q3_report_sales_2024", "q3_report_notes"})
}

// assertCancelLeavesNothing loads path, cancelling as soon as the second
// table is being read (the first one is made by then, in the load's
// transaction), checks that nothing was left behind, then loads it again
// and checks the names.
func assertCancelLeavesNothing(t *testing.T, w *workspace.Workspace, path string, want []string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	at := cancelAtSecondTable(cancel)
	_, err := w.Loader.Load(ctx, path, load.Options{Progress: at.progress})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled load: got %v, want context.Canceled", err)
	}
	if seen := at.read(); len(seen) < 2 {
		t.Fatalf("the load ended before its second table (read %v)", seen)
	}
	tables := queryAll(t, w, "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' AND database_name = current_database()")
	if len(tables) != 0 {
		t.Errorf("a failed load left tables %v", tables)
	}
	list, err := catalog.List(context.Background(), w.Engine.DB())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 0 {
		t.Errorf("a failed load left datasets %v", names(list))
	}
	leftovers, _ := os.ReadDir(w.Engine.ImportDir())
	for _, e := range leftovers {
		t.Errorf("a failed load left %s in the import folder", e.Name())
	}
	ds, err := w.Loader.Load(context.Background(), path, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := names(ds)
	if len(got) < len(want) || strings.Join(got[:len(want)], ",") != strings.Join(want, ",") {
		t.Errorf("load after the failed one gave %v, want %v first", got, want)
	}
}

// secondTable cancels a load (its cancel) as soon as a second table is
// being read; the first one is made by then, in the load's transaction.
type secondTable struct {
	cancel context.CancelFunc
	mu     sync.Mutex
	seen   map[string]bool
}

func cancelAtSecondTable(cancel context.CancelFunc) *secondTable {
	return &secondTable{cancel: cancel, seen: map[string]bool{}}
}

// progress is the load's progress callback.
func (c *secondTable) progress(p load.Progress) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.Phase == "reading" && p.Table != "" {
		c.seen[p.Table] = true
		if len(c.seen) == 2 {
			c.cancel()
		}
	}
}

// read is the tables the load had begun to read.
func (c *secondTable) read() map[string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.seen)
}
