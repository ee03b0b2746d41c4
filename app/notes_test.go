package app_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/app"
)

func datasetNamed(t *testing.T, a *app.App, name string) app.Dataset {
	t.Helper()
	d, err := a.GetDataset(name)
	if err != nil {
		t.Fatalf("no dataset %s: %v", name, err)
	}
	return *d
}

func columnNote(d app.Dataset, col string) string {
	for _, c := range d.Columns {
		if c.Name == col {
			return c.Note
		}
	}
	return "(no column " + col + ")"
}

func TestSetDatasetNote(t *testing.T) {
	e := newEnv(t, setup{})
	e.load(t)
	before := len(e.rec.of(app.EventDatasetsChanged))
	if err := e.app.SetDatasetNote("orders", "Web shop orders since 2023.", map[string]string{"region": "sales region"}); err != nil {
		t.Fatal(err)
	}
	changed := e.rec.of(app.EventDatasetsChanged)
	if len(changed) != before+1 {
		t.Fatalf("%d datasets:changed events after the note, want %d", len(changed), before+1)
	}
	for _, d := range changed[len(changed)-1].([]app.DatasetSummary) {
		if d.Name == "orders" && d.Note != "Web shop orders since 2023." {
			t.Errorf("event's dataset %+v", d)
		}
	}

	for _, tc := range []struct {
		name, table, note string
		columns           map[string]string
		code              string
		message           string
	}{
		{"unknown dataset", "nope", "x", nil, app.CodeNotFound, `No dataset is called "nope"`},
		{"unknown column", "orders", "x", map[string]string{"colour": "x"}, app.CodeInvalid, `orders has no column "colour"`},
		{"table note too long", "orders", strings.Repeat("a", 2001), nil, app.CodeInvalid, "at most 2000 characters"},
		{"column note too long", "orders", "x", map[string]string{"region": strings.Repeat("a", 2001)}, app.CodeInvalid, "column region is too long"},
	} {
		err := e.app.SetDatasetNote(tc.table, tc.note, tc.columns)
		var ae *app.Error
		if !errors.As(err, &ae) || ae.Code != tc.code || !strings.Contains(ae.Message, tc.message) || ae.Hint == "" {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if d := datasetNamed(t, e.app, "orders"); d.Note != "Web shop orders since 2023." {
		t.Errorf("a refused change was written: %q", d.Note)
	}

	// Rename and refresh keep the notes.
	if err := e.app.RenameDataset("orders", "sales"); err != nil {
		t.Fatal(err)
	}
	if err := e.app.RefreshDataset("sales"); err != nil {
		t.Fatal(err)
	}
	d := datasetNamed(t, e.app, "sales")
	if d.Note != "Web shop orders since 2023." || columnNote(d, "region") != "sales region" || d.Rows != 40 {
		t.Errorf("after rename and refresh: %+v", d)
	}
	// Empty texts clear.
	if err := e.app.SetDatasetNote("sales", "", map[string]string{"region": ""}); err != nil {
		t.Fatal(err)
	}
	if d := datasetNamed(t, e.app, "sales"); d.Note != "" || columnNote(d, "region") != "" {
		t.Errorf("not cleared: %+v", d)
	}
}
