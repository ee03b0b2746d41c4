package vega

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// node is a generic XML element, enough to inspect an SVG.
type node struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Kids    []node     `xml:",any"`
}

func (n *node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n *node) hasClass(c string) bool { return slices.Contains(strings.Fields(n.attr("class")), c) }

// find returns every element below n (n included) for which ok holds.
func (n *node) find(ok func(*node) bool) []*node {
	var out []*node
	if ok(n) {
		out = append(out, n)
	}
	for i := range n.Kids {
		out = append(out, n.Kids[i].find(ok)...)
	}
	return out
}

func parseSVG(t *testing.T, svg []byte) *node {
	t.Helper()
	var root node
	if err := xml.Unmarshal(svg, &root); err != nil {
		t.Fatalf("SVG is not well-formed XML: %v\n%.500s", err, svg)
	}
	if root.XMLName.Local != "svg" || root.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Fatalf("root element is %v, want svg in the SVG namespace", root.XMLName)
	}
	return &root
}

func readSpec(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// shared renderer for the tests of this package, warmed once.
var testRenderer = sync.OnceValue(func() *Renderer { return NewRenderer(Options{Size: 2}) })

func TestSVGBarChartHasOneBarAndLabelPerRow(t *testing.T) {
	spec := readSpec(t, "bar.vl.json")
	var src struct {
		Data struct {
			Values []struct {
				Region string `json:"region"`
			} `json:"values"`
		} `json:"data"`
	}
	if err := json.Unmarshal(spec, &src); err != nil {
		t.Fatal(err)
	}
	svg, err := testRenderer().SVG(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	root := parseSVG(t, svg)

	bars := root.find(func(n *node) bool { return n.hasClass("mark-rect") && n.hasClass("role-mark") })
	if len(bars) != 1 {
		t.Fatalf("found %d bar mark groups, want 1", len(bars))
	}
	if got := len(bars[0].find(func(n *node) bool { return n.XMLName.Local == "path" })); got != len(src.Data.Values) {
		t.Errorf("bar count = %d, want %d (one per data row)", got, len(src.Data.Values))
	}

	xAxis := root.find(func(n *node) bool { return strings.HasPrefix(n.attr("aria-label"), "X-axis") })
	if len(xAxis) != 1 {
		t.Fatalf("found %d x axes, want 1", len(xAxis))
	}
	var labels []string
	for _, l := range xAxis[0].find(func(n *node) bool { return n.hasClass("role-axis-label") }) {
		for _, txt := range l.find(func(n *node) bool { return n.XMLName.Local == "text" }) {
			labels = append(labels, txt.Text)
		}
	}
	var want []string
	for _, v := range src.Data.Values {
		want = append(want, v.Region)
	}
	slices.Sort(labels)
	slices.Sort(want)
	if !slices.Equal(labels, want) {
		t.Errorf("x-axis labels = %q, want %q", labels, want)
	}
	if !strings.Contains(string(svg), "Revenue by region, 2024") {
		t.Error("the title is missing from the SVG")
	}
}

func TestSVGMarkTypes(t *testing.T) {
	cases := []struct {
		file, markClass string
		marks           int // elements inside the mark group; -1 to skip
	}{
		{"line.vl.json", "mark-line", 1},
		{"area.vl.json", "mark-area", 1},
		{"scatter.vl.json", "mark-symbol", 6},
		{"pie.vl.json", "mark-arc", 4},
		{"heatmap.vl.json", "mark-rect", 6},
		{"histogram.vl.json", "mark-rect", -1},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			svg, err := testRenderer().SVG(context.Background(), readSpec(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			root := parseSVG(t, svg)
			if w, h := root.attr("width"), root.attr("height"); w == "" || w == "0" || h == "" || h == "0" {
				t.Errorf("svg size %sx%s", w, h)
			}
			groups := root.find(func(n *node) bool { return n.hasClass(c.markClass) && n.hasClass("role-mark") })
			if len(groups) == 0 {
				t.Fatalf("no %s group in the SVG", c.markClass)
			}
			if c.marks < 0 {
				return
			}
			got := len(groups[0].Kids)
			if got != c.marks {
				t.Errorf("%s group has %d marks, want %d", c.markClass, got, c.marks)
			}
		})
	}
}

func TestSVGRefusesWhatCannotBeDrawn(t *testing.T) {
	cases := []struct {
		name, spec, want string
	}{
		{"unknown mark", `{"data":{"values":[{"a":1}]},"mark":"bogus","encoding":{"x":{"field":"a","type":"quantitative"}}}`, ""},
		{"external data", `{"data":{"url":"https://example.com/data.csv"},"mark":"bar","encoding":{"x":{"field":"a","type":"nominal"}}}`, "external data"},
		{"image from the network", `{"data":{"values":[{"u":"https://example.com/a.png"}]},"mark":{"type":"image","width":20,"height":20},"encoding":{"url":{"field":"u","type":"nominal"}}}`, "external data"},
		{"not json", `{"mark":`, "JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := testRenderer().SVG(context.Background(), []byte(c.spec))
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want *SpecError", err, err)
			}
			if !strings.Contains(strings.ToLower(se.Msg), strings.ToLower(c.want)) {
				t.Errorf("message %q does not mention %q", se.Msg, c.want)
			}
		})
	}
	// The engine that failed is still fine to use.
	if _, err := testRenderer().SVG(context.Background(), readSpec(t, "bar.vl.json")); err != nil {
		t.Fatalf("render after failures: %v", err)
	}
}

