package load_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

func optionsFixture(name string) string { return filepath.Join("testdata", "import-options", name) }

func loadWith(t *testing.T, w *workspace.Workspace, path string, o load.TextOptions) catalog.Dataset {
	t.Helper()
	ds, err := w.Loader.Load(context.Background(), path, load.Options{Text: o})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	return ds[0]
}

func columnType(d catalog.Dataset, name string) string {
	for _, c := range d.Columns {
		if c.Name == name {
			return c.Type
		}
	}
	return "(none)"
}

// TestEuropeanNumbers: numbers written with a decimal comma or thousands
// separators are found and said; a consistent file loads them as numbers
// (with a warning saying what was assumed), an inconsistent or ambiguous
// one keeps them as text and says how to choose.
func TestEuropeanNumbers(t *testing.T) {
	w := openWS(t)
	cases := []struct {
		file, decimal string
		warning       string
		types         map[string]string
		check, want   string
	}{
		{"european.csv", "", `columns Preis, Umsatz read as numbers written with a decimal comma and "." between thousands ("1.234,75" = 1234.75), as the file is consistent`,
			map[string]string{"Preis": "DOUBLE", "Umsatz": "DOUBLE", "Menge": "BIGINT"}, `SELECT sum(Umsatz) FROM %s`, "1.00124676e+06"},
		{"thousands.csv", "", `column revenue read as numbers written with a decimal point and "," between thousands`,
			map[string]string{"price": "DOUBLE", "revenue": "DOUBLE"}, `SELECT sum(revenue) FROM %s`, "13234.75"},
		{"mixed.csv", "", `numbers with a decimal comma (column a) and with thousands commas (column b) in one file: left as text`,
			map[string]string{"a": "VARCHAR", "b": "VARCHAR"}, `SELECT a FROM %s WHERE item = 'x'`, "12,50"},
		{"ambiguous.csv", "", `column weight hold numbers like "1,234" that read as 1234 or 1.234: left as text`,
			map[string]string{"weight": "VARCHAR"}, `SELECT weight FROM %s WHERE item = 'x'`, "1,234"},
		// The user's word settles what the file cannot.
		{"ambiguous.csv", ",", `column weight read as numbers written with a decimal comma and "." between thousands ("1.234,75" = 1234.75), as the import options say`,
			map[string]string{"weight": "DOUBLE"}, `SELECT weight FROM %s WHERE item = 'x'`, "1.234"},
		{"ambiguous.csv", ".", `column weight read as numbers written with a decimal point`,
			map[string]string{"weight": "DOUBLE"}, `SELECT weight FROM %s WHERE item = 'x'`, "1234"},
	}
	for _, c := range cases {
		t.Run(c.file+c.decimal, func(t *testing.T) {
			d := loadWith(t, w, optionsFixture(c.file), load.TextOptions{Decimal: c.decimal})
			joined := strings.Join(d.Warnings, " | ")
			if !strings.Contains(joined, c.warning) {
				t.Errorf("warnings %q\nshould say %q", joined, c.warning)
			}
			for col, typ := range c.types {
				if got := columnType(d, col); got != typ {
					t.Errorf("%s is %s, want %s", col, got, typ)
				}
			}
			if got := rows(t, w, fmt.Sprintf(c.check, `"`+d.Name+`"`)); fmt.Sprint(got[0][0]) != c.want {
				t.Errorf("%s = %v, want %s", c.check, got[0][0], c.want)
			}
		})
	}
}

// TestImportOptions: delimiter, decimal separator, header, encoding and
// skipped lines given by the user read files detection gets wrong, are
// kept with the dataset for its refresh, and bad options are refused
// with a hint.
func TestImportOptions(t *testing.T) {
	w := openWS(t)
	d := loadWith(t, w, optionsFixture("preamble.txt"), load.TextOptions{Delimiter: "|", Decimal: ",", Encoding: "latin-1", SkipRows: 2, Header: "yes"})
	if got := fmt.Sprint(d.Columns[0].Name, d.Columns[1].Name, d.Columns[2].Name); got != "idcityamount" {
		t.Errorf("columns %s, want id, city, amount", got)
	}
	if got := rows(t, w, `SELECT city, amount FROM "`+d.Name+`" WHERE id = 1`); fmt.Sprint(got[0]) != "[München 12.5]" {
		t.Errorf("row 1 = %v, want München 12.5", got[0])
	}
	if d.Text == nil || d.Text.Delimiter != "|" || d.Text.SkipRows != 2 {
		t.Errorf("options kept with the dataset: %+v", d.Text)
	}
	stored, err := catalog.Get(context.Background(), w.Engine.DB(), d.Name)
	if err != nil || stored.Text == nil || *stored.Text != *d.Text {
		t.Errorf("catalog record's options %+v (%v), want %+v", stored.Text, err, d.Text)
	}

	nh := loadWith(t, w, optionsFixture("noheader.csv"), load.TextOptions{Header: "no", Decimal: ","})
	if nh.Rows != 2 || columnType(nh, "column2") != "DOUBLE" {
		t.Errorf("without a header: %d rows, columns %v", nh.Rows, nh.Columns)
	}

	for _, bad := range []struct {
		path string
		o    load.TextOptions
		says string
	}{
		{optionsFixture("european.csv"), load.TextOptions{Delimiter: ";;"}, "not one character"},
		{optionsFixture("european.csv"), load.TextOptions{Decimal: ";"}, "decimal separator"},
		{optionsFixture("european.csv"), load.TextOptions{Delimiter: ",", Decimal: ","}, "both"},
		{optionsFixture("european.csv"), load.TextOptions{Encoding: "ebcdic"}, "utf-8, latin-1, utf-16"},
		{optionsFixture("european.csv"), load.TextOptions{Header: "maybe"}, "yes"},
		{optionsFixture("european.csv"), load.TextOptions{SkipRows: -1}, "skip"},
		{filepath.Join("testdata", "csv-edge-cases", "test.xlsx"), load.TextOptions{Delimiter: ";"}, "delimited text files"},
	} {
		_, err := w.Loader.Load(context.Background(), bad.path, load.Options{Text: bad.o})
		var fe *load.FileError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), bad.says) || fe.Hint == "" {
			t.Errorf("%+v: %v, want a FileError saying %q with a hint", bad.o, err, bad.says)
		}
	}
}
