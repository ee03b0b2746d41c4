package results_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/results"
)

// result makes a two-column result of n rows whose text cells are width
// bytes long; total is the row count the query reported.
func result(n, width int, total int64) *query.Result {
	res := &query.Result{Columns: []query.Column{{Name: "id", Type: "BIGINT"}, {Name: "s", Type: "VARCHAR"}}, RowCount: total}
	for i := range n {
		res.Rows = append(res.Rows, []any{int64(i), strings.Repeat("x", width)})
	}
	res.Truncated = total > int64(n)
	return res
}

func TestPage(t *testing.T) {
	s := results.New(results.Config{MaxPage: 110})
	ref := s.Put(result(120, 3, 500), "SELECT 1")
	if !strings.HasPrefix(string(ref), "r_") || len(ref) != 12 {
		t.Fatalf("ref %q: want r_ and 10 characters", ref)
	}
	tests := []struct {
		name           string
		offset, limit  int
		wantLen, first int
	}{
		{"first page", 0, 10, 10, 0},
		{"middle", 55, 10, 10, 55},
		{"last partial page", 115, 10, 5, 115},
		{"past the end", 120, 10, 0, -1},
		{"far past the end", 10_000, 10, 0, -1},
		{"default size", 0, 0, results.DefaultPage, 0},
		{"capped at MaxPage", 0, 10_000, 110, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := s.Page(ref, tc.offset, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Rows) != tc.wantLen {
				t.Fatalf("%d rows, want %d", len(p.Rows), tc.wantLen)
			}
			if tc.first >= 0 && p.Rows[0][0] != int64(tc.first) {
				t.Fatalf("first row id %v, want %d", p.Rows[0][0], tc.first)
			}
			if p.Kept != 120 || p.Total != 500 || !p.Truncated || p.SQL != "SELECT 1" || len(p.Columns) != 2 || p.Offset != tc.offset {
				t.Fatalf("page metadata %+v", p)
			}
		})
	}
	if _, err := s.Page(ref, -1, 10); !errors.Is(err, results.ErrRange) {
		t.Fatalf("negative offset: %v, want ErrRange", err)
	}
	if _, err := s.Page(ref, 0, -5); !errors.Is(err, results.ErrRange) {
		t.Fatalf("negative limit: %v, want ErrRange", err)
	}
}

// A page must not alias the held rows: appending to it cannot change them.
func TestPageDoesNotAlias(t *testing.T) {
	s := results.New(results.Config{})
	ref := s.Put(result(10, 1, 10), "q")
	p, _ := s.Page(ref, 0, 5)
	_ = append(p.Rows, []any{int64(-1), "evil"})
	p2, _ := s.Page(ref, 5, 1)
	if p2.Rows[0][0] != int64(5) {
		t.Fatalf("row 5 became %v after appending to an earlier page", p2.Rows[0])
	}
}

func TestUnknownRef(t *testing.T) {
	s := results.New(results.Config{})
	_, err := s.Page("r_nothere00", 0, 10)
	var nf *results.NotFoundError
	if !errors.As(err, &nf) || nf.Ref != "r_nothere00" || !errors.Is(err, results.ErrNotFound) {
		t.Fatalf("err %v (%T), want *NotFoundError for the ref", err, err)
	}
	if !strings.Contains(err.Error(), "run its query again") {
		t.Fatalf("message %q gives no hint", err)
	}
	if _, err := s.Get("r_nothere00"); !errors.Is(err, results.ErrNotFound) {
		t.Fatalf("Get: %v", err)
	}
}

func TestEvictByCount(t *testing.T) {
	s := results.New(results.Config{MaxEntries: 3})
	var refs []results.Ref
	for i := range 5 {
		refs = append(refs, s.Put(result(1, 1, 1), fmt.Sprint(i)))
	}
	for i, r := range refs {
		_, err := s.Get(r)
		if held := err == nil; held != (i >= 2) {
			t.Fatalf("ref %d held=%v (err %v), want only the last 3 held", i, held, err)
		}
	}
	if n, _ := s.Stats(); n != 3 {
		t.Fatalf("%d entries, want 3", n)
	}
}

// Eviction is least-recently-used: reading an old result keeps it.
func TestEvictLRUByBytes(t *testing.T) {
	one := result(100, 1000, 100)
	probe := results.New(results.Config{})
	probe.Put(one, "")
	_, size := probe.Stats()
	if size < 100*1000 {
		t.Fatalf("estimate %d bytes for 100 KB of text: too low", size)
	}

	s := results.New(results.Config{MaxBytes: 3*size + size/2})
	a := s.Put(result(100, 1000, 100), "a")
	b := s.Put(result(100, 1000, 100), "b")
	c := s.Put(result(100, 1000, 100), "c")
	if _, err := s.Page(a, 0, 1); err != nil { // a is now the most recent
		t.Fatal(err)
	}
	d := s.Put(result(100, 1000, 100), "d") // over the cap: b, the least recent, goes
	if _, err := s.Get(b); !errors.Is(err, results.ErrNotFound) {
		t.Fatalf("b should have been evicted: %v", err)
	}
	for _, r := range []results.Ref{a, c, d} {
		if _, err := s.Get(r); err != nil {
			t.Fatalf("%s evicted: %v", r, err)
		}
	}
	if n, bytes := s.Stats(); n != 3 || bytes > 3*size+size/2 {
		t.Fatalf("%d entries, %d bytes; cap %d", n, bytes, 3*size+size/2)
	}
}

// One result bigger than the whole cap is still held (alone), so the ref
// just returned always works.
func TestOversizedResultHeldAlone(t *testing.T) {
	s := results.New(results.Config{MaxBytes: 10_000})
	small := s.Put(result(1, 1, 1), "small")
	big := s.Put(result(100, 1000, 100), "big")
	if _, err := s.Get(big); err != nil {
		t.Fatalf("the newest result must be held: %v", err)
	}
	if _, err := s.Get(small); err == nil {
		t.Fatal("the small result should have made room")
	}
	if n, _ := s.Stats(); n != 1 {
		t.Fatalf("%d entries, want 1", n)
	}
}

func TestDelete(t *testing.T) {
	s := results.New(results.Config{})
	r := s.Put(result(3, 1, 3), "q")
	s.Delete(r)
	s.Delete("r_unknown000")
	if _, err := s.Get(r); !errors.Is(err, results.ErrNotFound) {
		t.Fatalf("deleted ref: %v", err)
	}
	if n, b := s.Stats(); n != 0 || b != 0 {
		t.Fatalf("after delete: %d entries, %d bytes", n, b)
	}
}

// Many goroutines putting, paging and deleting; run with -race. Every
// page read must be internally consistent, and the caps must hold.
func TestConcurrent(t *testing.T) {
	s := results.New(results.Config{MaxEntries: 20, MaxBytes: 2 << 20})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Go(func() {
			var mine []results.Ref
			for i := range 200 {
				n := 1 + (w*7+i)%50
				r := s.Put(result(n, 100, int64(n)), fmt.Sprint(w, i))
				mine = append(mine, r)
				old := mine[len(mine)/2]
				p, err := s.Page(old, 1, 10)
				switch {
				case errors.Is(err, results.ErrNotFound):
				case err != nil:
					errs <- err
					return
				case len(p.Rows) > 0 && p.Rows[0][0] != int64(1):
					errs <- fmt.Errorf("page of %s starts at %v", old, p.Rows[0][0])
					return
				}
				if i%10 == 0 {
					s.Delete(mine[0])
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n, b := s.Stats(); n > 20 || b > 2<<20 {
		t.Fatalf("caps broken: %d entries, %d bytes", n, b)
	}
}
