package app_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/app"
)

// TestReloadWithImportOptions: a European file read with the wrong
// delimiter is reloaded with options; a refresh keeps them; the options
// and the warnings reach the window; options on a Parquet-like dataset
// or bad ones are refused with a message that says why.
func TestReloadWithImportOptions(t *testing.T) {
	e := newEnv(t, setup{})
	p := filepath.Join(t.TempDir(), "prices.csv")
	if err := os.WriteFile(p, []byte("Title line\nitem|price\ncoffee|12,50\ntea|3,10\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	reps, err := e.app.OpenFiles([]string{p})
	if err != nil || reps[0].Error != nil {
		t.Fatalf("load: %v %+v", err, reps)
	}
	d, err := e.app.ReloadDataset("prices", app.TextOptions{Delimiter: "|", SkipRows: 1, Decimal: ","})
	if err != nil {
		t.Fatal(err)
	}
	if d.Text == nil || d.Text.Delimiter != "|" || len(d.Columns) != 2 || d.Columns[1].Type != "DOUBLE" {
		t.Fatalf("reloaded %+v, columns %+v", d.Text, d.Columns)
	}
	if !strings.Contains(strings.Join(d.Warnings, " "), "as the import options say") {
		t.Errorf("warnings %q should say what was assumed", d.Warnings)
	}
	if err := e.app.RefreshDataset("prices"); err != nil {
		t.Fatal(err)
	}
	after, err := e.app.GetDataset("prices")
	if err != nil || after.Text == nil || after.Text.SkipRows != 1 || after.Columns[1].Type != "DOUBLE" {
		t.Errorf("after refresh: %+v %v", after, err)
	}
	_, err = e.app.ReloadDataset("prices", app.TextOptions{Decimal: "x"})
	var ae *app.Error
	if !errors.As(err, &ae) || !strings.Contains(ae.Message, "decimal separator") || ae.Hint != `use "," or "."` {
		t.Errorf("bad options: %v", err)
	}
	if _, err := e.app.ReloadDataset("nope", app.TextOptions{}); codeOf(t, err) != app.CodeNotFound {
		t.Errorf("unknown dataset: %v", err)
	}
	reps, err = e.app.OpenFilesWith([]string{p}, app.TextOptions{Delimiter: "|", SkipRows: 1, Header: "yes"})
	if err != nil || reps[0].Error != nil || reps[0].Datasets[0].Columns[0].Name != "item" {
		t.Errorf("open with options: %v %+v", err, reps)
	}
}
