package duck_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/duck"
)

// TestReleaseMemory checks that, on Linux, ReleaseMemory reaches DuckDB's
// jemalloc (a DuckDB built without it, or a symbol renamed, would make it
// a silent no-op and wide loads a few hundred MB heavier) and gives back
// at once what a finished statement freed: a sort of ~0.3 GB leaves most
// of it resident until then.
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
	if !duck.ReleaseMemory() {
		t.Fatal("ReleaseMemory did not reach DuckDB's allocator")
	}
	released := residentMB(t)
	t.Logf("resident memory: %d MB before the sort, %d MB after it, %d MB after ReleaseMemory", before, after, released)
	if grew := after - before; grew < 100 || released > before+grew/2 {
		t.Errorf("the sort left %d MB resident (want ≥ 100), ReleaseMemory kept %d MB of them; want at most half", grew, released-before)
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
