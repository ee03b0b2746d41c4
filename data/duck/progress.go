package duck

import (
	"reflect"
	"time"
	"unsafe"

	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// Progress is DuckDB's own estimate of a running statement's progress.
type Progress struct {
	Percent       float64 // 0–100, or -1 when DuckDB cannot tell
	RowsProcessed uint64
	RowsTotal     uint64 // an estimate; 0 when unknown
}

// handle returns the C connection behind a driver connection. The binding
// does not export it; DuckDB's query progress is only reachable through it.
// The field is looked up by name, so a layout change fails loudly in tests.
func handle(c *duckdb.Conn) (mapping.Connection, bool) {
	f := reflect.ValueOf(c).Elem().FieldByName("conn")
	if !f.IsValid() || f.Type() != reflect.TypeOf(mapping.Connection{}) {
		return mapping.Connection{}, false
	}
	return *(*mapping.Connection)(unsafe.Pointer(f.UnsafeAddr())), true
}

// WatchProgress polls DuckDB's progress of the statement running on c (the
// Write connection: only it tracks progress) and calls report
// every interval until the returned stop function is called. report runs on
// another goroutine. Stop waits for the watcher to exit.
func WatchProgress(c *duckdb.Conn, interval time.Duration, report func(Progress)) (stop func()) {
	h, ok := handle(c)
	if !ok || report == nil {
		return func() {}
	}
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p := mapping.QueryProgress(h)
				pct, rows, total := mapping.QueryProgressTypeMembers(&p)
				if pct >= 0 || rows > 0 {
					report(Progress{Percent: pct, RowsProcessed: rows, RowsTotal: total})
				}
			}
		}
	}()
	return func() { close(done); <-exited }
}
