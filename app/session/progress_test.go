package session

import (
	"testing"
	"time"
)

func TestThrottleKeepsPhasesAndBoundsTheRate(t *testing.T) {
	type report struct {
		phase string
		n     int
	}
	var got []report
	progress := Throttle(func(r report) string { return r.phase }, func(r report) { got = append(got, r) })
	start := time.Now()
	progress(report{"reading", 0})
	for i := 1; i <= 1000; i++ {
		progress(report{"reading", i})
	}
	progress(report{"profiling", 0})
	progress(report{"done", 1})
	progress(report{"done", 2})
	elapsed := time.Since(start)
	phases := map[string]int{}
	for _, r := range got {
		phases[r.phase]++
	}
	if phases["profiling"] != 1 || phases["done"] != 2 {
		t.Errorf("phase changes and every done pass: got %v", got)
	}
	if limit := int(elapsed/ProgressEvery) + 1; phases["reading"] > limit {
		t.Errorf("%d reading reports in %s, at most %d allowed", phases["reading"], elapsed, limit)
	}
	if got[0] != (report{"reading", 0}) {
		t.Errorf("the first report goes at once, got %v", got[0])
	}
}
