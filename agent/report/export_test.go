package report

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/loupeapp/loupe/agent/report/vega"
)

// snapshot reads every file under dir into a map (relative path → bytes).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// leftovers lists hidden temporary folders an export may have left in parent.
func leftovers(t *testing.T, parent string) []string {
	t.Helper()
	ents, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.Contains(e.Name(), ".loupe-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestExportLayout(t *testing.T) {
	rep := writeReport(t, readTestdata(t, "reply_good.md"))
	dir := filepath.Join(t.TempDir(), "nested", "Sales report")
	files, err := Export(context.Background(), rep, dir)
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(func(yield func(string) bool) {
		for k := range snapshot(t, dir) {
			if !yield(k) {
				return
			}
		}
	})
	want := []string{".loupe-report.json", "charts/c1.svg", "charts/c2.svg", "charts/c3.svg", "report.html", "report.md"}
	if !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	if files.Markdown != filepath.Join(dir, "report.md") || files.HTML != filepath.Join(dir, "report.html") || len(files.Charts) != 3 {
		t.Errorf("files = %+v", files)
	}
	for _, c := range files.Charts {
		if c.Error != "" || c.SVG != filepath.Join(dir, "charts", c.Ref+".svg") {
			t.Errorf("chart file %+v", c)
		}
	}
	md, _ := os.ReadFile(files.Markdown)
	if string(md) != rep.Markdown() {
		t.Error("report.md differs from Report.Markdown() although every chart was drawn")
	}
	for _, ref := range []string{"c1", "c2", "c3"} {
		if !strings.Contains(string(md), "](charts/"+ref+".svg)") {
			t.Errorf("report.md does not link charts/%s.svg", ref)
		}
	}
	var m manifest
	b, _ := os.ReadFile(filepath.Join(dir, manifestName))
	if err := json.Unmarshal(b, &m); err != nil || m.LoupeReport != 1 || m.Title != rep.Title || !slices.Contains(m.Files, "charts/c2.svg") {
		t.Errorf("manifest = %+v, %v", m, err)
	}
	if l := leftovers(t, filepath.Dir(dir)); len(l) > 0 {
		t.Errorf("temporary folders left: %v", l)
	}
}

// svgNode is a generic XML element.
type svgNode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Kids    []svgNode  `xml:",any"`
}

func (n *svgNode) walk(f func(*svgNode)) {
	f(n)
	for i := range n.Kids {
		n.Kids[i].walk(f)
	}
}

func (n *svgNode) class() string {
	for _, a := range n.Attrs {
		if a.Name.Local == "class" {
			return a.Value
		}
	}
	return ""
}

func TestExportedBarChartShowsTheQueryRows(t *testing.T) {
	rep := writeReport(t, readTestdata(t, "reply_good.md"))
	dir := filepath.Join(t.TempDir(), "r")
	if _, err := Export(context.Background(), rep, dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "charts", "c1.svg"))
	if err != nil {
		t.Fatal(err)
	}
	var root svgNode
	if err := xml.Unmarshal(b, &root); err != nil {
		t.Fatalf("c1.svg is not well-formed: %v", err)
	}
	bars, texts := 0, map[string]bool{}
	root.walk(func(n *svgNode) {
		if strings.Contains(n.class(), "mark-rect role-mark") {
			for _, k := range n.Kids {
				if k.XMLName.Local == "path" {
					bars++
				}
			}
		}
		if n.XMLName.Local == "text" {
			texts[n.Text] = true
		}
	})
	q2 := rep.Exploration.query("q2")
	if bars != len(q2.Preview) {
		t.Errorf("%d bars, want %d (rows of q2)", bars, len(q2.Preview))
	}
	for _, row := range q2.Preview {
		if !texts[row[0].(string)] {
			t.Errorf("no label %q in the chart", row[0])
		}
	}
	if !texts["Revenue by region, 2024"] {
		t.Error("no chart title")
	}
}

