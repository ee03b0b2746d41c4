// Package vega draws Vega-Lite charts as SVG without a browser: it runs the
// vendored Vega and Vega-Lite bundles (js/, see scripts/vega-bundle.sh) in
// goja, a pure-Go JavaScript engine, and asks Vega's headless view for its
// SVG. It also hands out the bundles (with vega-embed) for pages that draw
// charts interactively.
//
// A Renderer keeps a few warm engines: starting one costs a parse of about
// 800 KB of JavaScript (compiled once per process) and running it (~100 ms);
// a warm engine draws a small bar chart in roughly 100–300 ms.
package vega

import (
	"embed"
	"fmt"
	"strings"
	"sync"

	"github.com/dop251/goja"
)

//go:embed js/vega.min.js js/vega-lite.min.js js/vega-embed.min.js js/VERSIONS
var files embed.FS

// Script is one vendored bundle.
type Script struct {
	Name   string // file name, e.g. "vega.min.js"
	Source string
}

// Scripts returns vega, vega-lite and vega-embed, in the order a page must
// load them. None contains "</script" or "<!--", so each can be inlined in a
// <script> element as is (scripts/vega-bundle.sh checks this).
func Scripts() []Script {
	names := []string{"vega.min.js", "vega-lite.min.js", "vega-embed.min.js"}
	out := make([]Script, 0, len(names))
	for _, n := range names {
		out = append(out, Script{Name: n, Source: mustRead("js/" + n)})
	}
	return out
}

// Versions returns the vendored packages' versions, e.g. "vega 6.4.0\n…".
func Versions() string { return mustRead("js/VERSIONS") }

func mustRead(name string) string {
	b, err := files.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("vega: embedded %s missing: %v", name, err)) // a build defect, not a runtime condition
	}
	return string(b)
}

// programs are the engine's scripts, compiled once per process and shared by
// every engine (a goja.Program is immutable and safe to share).
var programs = sync.OnceValues(func() ([]*goja.Program, error) {
	srcs := []Script{
		{Name: "polyfill.js", Source: polyfill},
		{Name: "vega.min.js", Source: mustRead("js/vega.min.js")},
		{Name: "vega-lite.min.js", Source: mustRead("js/vega-lite.min.js")},
		{Name: "metrics.js", Source: metricsJS},
		{Name: "render.js", Source: renderJS},
	}
	out := make([]*goja.Program, 0, len(srcs))
	for _, s := range srcs {
		p, err := goja.Compile(s.Name, s.Source, false)
		if err != nil {
			return nil, fmt.Errorf("vega: compile %s: %w", s.Name, err)
		}
		out = append(out, p)
	}
	return out, nil
})

// polyfill supplies what Vega and Vega-Lite expect from a browser or Node
// and goja lacks. Timers are queued and run by the engine after each call,
// in order of due time on a virtual clock (nothing waits for real time).
const polyfill = `
globalThis.structuredClone = function clone(v) {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Date) return new Date(v.getTime());
  if (Array.isArray(v)) return v.map(clone);
  if (v instanceof Map) { var m = new Map(); v.forEach(function (x, k) { m.set(clone(k), clone(x)); }); return m; }
  if (v instanceof Set) { var s = new Set(); v.forEach(function (x) { s.add(clone(x)); }); return s; }
  var o = {};
  for (var k in v) if (Object.prototype.hasOwnProperty.call(v, k)) o[k] = clone(v[k]);
  return o;
};
(function () {
  var logs = [];
  function logger(level) {
    return function () {
      var parts = [];
      for (var i = 0; i < arguments.length; i++) parts.push(String(arguments[i] && arguments[i].message || arguments[i]));
      if (logs.length < 50) logs.push(level + ': ' + parts.join(' '));
    };
  }
  globalThis.console = { log: logger('log'), info: logger('info'), debug: logger('debug'), warn: logger('warn'), error: logger('error') };
  globalThis.__loupeTakeLogs = function () { var l = logs; logs = []; return l; };

  var timers = [], seq = 0, now = 0;
  globalThis.setTimeout = function (fn, ms) {
    var id = ++seq;
    timers.push({ id: id, at: now + (+ms || 0), fn: fn, args: Array.prototype.slice.call(arguments, 2) });
    return id;
  };
  globalThis.clearTimeout = function (id) {
    timers = timers.filter(function (t) { return t.id !== id; });
  };
  globalThis.setInterval = function () { return 0; }; // never needed headless; never fires
  globalThis.clearInterval = function () {};
  globalThis.requestAnimationFrame = function (fn) { return globalThis.setTimeout(fn, 16); };
  globalThis.cancelAnimationFrame = globalThis.clearTimeout;
  // __loupeRunTimer runs the earliest timer; false when none is left.
  globalThis.__loupeRunTimer = function () {
    if (!timers.length) return false;
    var i = 0;
    for (var j = 1; j < timers.length; j++) if (timers[j].at < timers[i].at) i = j;
    var t = timers.splice(i, 1)[0];
    now = t.at;
    t.fn.apply(null, t.args);
    return true;
  };
})();
`

// FontFamily is the font charts are drawn in unless their spec's config
// says otherwise: Helvetica's metrics are what the engine measures text
// with, and Arial (Windows) and Liberation Sans (most Linux desktops, which
// map Helvetica and Arial to it) share them.
const FontFamily = "Helvetica, Arial, sans-serif"

// renderJS compiles a Vega-Lite spec (JSON text) and starts an SVG render.
// It returns a promise of the SVG text. Loading external data is refused:
// charts carry their data inline; images only as data: URIs.
const renderJS = `
globalThis.__loupeRender = function (specText) {
  var spec = JSON.parse(specText);
  if (spec && typeof spec === 'object' && !Array.isArray(spec)) {
    spec.config = Object.assign({ font: '` + FontFamily + `' }, spec.config || {});
    // The labels are measured in Helvetica but may be drawn in a wider font
    // (DejaVu Sans): room between them and the axis title, so the y title
    // does not run into the ticks' labels.
    spec.config.axisY = Object.assign({ titlePadding: 10 }, spec.config.axisY || {});
  }
  var vgSpec = vegaLite.compile(spec).spec;
  var refused = null;
  var loader = vega.loader();
  loader.load = function (uri) {
    refused = refused || String(uri);
    return Promise.reject(new Error('external data is not allowed'));
  };
  // Belt and braces: the lower-level fetchers refuse too.
  loader.http = loader.file = function (uri) {
    refused = refused || String(uri);
    return Promise.reject(new Error('external data is not allowed'));
  };
  // Images embedded as data URIs (the Python sandbox's figures) are
  // allowed; anything that would be fetched is not.
  loader.sanitize = function (uri) {
    if (/^data:image\/(png|jpeg|svg\+xml);base64,/.test(String(uri))) return Promise.resolve({ href: String(uri) });
    refused = refused || String(uri);
    return Promise.reject(new Error('external data is not allowed'));
  };
  var view = new vega.View(vega.parse(vgSpec), { renderer: 'none', loader: loader, logLevel: vega.Warn });
  return view.toSVG().then(function (svg) {
    view.finalize();
    if (refused !== null) throw new Error('external data (' + refused + ') is not allowed: charts carry their data inline');
    return svg;
  });
};
`

// trimLog shortens a JS log line for an error message.
func trimLog(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
