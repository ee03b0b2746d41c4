package sqlhistory_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupeapp/loupe/app/sqlhistory"
)

func at(i int) time.Time { return time.Date(2026, 11, 26, 4, 0, i, 0, time.UTC) }

// TestAddListAndSearch: entries come back newest first, found by their
// query or their error, ignoring case, and survive a new History on the
// same file (a restart).
func TestAddListAndSearch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ws", sqlhistory.FileName)
	h := sqlhistory.New(path, 0)
	if got, err := h.List("", 0); err != nil || len(got) != 0 {
		t.Fatalf("a new history: %v %v", got, err)
	}
	adds := []sqlhistory.Entry{
		{SQL: "  SELECT region, sum(amount) FROM orders GROUP BY 1 \n", At: at(1), DurationMS: 12.5, Outcome: sqlhistory.Done, Rows: 4},
		{SQL: "SELECT * FROM ordrs", At: at(2), DurationMS: 1, Outcome: sqlhistory.Failed, Error: "Catalog Error: Table with name ordrs does not exist"},
		{SQL: "SELECT count(*) FROM range(1e9) a, range(1e9) b", At: at(3), DurationMS: 700, Outcome: sqlhistory.Canceled, Error: "stopped"},
	}
	for _, e := range adds {
		kept, err := h.Add(e)
		if err != nil {
			t.Fatal(err)
		}
		if kept.ID == "" || kept.SQL != strings.TrimSpace(e.SQL) {
			t.Errorf("kept %+v", kept)
		}
	}
	again := sqlhistory.New(path, 0)
	for _, tc := range []struct {
		search string
		want   []time.Time
	}{
		{"", []time.Time{at(3), at(2), at(1)}},
		{"ORDERS", []time.Time{at(1)}},
		{"does not exist", []time.Time{at(2)}},
		{"range(", []time.Time{at(3)}},
		{"nothing like it", nil},
	} {
		got, err := again.List(tc.search, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ats []time.Time
		for _, e := range got {
			ats = append(ats, e.At)
		}
		if fmt.Sprint(ats) != fmt.Sprint(tc.want) {
			t.Errorf("List(%q) = %v, want %v", tc.search, ats, tc.want)
		}
	}
	got, _ := again.List("", 0)
	if got[2].Rows != 4 || got[2].DurationMS != 12.5 || got[2].Outcome != sqlhistory.Done || got[1].Error == "" {
		t.Errorf("entries lost fields: %+v", got)
	}
	if one, _ := again.List("", 1); len(one) != 1 || !one[0].At.Equal(at(3)) {
		t.Errorf("List limit 1: %+v", one)
	}
	if err := again.Clear(); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.List("", 0); len(got) != 0 {
		t.Errorf("after Clear: %+v", got)
	}
}

// TestKeepsTheNewest: the history is bounded; the oldest go first, and the
// file stays small.
func TestKeepsTheNewest(t *testing.T) {
	path := filepath.Join(t.TempDir(), sqlhistory.FileName)
	h := sqlhistory.New(path, 0)
	for i := range sqlhistory.Max + 20 {
		if _, err := h.Add(sqlhistory.Entry{SQL: fmt.Sprintf("SELECT %d", i), At: at(i), Outcome: sqlhistory.Done, Rows: 1}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := h.List("", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != sqlhistory.Max {
		t.Fatalf("%d entries, want %d", len(got), sqlhistory.Max)
	}
	if got[0].SQL != fmt.Sprintf("SELECT %d", sqlhistory.Max+19) || got[len(got)-1].SQL != "SELECT 20" {
		t.Errorf("newest %q, oldest %q", got[0].SQL, got[len(got)-1].SQL)
	}
	// A huge query is kept cut.
	big := "SELECT '" + strings.Repeat("é", sqlhistory.MaxSQL) + "'"
	kept, err := h.Add(sqlhistory.Entry{SQL: big, At: at(9999), Outcome: sqlhistory.Done})
	if err != nil {
		t.Fatal(err)
	}
	if len(kept.SQL) > sqlhistory.MaxSQL || !strings.HasSuffix(kept.SQL, "…") {
		t.Errorf("kept %d bytes", len(kept.SQL))
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > 200<<10 {
		t.Errorf("the file is %d bytes", st.Size())
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestUnreadableFileIsKept: a file that is not a history fails Add and
// List with ErrUnreadable, saying what to do, and is not overwritten.
func TestUnreadableFileIsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), sqlhistory.FileName)
	junk := []byte("{ not json")
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	h := sqlhistory.New(path, 0)
	_, err := h.Add(sqlhistory.Entry{SQL: "SELECT 1", At: at(1)})
	if !errors.Is(err, sqlhistory.ErrUnreadable) || !strings.Contains(err.Error(), "move the file away") {
		t.Errorf("Add: %v", err)
	}
	if _, err := h.List("", 0); !errors.Is(err, sqlhistory.ErrUnreadable) {
		t.Errorf("List: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(junk) {
		t.Errorf("the file was changed to %q", b)
	}
}

// TestConcurrentAdds: adds from many goroutines are all kept.
func TestConcurrentAdds(t *testing.T) {
	h := sqlhistory.New(filepath.Join(t.TempDir(), sqlhistory.FileName), 0)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := h.Add(sqlhistory.Entry{SQL: fmt.Sprintf("SELECT %d", i), At: at(i)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, err := h.List("", 0)
	if err != nil || len(got) != 40 {
		t.Errorf("%d entries, %v", len(got), err)
	}
}
