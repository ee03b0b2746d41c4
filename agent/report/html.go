package report

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"

	"github.com/loupeapp/loupe/agent/report/vega"
)

// chartImage is a chart as drawn for the export.
type chartImage struct {
	SVG []byte
	Err string // why it could not be drawn; SVG is nil then
}

// md is the markdown renderer: CommonMark plus GitHub's tables,
// strikethrough, autolinks and task lists. Raw HTML in the model's text is
// not passed through (goldmark omits it unless told otherwise); images and
// links are drawn by containedRenderer: no image but data:image, every
// link's address shown, only web and mail links clickable.
var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(containedRenderer{}, 100))),
)

// contentPolicy forbids every network load: the page runs only its own
// inline scripts (Vega interprets expressions with vega-interpreter, so
// no eval) and shows only inline images; no form, base URL or frame.
const contentPolicy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; form-action 'none'; base-uri 'none'"

// html renders the report as one self-contained page: the markdown as HTML,
// each chart drawn interactively by vega-embed over its static SVG, the
// Vega bundles inlined, and a content policy that allows no network.
func (r *Report) html(charts map[string]chartImage) ([]byte, error) {
	nonce := make([]byte, 8)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("report: html: %w", err)
	}
	marker := "LOUPEFIGURE" + hex.EncodeToString(nonce) + "X"
	var figures []string
	text := r.markdown(func(ch *Chart, fig int) string {
		figures = append(figures, figureHTML(ch, fig, charts[ch.Ref]))
		return fmt.Sprintf("%s%d\n", marker, len(figures)-1)
	})
	var body bytes.Buffer
	if err := md.Convert([]byte(text), &body); err != nil {
		return nil, fmt.Errorf("report: render markdown: %w", err)
	}
	out := body.String()
	for i, f := range figures {
		out = strings.Replace(out, fmt.Sprintf("<p>%s%d</p>", marker, i), f, 1)
	}
	var scripts []template.JS
	for _, s := range vega.Scripts() {
		scripts = append(scripts, template.JS(s.Source)) // #nosec: vendored, checked to hold no </script
	}
	var page bytes.Buffer
	err := pageTemplate.Execute(&page, map[string]any{
		"Title":     r.Title,
		"Policy":    contentPolicy,
		"CSS":       template.CSS(pageCSS),
		"Body":      template.HTML(out), // goldmark output (raw HTML omitted) and our figures
		"Scripts":   scripts,
		"Init":      template.JS(strings.ReplaceAll(initJS, "FONT_FAMILY", vega.FontFamily)),
		"Model":     r.Model,
		"Generator": strings.TrimSpace("Loupe " + r.Version),
	})
	if err != nil {
		return nil, fmt.Errorf("report: html: %w", err)
	}
	return page.Bytes(), nil
}

// figureHTML is one chart: a container vega-embed draws into, the static
// SVG as an image until then (and for readers without scripts), a caption,
// and the spec as JSON for the page's script.
func figureHTML(ch *Chart, fig int, img chartImage) string {
	id := "vis-" + ch.Ref
	caption := fmt.Sprintf("Figure %d. %s", fig, chartTitle(ch))
	if ch.QueryRef != "" {
		caption += " (data: " + ch.QueryRef + ")"
	}
	var spec bytes.Buffer
	if err := json.Compact(&spec, withoutUsermeta(ch.Spec)); err != nil {
		spec.Reset()
		spec.WriteString("null")
	}
	var safe bytes.Buffer
	json.HTMLEscape(&safe, spec.Bytes()) // no <, > or & left: cannot close the script element
	var b strings.Builder
	fmt.Fprintf(&b, `<figure class="chart" id="fig-%s">`, template.HTMLEscapeString(ch.Ref))
	fmt.Fprintf(&b, `<div class="vis"><div class="embed" id="%s"></div>`, template.HTMLEscapeString(id))
	if img.SVG != nil {
		fmt.Fprintf(&b, `<img class="static" alt="%s" src="data:image/svg+xml;base64,%s">`,
			template.HTMLEscapeString(chartTitle(ch)), base64.StdEncoding.EncodeToString(img.SVG))
	} else {
		fmt.Fprintf(&b, `<p class="static missing">This chart could not be drawn ahead of time (%s).</p>`,
			template.HTMLEscapeString(img.Err))
	}
	fmt.Fprintf(&b, `</div><figcaption>%s</figcaption>`, template.HTMLEscapeString(caption))
	fmt.Fprintf(&b, `<script type="application/json" data-chart="%s">%s</script></figure>`,
		template.HTMLEscapeString(id), safe.String())
	return b.String()
}

