package app_test

import (
	"testing"
	"time"

	"github.com/loupeapp/loupe/app"
)

// TestCancelSQLStopsARunawayQuery: a cross join that would run for
// minutes stops within a second of CancelSQL, with code "canceled", and
// the console runs the next query as usual.
func TestCancelSQLStopsARunawayQuery(t *testing.T) {
	e := newEnv(t, setup{})
	e.load(t)
	if ran, _ := e.app.CancelSQL(); ran {
		t.Error("CancelSQL with nothing running reported a query")
	}
	type outcome struct {
		err error
		at  time.Time
	}
	done := make(chan outcome, 1)
	go func() {
		_, err := e.app.RunSQL("SELECT count(*) FROM range(1000000000) a, range(1000000000) b WHERE a.range + b.range = -1")
		done <- outcome{err, time.Now()}
	}()
	time.Sleep(700 * time.Millisecond) // DuckDB is well into it
	select {
	case o := <-done:
		t.Fatalf("the runaway query ended by itself: %v", o.err)
	default:
	}
	asked := time.Now()
	if ran, _ := e.app.CancelSQL(); !ran {
		t.Error("CancelSQL found no running query")
	}
	select {
	case o := <-done:
		took := o.at.Sub(asked)
		t.Logf("stopped %v after CancelSQL", took)
		if codeOf(t, o.err) != app.CodeCanceled {
			t.Errorf("error %v, want code canceled", o.err)
		}
		if took > time.Second {
			t.Errorf("stopped %v after CancelSQL, want within a second", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the query did not stop within 10 s of CancelSQL")
	}
	res, err := e.app.RunSQL("SELECT count(*) AS n FROM orders")
	if err != nil || res.Rows != 1 {
		t.Errorf("the next query: %v %v", res, err)
	}
}
