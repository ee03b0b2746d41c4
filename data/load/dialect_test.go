package load_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/duck"
)

// TestPlainWideFileReadsAsSniffed loads a wide file whose dialect Loupe
// gives DuckDB instead of letting it sniff (see plainWide) and checks
// that the table is the one DuckDB's own detection makes of the file:
// the same columns, types and values, the header and the types still
// detected (integers, decimals, dates, text, empty cells).
func TestPlainWideFileReadsAsSniffed(t *testing.T) {
	const cols, rows = 1200, 5
	var b strings.Builder
	for i := -1; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			switch {
			case i < 0:
				fmt.Fprintf(&b, "col %d", j)
			case (i+j)%9 == 0:
				// an empty cell
			case j%4 == 0:
				fmt.Fprintf(&b, "%d", i*j)
			case j%4 == 1:
				fmt.Fprintf(&b, "%d.%d", i, j%10)
			case j%4 == 2:
				fmt.Fprintf(&b, "2024-0%d-1%d", i%9+1, j%10)
			default:
				fmt.Fprintf(&b, "v%d x", i+j)
			}
		}
		b.WriteString("\r\n")
	}
	path := filepath.Join(t.TempDir(), "plain_wide.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	w := openWS(t)
	d := loadOne(t, w, path)

	ref, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	src := "read_csv(" + duck.QuoteString(path) + ", null_padding = true, parallel = true)"
	wantTypes := describeAll(t, ref, "DESCRIBE SELECT * FROM "+src)
	gotTypes := describeAll(t, w.Engine.DB(), "DESCRIBE SELECT * FROM "+duck.QuoteIdent(d.Name))
	if len(gotTypes) != cols || strings.Join(gotTypes, "|") != strings.Join(wantTypes, "|") {
		t.Fatalf("columns: got %d, want %d as DuckDB detects them; first got %v, want %v", len(gotTypes), len(wantTypes), head(gotTypes), head(wantTypes))
	}
	want := allText(t, ref, "SELECT * FROM "+src)
	got := allText(t, w.Engine.DB(), "SELECT * FROM "+duck.QuoteIdent(d.Name))
	if got != want {
		t.Errorf("values differ from DuckDB's own reading of the file:\ngot  %.300s\nwant %.300s", got, want)
	}
}

// describeAll runs a DESCRIBE and returns "name type" for each column.
func describeAll(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rs, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var name, typ string
		var rest [4]sql.NullString
		if err := rs.Scan(&name, &typ, &rest[0], &rest[1], &rest[2], &rest[3]); err != nil {
			t.Fatal(err)
		}
		out = append(out, name+" "+typ)
	}
	return out
}

// allText is every value of q's result, rows in order, as text.
func allText(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	rs, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var b strings.Builder
	for rs.Next() {
		v := make([]any, len(cols))
		p := make([]any, len(cols))
		for i := range v {
			p[i] = &v[i]
		}
		if err := rs.Scan(p...); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, v...)
	}
	return b.String()
}

func head(s []string) []string { return s[:min(len(s), 6)] }