// withoutUsermeta returns spec without its top-level usermeta, which
// vega-embed would read as embed options (an action menu, a config or
// patch loaded from a URL, a script in the source view's header). A spec
// that is not a JSON object is returned as it is.
func withoutUsermeta(spec []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(spec, &m) != nil {
		return spec
	}
	if _, ok := m["usermeta"]; !ok {
		return spec
	}
	delete(m, "usermeta")
	b, err := json.Marshal(m)
	if err != nil {
		return spec
	}
	return b
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.Policy}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="{{.Generator}}">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<main class="report">
{{.Body}}
</main>
{{range .Scripts}}<script>{{.}}</script>
{{end}}<script>{{.Init}}</script>
</body>
</html>
`))

// initJS draws every chart with vega-embed. External data is refused (the
// content policy would block it anyway); the spec's usermeta is dropped
// so that its embedOptions cannot turn on the source view or load a config;
// expressions are interpreted (ast), not compiled with new Function. On
// failure the static SVG stays.
const initJS = `(function () {
  if (typeof vegaEmbed !== 'function') return;
  var loader = vega.loader();
  loader.load = function () {
    return Promise.reject(new Error('external data is disabled in exported reports'));
  };
  loader.sanitize = function (uri, opts) {
    if (!(opts && opts.context === 'href') && /^data:image\/(png|jpeg|svg\+xml);base64,/.test(String(uri))) return Promise.resolve({ href: String(uri) });
    return Promise.reject(new Error('external data is disabled in exported reports'));
  };
  var opts = {
    renderer: 'svg',
    mode: 'vega-lite',
    ast: true,
    loader: loader,
    config: { font: 'FONT_FAMILY' },
    actions: { export: true, source: false, compiled: false, editor: false }
  };
  document.querySelectorAll('script[data-chart]').forEach(function (el) {
    var target = document.getElementById(el.getAttribute('data-chart'));
    var spec;
    try { spec = JSON.parse(el.textContent); } catch (e) { return; }
    if (!target || !spec) return;
    if (typeof spec === 'object') delete spec.usermeta;
    vegaEmbed(target, spec, opts).then(function () {
      target.parentNode.classList.add('drawn');
    }).catch(function (err) {
      target.parentNode.classList.add('failed');
      if (window.console) console.warn('chart', target.id, err);
    });
  });
})();`

const pageCSS = `
:root { --ink: #1f2328; --muted: #59636e; --rule: #d1d9e0; --tint: #f6f8fa; --accent: #0969da; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 16px/1.6 -apple-system, BlinkMacSystemFont, "Segoe UI", Helvetica, Arial, sans-serif; }
main.report { max-width: 52rem; margin: 0 auto; padding: 2.5rem 1.5rem 4rem; }
h1, h2, h3, h4 { line-height: 1.25; margin: 2rem 0 0.75rem; }
h1 { font-size: 2rem; margin-top: 0; }
h1 + p em { color: var(--muted); font-size: 0.9rem; }
h2 { font-size: 1.45rem; padding-bottom: 0.3rem; border-bottom: 1px solid var(--rule); }
h3 { font-size: 1.15rem; }
p, ul, ol, table, pre, figure { margin: 0 0 1rem; }
a { color: var(--accent); }
code { font: 0.875em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  background: var(--tint); padding: 0.1em 0.3em; border-radius: 4px; }
pre { background: var(--tint); border: 1px solid var(--rule); border-radius: 6px;
  padding: 0.8rem 1rem; overflow-x: auto; }
pre code { background: none; padding: 0; font-size: 0.85rem; white-space: pre; }
blockquote { margin: 0 0 1rem; padding: 0 1rem; color: var(--muted); border-left: 4px solid var(--rule); }
table { border-collapse: collapse; display: block; overflow-x: auto; max-width: 100%;
  font-size: 0.9rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--rule); padding: 0.35rem 0.7rem; vertical-align: top; }
th { background: var(--tint); font-weight: 600; text-align: left; }
tbody tr:nth-child(even) td { background: #fbfcfd; }
table + p em, figcaption { color: var(--muted); font-size: 0.875rem; }
figure.chart { margin: 1.5rem 0; }
figure.chart .vis { overflow-x: auto; }
figure.chart img.static { max-width: 100%; height: auto; display: block; }
figure.chart .drawn img.static { display: none; }
figure.chart .missing { color: var(--muted); font-style: italic; }
figure.chart figcaption { margin-top: 0.4rem; }
.blocked-image { display: inline-block; padding: 0.1rem 0.5rem; border: 1px dashed var(--rule);
  border-radius: 4px; color: var(--muted); font-size: 0.85rem; overflow-wrap: anywhere; }
.link-address { color: var(--muted); font-size: 0.85em; overflow-wrap: anywhere; }
hr { border: 0; border-top: 1px solid var(--rule); margin: 2rem 0; }
@media print {
  body { font-size: 11pt; }
  main.report { max-width: none; padding: 0; }
  h2, h3 { break-after: avoid; }
  figure, table, pre { break-inside: avoid; }
  pre, table { overflow: visible; }
  pre, pre code { white-space: pre-wrap; overflow-wrap: anywhere; }
  table { display: table; }
  .vega-embed details, .vega-actions { display: none !important; }
  a { color: inherit; text-decoration: none; }
}
@page { margin: 18mm 16mm; }
`
