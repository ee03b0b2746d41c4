package app_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/tools/tooltest"
)

func names(ds []app.Dataset) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Name)
	}
	return out
}

// listed are the names of the datasets ListDatasets lists.
func listed(ds []app.DatasetSummary) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Name)
	}
	return out
}

func TestOpenFilesReportsEachFileWithProgress(t *testing.T) {
	e := newEnv(t, setup{})
	missing := filepath.Join(t.TempDir(), "missing.csv")
	orders, customers := tooltest.Fixture("orders.csv"), tooltest.Fixture("customers.csv")
	reps, err := e.app.OpenFiles([]string{orders, missing, customers})
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 3 {
		t.Fatalf("%d reports, want 3", len(reps))
	}
	if reps[0].Error != nil || len(reps[0].Datasets) != 1 || reps[0].Datasets[0].Name != "orders" || reps[0].Datasets[0].Rows != 40 {
		t.Errorf("orders report %+v", reps[0])
	}
	if reps[1].Error == nil || reps[1].Error.Code != app.CodeFile || reps[1].Error.Hint == "" || len(reps[1].Datasets) != 0 {
		t.Errorf("a missing file should fail alone with code file and a hint: %+v", reps[1])
	}
	if reps[2].Error != nil || reps[2].Datasets[0].Name != "customers" {
		t.Errorf("customers report %+v (a failing file must not stop the next)", reps[2])
	}
	d := reps[0].Datasets[0]
	if d.Kind != "csv" || d.Source != orders || len(d.Columns) != 8 || d.Warnings == nil || d.LoadedAt.IsZero() || d.SizeBytes == 0 {
		t.Errorf("dataset DTO %+v", d)
	}

	var done []string
	for _, p := range e.rec.of(app.EventLoadProgress) {
		if lp := p.(app.LoadProgress); lp.Phase == "done" {
			done = append(done, lp.File)
		}
	}
	if !slices.Equal(done, []string{orders, customers}) {
		t.Errorf("done progress for %v", done)
	}
	changed := e.rec.of(app.EventDatasetsChanged)
	var changedNames []string
	if len(changed) == 1 {
		for _, d := range changed[0].([]app.DatasetSummary) {
			changedNames = append(changedNames, d.Name)
		}
	}
	if !slices.Equal(changedNames, []string{"customers", "orders"}) {
		t.Errorf("datasets:changed events %v", changed)
	}
	recent, _ := e.app.RecentFiles()
	if !slices.Equal(recent, []string{customers, orders}) {
		t.Errorf("recent files %v", recent)
	}
	// Recent files are kept across restarts.
	b, err := os.ReadFile(filepath.Join(e.config, "recent.json"))
	if err != nil || !strings.Contains(string(b), "customers.csv") {
		t.Errorf("recent.json: %s %v", b, err)
	}
}

func TestRenameRefreshRemove(t *testing.T) {
	e := newEnv(t, setup{})
	e.load(t)
	if err := e.app.RenameDataset("orders", "sales"); err != nil {
		t.Fatal(err)
	}
	ds, _ := e.app.ListDatasets()
	if !slices.Equal(listed(ds), []string{"customers", "sales"}) {
		t.Fatalf("after rename: %v", listed(ds))
	}
	res, err := e.app.RunSQL("SELECT count(*) FROM sales")
	if err != nil || fmt.Sprint(res.Page.Rows[0][0]) != "40" {
		t.Fatalf("query the renamed table: %+v %v", res, err)
	}
	for _, tc := range []struct{ from, to, code string }{
		{"sales", "customers", app.CodeInvalid},
		{"sales", "CUSTOMERS", app.CodeInvalid},
		{"sales", "has space", app.CodeInvalid},
		{"sales", "1st", app.CodeInvalid},
		{"nope", "other", app.CodeNotFound},
	} {
		if got := codeOf(t, e.app.RenameDataset(tc.from, tc.to)); got != tc.code {
			t.Errorf("rename %s → %s: code %q, want %q", tc.from, tc.to, got, tc.code)
		}
	}

	before := len(e.rec.of(app.EventLoadProgress))
	if err := e.app.RefreshDataset("sales"); err != nil {
		t.Fatal(err)
	}
	ds, _ = e.app.ListDatasets()
	if !slices.Equal(listed(ds), []string{"customers", "sales"}) || ds[1].Rows != 40 {
		t.Errorf("refresh must keep the new name: %v", listed(ds))
	}
	if len(e.rec.of(app.EventLoadProgress)) == before {
		t.Error("refresh sent no progress")
	}

	if err := e.app.RemoveDataset("sales"); err != nil {
		t.Fatal(err)
	}
	ds, _ = e.app.ListDatasets()
	if !slices.Equal(listed(ds), []string{"customers"}) {
		t.Errorf("after remove: %v", listed(ds))
	}
	if _, err := e.app.RunSQL("SELECT * FROM sales"); codeOf(t, err) != app.CodeSQL {
		t.Errorf("the removed table still answers: %v", err)
	}
	if got := codeOf(t, e.app.RemoveDataset("sales")); got != app.CodeNotFound {
		t.Errorf("remove twice: %q", got)
	}
	if got := codeOf(t, e.app.RefreshDataset("sales")); got != app.CodeNotFound {
		t.Errorf("refresh removed: %q", got)
	}
	// rename, refresh and remove each announced the change (plus the load).
	if n := len(e.rec.of(app.EventDatasetsChanged)); n != 4 {
		t.Errorf("%d datasets:changed events, want 4", n)
	}
}

func TestPreviewProfileSchema(t *testing.T) {
	e := newEnv(t, setup{})
	e.load(t)
	p, err := e.app.PreviewDataset("orders")
	if err != nil {
		t.Fatal(err)
	}
	if p.Rows != 40 || p.Kept != 40 || len(p.Page.Rows) != 40 || len(p.Columns) != 8 || p.Ref == "" {
		t.Errorf("preview %+v", p)
	}
	prof, err := e.app.ProfileDataset("customers")
	if err != nil {
		t.Fatal(err)
	}
	if prof.Kind != "profile" || len(prof.Data) == 0 || !strings.Contains(string(prof.Data), "customer_id") {
		t.Errorf("profile display %+v", prof)
	}
	for _, f := range []func() error{
		func() error { _, err := e.app.PreviewDataset("nope"); return err },
		func() error { _, err := e.app.ProfileDataset("nope"); return err },
	} {
		if got := codeOf(t, f()); got != app.CodeNotFound {
			t.Errorf("unknown dataset: code %q", got)
		}
	}
	s, err := e.app.SchemaNames()
	if err != nil || len(s.Tables) != 2 || s.Tables[1].Name != "orders" || !slices.Contains(s.Tables[1].Columns, "region") {
		t.Errorf("schema names %+v %v", s, err)
	}
}

func TestSampleDataset(t *testing.T) {
	e := newEnv(t, setup{})
	reps, err := e.app.SampleDataset()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range reps {
		if r.Error != nil {
			t.Fatalf("%s: %v", r.File, r.Error)
		}
		got = append(got, r.Datasets[0].Name)
	}
	if !slices.Equal(got, []string{"orders", "customers", "products"}) {
		t.Errorf("sample datasets %v", got)
	}
	res, err := e.app.RunSQL("SELECT count(DISTINCT category) FROM orders JOIN products USING (product_id)")
	if err != nil || fmt.Sprint(res.Page.Rows[0][0]) != "6" {
		t.Errorf("the sample joins: %+v %v", res, err)
	}
	qs, _ := e.app.SampleQuestions()
	if len(qs) < 3 {
		t.Errorf("questions %v", qs)
	}
}
