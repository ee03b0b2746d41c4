package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"milliseconds win", map[string]string{"Retry-After": "3", "Retry-After-Ms": "1200"}, 1200 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"negative", map[string]string{"Retry-After": "-4"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := RetryAfter(h, now); got != tt.want {
				t.Errorf("RetryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCaptureRecordsFailures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			io.WriteString(w, "fine")
			return
		}
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":"slow down"}`)
	}))
	defer srv.Close()
	c := Client(nil)
	for _, tt := range []struct {
		path   string
		status int
		body   string
	}{{"/ok", 0, "fine"}, {"/busy", 429, `{"error":"slow down"}`}} {
		ctx, f := WithFailure(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+tt.path, nil)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if string(body) != tt.body {
			t.Errorf("%s: body after capture = %q, want %q", tt.path, body, tt.body)
		}
		if f.Status != tt.status {
			t.Errorf("%s: captured status %d, want %d", tt.path, f.Status, tt.status)
		}
		if tt.status != 0 && (string(f.Body) != tt.body || f.Header.Get("Retry-After") != "2") {
			t.Errorf("%s: captured body %q header %v", tt.path, f.Body, f.Header)
		}
	}
}

func TestClassifyNetworkErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	_, refused := http.Get("http://" + closed + "/")
	if refused == nil || !Unreachable(refused) || Broken(refused) {
		t.Errorf("connection refused: Unreachable=%v Broken=%v (%v)", Unreachable(refused), Broken(refused), refused)
	}

	// A server that answers with headers, then drops the connection mid-body.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}))
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, cut := io.ReadAll(res.Body)
	res.Body.Close()
	if cut == nil || !Broken(cut) || Unreachable(cut) {
		t.Errorf("cut body: Broken=%v Unreachable=%v (%v)", Broken(cut), Unreachable(cut), cut)
	}
	if Broken(context.Canceled) || Broken(errors.New("model not found")) {
		t.Error("cancel or an ordinary error classified as a broken stream")
	}
}

func TestWatchStall(t *testing.T) {
	ctx, s := WatchStall(context.Background(), 50*time.Millisecond)
	defer s.Stop()
	for range 4 { // kicked in time: still alive after 4×30ms
		time.Sleep(30 * time.Millisecond)
		s.Kick()
	}
	if ctx.Err() != nil || s.Stalled() {
		t.Fatal("stream canceled although data kept arriving")
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
		t.Fatal("silent stream not canceled")
	}
	if !s.Stalled() {
		t.Error("Stalled() = false after the watch canceled")
	}
	ctx0, s0 := WatchStall(context.Background(), 0)
	s0.Kick()
	s0.Stop()
	if ctx0.Err() != nil || s0.Stalled() {
		t.Error("a zero timeout must watch nothing")
	}
}
