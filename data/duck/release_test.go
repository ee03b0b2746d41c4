package duck_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/duck"
)

// TestReleaseMemory checks that, on Linux, ReleaseMemory reaches DuckDB's
// jemalloc (a DuckDB built without it, or a symbol renamed, would make it
// a silent no-op and wide loads a few hundred MB heavier) and gives back
// at once what a finished statement freed: a sort of ~0.3 GB leaves most
// of it resident until then.
//
// DuckDB may free the sort's state a little after its result has been
// read (up to ~0.2 s seen on a busy 2-core machine, where a single
// release made straight after the query came too early), and jemalloc's
// background decay then returns it over a second or so. So the test
// releases every 20 ms for up to 5 s and asks that the calls, not the
// decay, give back at least half of what the sort left, counting only
// what went between the readings just before and after each call (DuckDB
// may free the state in pieces). Without the release those add up to a
// few MB in 5 s.
func TestReleaseMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		if duck.ReleaseMemory() {
			t.Errorf("ReleaseMemory reports reaching an allocator on %s", runtime.GOOS)
		}
		return
	}
	e, err := duck.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	before := residentMB(t)
	var n int64
	q := "SELECT count(*) FROM (SELECT range || repeat('x', 40) AS s FROM range(6000000) ORDER BY s DESC)"
	if err := e.DB().QueryRow(q).Scan(&n); err != nil || n != 6000000 {
		t.Fatalf("sort: %d, %v", n, err)
	}
	after := residentMB(t)
	grew := after - before
	if grew < 100 {
		t.Fatalf("the sort left %d MB resident; want ≥ 100 for the test to mean anything", grew)
	}
	start := time.Now()
	var gave, last int64
	for time.Since(start) < 5*time.Second {
		r0 := residentMB(t)
		if !duck.ReleaseMemory() {
			t.Fatal("ReleaseMemory did not reach DuckDB's allocator")
		}
		last = residentMB(t)
		gave += max(r0-last, 0)
		if gave >= grew/2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("resident memory: %d MB before the sort, %d MB after it, %d MB after ReleaseMemory; the calls gave back %d MB, %v after the sort", before, after, last, gave, time.Since(start).Round(time.Millisecond))
	if gave < grew/2 {
		t.Errorf("the sort left %d MB resident; ReleaseMemory gave back %d MB of it in 5 s, want at least half (%d MB resident at the end)", grew, gave, last)
	}
}

// residentMB is this process's resident memory (VmRSS) in MB.
func residentMB(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb >> 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}