// bigScatter is a spec heavy enough to take seconds in goja.
func bigScatter(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"data":{"values":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"x":%d,"y":%d,"c":"g%d"}`, i, (i*7919)%1000, i%10)
	}
	b.WriteString(`]},"mark":"point","encoding":{"x":{"field":"x","type":"quantitative"},"y":{"field":"y","type":"quantitative"},"color":{"field":"c","type":"nominal"}}}`)
	return []byte(b.String())
}

func TestSVGCancel(t *testing.T) {
	r := NewRenderer(Options{Size: 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.SVG(ctx, readSpec(t, "bar.vl.json")); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled before start: err = %v", err)
	}

	if err := r.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Build the spec before the clock starts: on a busy machine building
	// it can take longer than the cancel delay.
	big := bigScatter(50000)
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := r.SVG(ctx, big)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancel took %v to stop the render", d)
	}
	if r.Idle() != 0 {
		t.Errorf("the interrupted engine went back to the pool")
	}
	if _, err := r.SVG(context.Background(), readSpec(t, "bar.vl.json")); err != nil {
		t.Fatalf("render after a cancel: %v", err)
	}
	if r.Idle() != 1 {
		t.Errorf("idle engines = %d, want 1", r.Idle())
	}
}

func TestSVGTimeout(t *testing.T) {
	r := NewRenderer(Options{Size: 1, Timeout: 300 * time.Millisecond})
	_, err := r.SVG(context.Background(), bigScatter(50000))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
}

func TestSVGConcurrentRendersShareThePool(t *testing.T) {
	r := NewRenderer(Options{Size: 2})
	spec := readSpec(t, "bar.vl.json")
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for range 5 {
		wg.Go(func() {
			svg, err := r.SVG(context.Background(), spec)
			if err == nil && !strings.Contains(string(svg), ">North<") {
				err = errors.New("SVG lacks the North label")
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := r.Idle(); n < 1 || n > 2 {
		t.Errorf("idle engines = %d, want 1 or 2 (pool size 2)", n)
	}
}

func TestSVGCache(t *testing.T) {
	r := NewRenderer(Options{Size: 1, CacheSize: 2})
	bar, line, pie := readSpec(t, "bar.vl.json"), readSpec(t, "line.vl.json"), readSpec(t, "pie.vl.json")
	first, err := r.SVG(context.Background(), bar)
	if err != nil {
		t.Fatal(err)
	}
	first[0] = 'X' // the caller's copy; the cache keeps its own
	start := time.Now()
	again, err := r.SVG(context.Background(), bar)
	if err != nil || again[0] != '<' {
		t.Fatalf("cached SVG: %v %.20q", err, again)
	}
	if d := time.Since(start); d > 20*time.Millisecond {
		t.Errorf("cache hit took %v", d)
	}
	for _, s := range [][]byte{line, pie} { // evicts bar
		if _, err := r.SVG(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := r.cache.get(bar); ok {
		t.Error("the oldest entry was not evicted")
	}
	if _, ok := r.cache.get(pie); !ok {
		t.Error("the newest entry is missing")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.SVG(ctx, pie); !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled ctx got %v from the cache", err)
	}
}

func TestIdleEnginesAreDropped(t *testing.T) {
	r := NewRenderer(Options{Size: 1, IdleTTL: 50 * time.Millisecond})
	if err := r.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r.Idle() != 1 {
		t.Fatalf("idle = %d after Warm", r.Idle())
	}
	deadline := time.Now().Add(2 * time.Second)
	for r.Idle() != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if r.Idle() != 0 {
		t.Errorf("idle engine kept past its TTL")
	}
}

func TestScriptsCanBeInlined(t *testing.T) {
	s := Scripts()
	if len(s) != 3 {
		t.Fatalf("got %d scripts", len(s))
	}
	for _, sc := range s {
		if len(sc.Source) < 10000 {
			t.Errorf("%s is only %d bytes", sc.Name, len(sc.Source))
		}
		low := strings.ToLower(sc.Source)
		if strings.Contains(low, "</script") || strings.Contains(low, "<!--") {
			t.Errorf("%s cannot be inlined in a <script> element", sc.Name)
		}
	}
	if !strings.Contains(Versions(), "vega-lite 6.5.0") {
		t.Errorf("Versions() = %q", Versions())
	}
}

// BenchmarkSVGBarWarm measures one bar chart on a warm engine.
func BenchmarkSVGBarWarm(b *testing.B) {
	r := NewRenderer(Options{Size: 1, CacheSize: -1})
	spec := readSpec(b, "bar.vl.json")
	if err := r.Warm(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.SVG(context.Background(), spec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSVGBarCold measures a bar chart on a fresh engine: engine start
// plus render. The scripts are compiled once per process before this
// (BenchmarkCompileScripts measures that part of a process's first call).
func BenchmarkSVGBarCold(b *testing.B) {
	spec := readSpec(b, "bar.vl.json")
	if _, err := programs(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r := NewRenderer(Options{Size: 1, CacheSize: -1})
		if _, err := r.SVG(context.Background(), spec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileScripts measures parsing the polyfill, Vega and Vega-Lite,
// paid once per process.
func BenchmarkCompileScripts(b *testing.B) {
	srcs := []string{polyfill, mustRead("js/vega.min.js"), mustRead("js/vega-lite.min.js"), metricsJS, renderJS}
	for b.Loop() {
		for i, src := range srcs {
			if _, err := goja.Compile(fmt.Sprint(i), src, false); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkEngineStart measures starting one engine and the heap it keeps.
func BenchmarkEngineStart(b *testing.B) {
	if _, err := programs(); err != nil {
		b.Fatal(err)
	}
	var kept []*engine
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b.Loop() {
		e, err := newEngine(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		kept = append(kept, e)
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(len(kept))/(1<<20), "MB-heap/engine")
	runtime.KeepAlive(kept)
}

// A figure from the Python sandbox is an image mark over a data: URI; it
// draws, while a URL to fetch is still refused.
func TestImageMarks(t *testing.T) {
	r := NewRenderer(Options{Size: 1})
	png := "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	spec := `{"data":{"values":[{"u":"` + png + `"}]},"mark":{"type":"image","width":100,"height":80},"encoding":{"url":{"field":"u","type":"nominal"}}}`
	svg, err := r.SVG(context.Background(), []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "data:image/png;base64,iVBOR") {
		t.Errorf("the image is not in the SVG:\n%.400s", svg)
	}
	bad := strings.Replace(spec, png, "https://example.com/x.png", 1)
	if _, err := r.SVG(context.Background(), []byte(bad)); err == nil || !strings.Contains(err.Error(), "not allowed") {
		t.Errorf("a URL to fetch must be refused, got %v", err)
	}
}