func TestExportedHTMLIsSelfContained(t *testing.T) {
	rep := writeReport(t, readTestdata(t, "reply_good.md"))
	dir := filepath.Join(t.TempDir(), "r")
	files, err := Export(context.Background(), rep, dir)
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(files.HTML)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var scripts, specs, tables, figures, staticImgs int
	var csp string
	var visit func(*html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode {
			attrs := map[string]string{}
			for _, a := range n.Attr {
				attrs[a.Key] = a.Val
				if a.Key == "src" || (a.Key == "href" && n.Data == "link") || a.Key == "srcset" || a.Key == "xlink:href" {
					if !strings.HasPrefix(a.Val, "data:") {
						t.Errorf("<%s %s=%q> loads something from outside the page", n.Data, a.Key, a.Val)
					}
				}
			}
			switch n.Data {
			case "script":
				if _, ok := attrs["src"]; ok {
					t.Errorf("a script has a src")
				}
				if attrs["type"] == "application/json" {
					specs++
					var spec map[string]any
					if err := json.Unmarshal([]byte(n.FirstChild.Data), &spec); err != nil || spec["mark"] == nil {
						t.Errorf("chart spec script does not hold the spec: %v", err)
					}
				} else {
					scripts++
				}
			case "link":
				t.Errorf("the page links %v", attrs)
			case "meta":
				if attrs["http-equiv"] == "Content-Security-Policy" {
					csp = attrs["content"]
				}
			case "table":
				tables++
			case "figure":
				figures++
			case "img":
				if strings.HasPrefix(attrs["src"], "data:image/svg+xml;base64,") {
					staticImgs++
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(doc)
	if scripts != 4 || specs != 3 || figures != 3 || staticImgs != 3 || tables != 2 {
		t.Errorf("scripts %d (want vega, vega-lite, vega-embed, init), specs %d, figures %d, static images %d, tables %d",
			scripts, specs, figures, staticImgs, tables)
	}
	if csp != contentPolicy || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP = %q", csp)
	}
	text := string(page)
	for _, s := range vega.Scripts() {
		if !strings.Contains(text, s.Source[:200]) {
			t.Errorf("%s is not inlined", s.Name)
		}
	}
	for _, s := range []string{"<title>East led 2024 revenue, and orders are rising</title>", "<h2 id=\"appendix-queries\">", "<code class=\"language-sql\">", "Figure 3. Order status"} {
		if !strings.Contains(text, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if strings.Contains(text, "{{") || strings.Contains(text, "LOUPEFIGURE") {
		t.Error("a placeholder or figure marker leaked into the page")
	}
}

func TestHTMLDropsRawHTMLAndScriptLinksFromTheModel(t *testing.T) {
	rep := writeReport(t, "# T\n\n<script>alert(1)</script>\n\n<img src=\"https://evil.example/x.png\">\n\n[click](javascript:alert(2))\n")
	page, err := rep.html(map[string]chartImage{})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"alert(1)", "evil.example", `href="javascript:`} {
		if strings.Contains(string(page), bad) {
			t.Errorf("page keeps %q", bad)
		}
	}
	// The link's address is shown as text, never made clickable.
	if !strings.Contains(string(page), `<span class="link">click</span> <span class="link-address">(javascript:alert(2))</span>`) {
		t.Error("the script link is not shown as text with its address")
	}
}

func TestExportIsAtomic(t *testing.T) {
	exp := loadExploration(t)
	v1 := writeReport(t, readTestdata(t, "reply_good.md"))
	v2, err := Write(context.Background(), &scripted{reply: "# Second version\n\nNew text."}, "m", exp, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"render", "charts/c1.svg", "report.md", manifestName, "swap"} {
		t.Run(step, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "out")
			if _, err := Export(context.Background(), v1, dir); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			boom := errors.New("disk full (simulated)")
			exportHook = func(s string) error {
				if s == step {
					return boom
				}
				return nil
			}
			defer func() { exportHook = nil }()
			if _, err := Export(context.Background(), v2, dir); !errors.Is(err, boom) {
				t.Fatalf("err = %v, want the simulated failure", err)
			}
			if after := snapshot(t, dir); !mapsEqual(before, after) {
				t.Errorf("the previous report changed after a failed export at %q", step)
			}
			if l := leftovers(t, parent); len(l) > 0 {
				t.Errorf("left behind: %v", l)
			}
			exportHook = nil
			if _, err := Export(context.Background(), v2, dir); err != nil {
				t.Fatal(err)
			}
			md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
			if !strings.HasPrefix(string(md), "# Second version") {
				t.Errorf("re-export did not replace the report: %.40q", md)
			}
		})
	}
	t.Run("first export fails", func(t *testing.T) {
		parent := t.TempDir()
		exportHook = func(s string) error {
			if s == "report.html" {
				return errors.New("boom")
			}
			return nil
		}
		defer func() { exportHook = nil }()
		if _, err := Export(context.Background(), v1, filepath.Join(parent, "out")); err == nil {
			t.Fatal("no error")
		}
		if ents, _ := os.ReadDir(parent); len(ents) != 0 {
			t.Errorf("parent holds %v after a failed first export", ents)
		}
	})
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestExportFolderRules(t *testing.T) {
	rep := writeReport(t, readTestdata(t, "reply_good.md"))
	cases := []struct {
		name    string
		prepare func(t *testing.T, dir string)
		refused bool
	}{
		{"missing", func(*testing.T, string) {}, false},
		{"empty", func(t *testing.T, dir string) { mkdir(t, dir) }, false},
		{"unrelated files", func(t *testing.T, dir string) { mkdir(t, dir); write(t, filepath.Join(dir, "notes.txt"), "mine") }, true},
		{"report.md not ours", func(t *testing.T, dir string) { mkdir(t, dir); write(t, filepath.Join(dir, "report.md"), "mine") }, true},
		{"previous export", func(t *testing.T, dir string) { export(t, rep, dir) }, false},
		{"previous export and .DS_Store", func(t *testing.T, dir string) {
			export(t, rep, dir)
			write(t, filepath.Join(dir, ".DS_Store"), "x")
		}, false},
		{"previous export and a user file", func(t *testing.T, dir string) {
			export(t, rep, dir)
			write(t, filepath.Join(dir, "charts", "mine.png"), "x")
		}, true},
		{"a file", func(t *testing.T, dir string) { write(t, dir, "x") }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			c.prepare(t, dir)
			var before map[string]string
			if st, err := os.Stat(dir); err == nil && st.IsDir() {
				before = snapshot(t, dir)
			}
			_, err := Export(context.Background(), rep, dir)
			if !c.refused {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
					t.Error(err)
				}
				return
			}
			if err == nil {
				t.Fatal("export into this folder was not refused")
			}
			if before != nil {
				if !errors.Is(err, ErrFolderInUse) {
					t.Errorf("err = %v, want ErrFolderInUse", err)
				}
				if !mapsEqual(before, snapshot(t, dir)) {
					t.Error("a refused folder was changed")
				}
			}
		})
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func export(t *testing.T, rep *Report, dir string) {
	t.Helper()
	if _, err := Export(context.Background(), rep, dir); err != nil {
		t.Fatal(err)
	}
}

func TestExportChartThatCannotBeDrawn(t *testing.T) {
	exp := loadExploration(t)
	exp.Charts[2].Spec = json.RawMessage(`{"data":{"url":"https://example.com/x.csv"},"mark":"bar","encoding":{"x":{"field":"a","type":"nominal"}}}`)
	rep, err := Write(context.Background(), &scripted{reply: readTestdata(t, "reply_good.md")}, "m", exp, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	files, err := Export(context.Background(), rep, dir)
	if err != nil {
		t.Fatal(err)
	}
	c3 := files.Charts[2]
	if c3.Ref != "c3" || c3.SVG != "" || !strings.Contains(c3.Error, "external data") {
		t.Errorf("c3 = %+v", c3)
	}
	if _, err := os.Stat(filepath.Join(dir, "charts", "c3.svg")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("c3.svg exists: %v", err)
	}
	md, _ := os.ReadFile(files.Markdown)
	if !strings.Contains(string(md), "*Figure 3. Order status — the chart could not be drawn (external data") {
		t.Errorf("report.md does not say the chart is missing")
	}
	if strings.Contains(string(md), "charts/c3.svg") {
		t.Error("report.md links a chart that was not drawn")
	}
}

func TestExportCancel(t *testing.T) {
	rep := writeReport(t, readTestdata(t, "reply_good.md"))
	parent := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Export(ctx, rep, filepath.Join(parent, "out")); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	// Cancel during rendering: a chart heavy enough to take a while.
	var b strings.Builder
	b.WriteString(`{"data":{"values":[`)
	for i := range 40000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"x":` + strings.Repeat("1", 1+i%5) + `,"y":2}`)
	}
	b.WriteString(`]},"mark":"point","encoding":{"x":{"field":"x","type":"quantitative"},"y":{"field":"y","type":"quantitative"}}}`)
	rep.Exploration.Charts[0].Spec = json.RawMessage(b.String())
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	if _, err := Export(ctx, rep, filepath.Join(parent, "out")); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancel took %v", d)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("a canceled export left %v", ents)
	}
}

// BenchmarkExport measures a whole export of the fixture report (three
// charts drawn on warm engines, no cache, files written and swapped in).
func BenchmarkExport(b *testing.B) {
	rep := writeReport(b, readTestdata(b, "reply_good.md"))
	dir := filepath.Join(b.TempDir(), "out")
	r := vega.NewRenderer(vega.Options{CacheSize: -1})
	if err := r.Warm(context.Background()); err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	for b.Loop() {
		if _, err := exportWith(context.Background(), rep, dir, r, log); err != nil {
			b.Fatal(err)
		}
	}
}
