package workspace_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/workspace"
)

func open(t *testing.T, dir string) *workspace.Workspace {
	t.Helper()
	w, err := workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// openProfiled opens dir and waits for the background profile to end.
func openProfiled(t *testing.T, dir string) *workspace.Workspace {
	t.Helper()
	w := open(t, dir)
	select {
	case <-w.ProfilingDone():
	case <-time.After(time.Minute):
		t.Fatal("the background profile did not end within a minute")
	}
	return w
}

// commitUnprofiled does what a load does up to its commit and stops, as a
// load killed before profiling does: a committed table whose record has
// the columns' names and types (and a user's note) but no statistics.
// Orphan is a record whose table does not exist.
func commitUnprofiled(t *testing.T, w *workspace.Workspace) {
	t.Helper()
	ctx := context.Background()
	err := w.Engine.Write(ctx, func(c *duckdb.Conn) error {
		for _, q := range []string{
			"CREATE TABLE sales (region VARCHAR, amount INTEGER)",
			"INSERT INTO sales VALUES ('north', 10), ('south', 20), ('north', NULL), (NULL, 40), ('north', 5)",
		} {
			if err := duck.Exec(ctx, c, q); err != nil {
				return err
			}
		}
		cols, err := catalog.Describe(ctx, c, "sales")
		if err != nil {
			return err
		}
		cols[0].Note = "sales region"
		d := catalog.Dataset{Name: "sales", Kind: "csv", Source: "/data/sales.csv", Storage: "table", Rows: 5, Columns: cols, Note: "kept"}
		if err := catalog.Put(ctx, c, d); err != nil {
			return err
		}
		return catalog.Put(ctx, c, catalog.Dataset{Name: "orphan", Kind: "csv", Source: "/data/orphan.csv", Storage: "table",
			Columns: []catalog.Column{{Name: "x", Type: "INTEGER"}}})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenProfilesUnprofiledDatasets reopens a workspace holding a dataset
// a load left without statistics: Open computes and records them, keeping
// the user's notes, and a record it cannot profile does not stop it.
func TestOpenProfilesUnprofiledDatasets(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir)
	commitUnprofiled(t, w)
	before, err := catalog.Get(context.Background(), w.Engine.DB(), "sales")
	if err != nil {
		t.Fatal(err)
	}
	if !before.NeedsProfile() {
		t.Fatalf("the record written without statistics does not need a profile: %+v", before)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	w = openProfiled(t, dir)
	defer w.Close()
	d, err := catalog.Get(context.Background(), w.Engine.DB(), "sales")
	if err != nil {
		t.Fatal(err)
	}
	if d.NeedsProfile() || !d.Profiled {
		t.Fatalf("sales still unprofiled after reopening: %+v", d)
	}
	if d.Rows != 5 || len(d.Columns) != 2 || d.Note != "kept" {
		t.Fatalf("sales: rows %d, %d columns, note %q; want 5, 2, \"kept\"", d.Rows, len(d.Columns), d.Note)
	}
	region, amount := d.Columns[0], d.Columns[1]
	if region.Nulls != 1 || region.Distinct != 2 || region.Note != "sales region" {
		t.Errorf("region: nulls %d distinct %d note %q; want 1, 2, \"sales region\"", region.Nulls, region.Distinct, region.Note)
	}
	if len(region.Top) == 0 || region.Top[0] != (catalog.Value{Value: "north", Count: 3}) {
		t.Errorf("region top values %+v, want north×3 first", region.Top)
	}
	if amount.Nulls != 1 || amount.Min == nil || *amount.Min != "5" || amount.Max == nil || *amount.Max != "40" {
		t.Errorf("amount: nulls %d min %v max %v; want 1, 5, 40", amount.Nulls, deref(amount.Min), deref(amount.Max))
	}
	orphan, err := catalog.Get(context.Background(), w.Engine.DB(), "orphan")
	if err != nil {
		t.Fatal(err)
	}
	if !orphan.NeedsProfile() {
		t.Errorf("a record whose table is missing was marked profiled: %+v", orphan)
	}
}

// TestOpenHonoursCancel opens a workspace with an unprofiled dataset
// under a cancelled context: Open fails and records nothing.
func TestOpenHonoursCancel(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir)
	commitUnprofiled(t, w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if w, err := workspace.Open(ctx, dir); err == nil {
		w.Close()
		t.Fatal("Open with a cancelled context succeeded")
	}
	w = openProfiled(t, dir)
	defer w.Close()
	d, err := catalog.Get(context.Background(), w.Engine.DB(), "sales")
	if err != nil {
		t.Fatal(err)
	}
	if !d.Profiled {
		t.Errorf("the open after the cancelled one did not profile sales: %+v", d)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// syncBuffer is a log destination safe for the background goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) count(sub string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Count(s.b.String(), sub)
}

// TestFailedProfileReportedOnce opens a workspace holding a record whose
// table is gone, three times: the first open reports it and records the
// failure, the second neither tries nor reports it again, and after the
// dataset changes (a new load time) it is tried again.
func TestFailedProfileReportedOnce(t *testing.T) {
	var logs syncBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	const warning = "dataset left without statistics"

	dir := t.TempDir()
	w := open(t, dir)
	commitUnprofiled(t, w)
	w.Close()
	before := logs.count(warning)
	for i, want := range []int{1, 0} {
		w = openProfiled(t, dir)
		orphan, err := catalog.Get(context.Background(), w.Engine.DB(), "orphan")
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := logs.count(warning) - before; got != want {
			t.Errorf("open %d: %d warnings about the orphan, want %d", i+1, got, want)
		}
		before = logs.count(warning)
		if !orphan.GaveUpProfiling() || !strings.Contains(orphan.ProfileFailure.Error, "no such table") {
			t.Errorf("open %d: the failure is not recorded: %+v", i+1, orphan.ProfileFailure)
		}
	}

	w = open(t, dir)
	<-w.ProfilingDone()
	err := w.Engine.Write(context.Background(), func(c *duckdb.Conn) error {
		d, err := catalog.GetOn(context.Background(), c, "orphan")
		if err != nil {
			return err
		}
		d.LoadedAt = time.Now()
		return catalog.Put(context.Background(), c, d)
	})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	w = openProfiled(t, dir)
	w.Close()
	if got := logs.count(warning) - before; got != 1 {
		t.Errorf("after the dataset changed: %d warnings, want 1 (tried again)", got)
	}
}

// TestOpenDoesNotWaitForProfile opens a workspace holding a wide table a
// load left without statistics: Open returns and a query runs before the
// background profile is done, and closing stops that profile promptly.
func TestOpenDoesNotWaitForProfile(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir)
	ctx := context.Background()
	sel := make([]string, 6000)
	for j := range sel {
		sel[j] = fmt.Sprintf("(i * %d) %% 13 AS c%d", j, j)
	}
	err := w.Engine.Write(ctx, func(c *duckdb.Conn) error {
		if err := duck.Exec(ctx, c, "CREATE TABLE wide AS SELECT "+strings.Join(sel, ", ")+" FROM range(2000) r(i)"); err != nil {
			return err
		}
		cols, err := catalog.Describe(ctx, c, "wide")
		if err != nil {
			return err
		}
		return catalog.Put(ctx, c, catalog.Dataset{Name: "wide", Kind: "csv", Source: "/data/wide.csv", Storage: "table", Columns: cols})
	})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()

	start := time.Now()
	w = open(t, dir)
	var one int
	if err := w.Engine.DB().QueryRow("SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	opened := time.Since(start)
	select {
	case <-w.ProfilingDone():
		t.Logf("the profile ended before the first query returned (%s); the test proves nothing on this machine", opened)
	default:
	}
	stop := time.Now()
	w.Close()
	closed := time.Since(stop)
	t.Logf("open + SELECT 1: %s; close during the profile: %s", opened.Round(time.Millisecond), closed.Round(time.Millisecond))
	if opened > 3*time.Second {
		t.Errorf("open and a first query took %s, want them not to wait for the profile", opened)
	}
	if closed > 2*time.Second {
		t.Errorf("close took %s: the background profile was not interrupted", closed)
	}
}
