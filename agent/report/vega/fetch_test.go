package vega

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRendererFetchesNothing: whatever a spec names, the server-side
// renderer never reaches the network. A listener on loopback counts the
// requests; every spec below names it, and every render must fail (or
// draw without it) with zero requests made.
func TestRendererFetchesNothing(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/csv")
		_, _ = w.Write([]byte("a,b\nx,1\n"))
	}))
	defer srv.Close()
	u := srv.URL
	vals := `{"values":[{"a":"x","b":1}]}`
	cases := []struct{ name, spec string }{
		{"data url", `{"data":{"url":"` + u + `/d.csv"},"mark":"bar","encoding":{"x":{"field":"a","type":"nominal"}}}`},
		{"lookup from url", `{"data":` + vals + `,"transform":[{"lookup":"a","from":{"data":{"url":"` + u + `/l.csv"},"key":"a","fields":["c"]}}],"mark":"bar","encoding":{"x":{"field":"a","type":"nominal"}}}`},
		{"image url computed from rows", `{"data":` + vals + `,"transform":[{"calculate":"'` + u + `/?d=' + datum.a","as":"u"}],"mark":{"type":"image","width":10,"height":10},"encoding":{"x":{"field":"a","type":"nominal"},"url":{"field":"u","type":"nominal"}}}`},
		{"href channel", `{"data":` + vals + `,"mark":"bar","encoding":{"x":{"field":"a","type":"nominal"},"href":{"value":"` + u + `/h"}}}`},
		{"href mark property", `{"data":` + vals + `,"mark":{"type":"bar","href":"` + u + `/h"},"encoding":{"x":{"field":"a","type":"nominal"}}}`},
		{"topojson", `{"data":{"url":"` + u + `/w.json","format":{"type":"topojson","feature":"c"}},"mark":"geoshape","projection":{"type":"mercator"}}`},
		{"protocol-relative", `{"data":{"url":"//` + strings.TrimPrefix(u, "http://") + `/d.csv"},"mark":"bar","encoding":{"x":{"field":"a","type":"nominal"}}}`},
	}
	r := NewRenderer(Options{Size: 1})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := r.SVG(context.Background(), []byte(c.spec))
			if err == nil || !strings.Contains(err.Error(), "not allowed") {
				t.Errorf("render = %v, want a refusal that says external data is not allowed", err)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the listener got %d requests, want 0", n)
	}
}
