package chart

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// A chart is drawn from the query's rows and nothing else. Whatever the
// model writes into a spec is untrusted (a prompt injection in a cell can
// steer it), and a Vega-Lite spec has many ways to make the page that
// draws it fetch something: data and lookup URLs, image marks and their
// url channel, links (href), CSS url(…) in strings the renderer puts into
// the page, vega-embed options carried in usermeta, and tooltips whose
// "image" key vega-tooltip turns into an <img>. contain refuses all of
// them by walking the whole spec, not a list of known paths: any key
// named url, href, loader, embedOptions, datasets or image, and any string
// that holds an address, at any depth.
//
// The walk sees only what is written in the spec. An expression can still
// build an address out of pieces ('ht' + 'tp:…') at draw time; the
// renderer's loader (agent/report/vega) and the page's loader and
// Content-Security-Policy are the layers that stop those.

// refusedKeys are object keys refused wherever they appear, with what to
// do instead.
var refusedKeys = map[string]string{
	"url":          "remove it: nothing is fetched from an address; the chart's data comes only from its sql (JOIN there what a lookup would fetch)",
	"href":         "remove it: charts cannot carry links",
	"loader":       "remove it: how charts load is the app's, not the spec's",
	"embedOptions": "remove it: the app's embed options cannot be changed by a spec",
	"datasets":     `remove "datasets": the chart's data comes only from the sql`,
	"image":        `remove it and rename any field, column or title called "image": an "image" value in a tooltip is loaded as a picture`,
}

// imageNamers are keys whose value names a mark, a field or a title: the
// value "image" there draws an image mark or gives a tooltip an "image"
// entry, which vega-tooltip loads as a picture.
var imageNamers = map[string]bool{"mark": true, "type": true, "field": true, "title": true, "as": true}

var (
	// schemeURL is an absolute address: http://, https://, ftp://, ws://,
	// file://… anywhere in a string (also inside an expression).
	schemeURL = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.\-]*://`)
	// relativeURL is a protocol-relative address at the start of a string.
	relativeURL = regexp.MustCompile(`^\s*//[^/\s]`)
	// schemeOnly are schemes without // that a browser still acts on.
	schemeOnly = regexp.MustCompile(`(?i)^\s*(javascript|vbscript|file|blob|filesystem):`)
	// dataURI is a data: URI (data:[type][;params],…); "data: 2024" is not.
	dataURI = regexp.MustCompile(`(?i)^\s*data:[\w.+\-]*(/[\w.+\-]*)?(;[^,\s]*)?,`)
	// cssURL is CSS url(…) or image-set(…), e.g. in a cursor or a style.
	cssURL = regexp.MustCompile(`(?i)\b(url|image-set|src)\s*\(`)
	// imageKey is an object literal with an "image" key in an expression,
	// e.g. a tooltip signal {image: datum.u}.
	imageKey = regexp.MustCompile(`\{([^}]*[\s,'"])?image['"]?\s*:`)
)

// contain returns every part of spec that could make the renderer fetch
// from outside, each as "what at path: what to do", sorted by path. The
// top-level "$schema" is not looked at (prepare sets it) and neither are
// keys under "usermeta" once prepare has dropped it.
func contain(spec map[string]any) []string {
	var out []string
	for k, v := range spec {
		if k == "$schema" {
			continue
		}
		walkContain(k, v, k, &out)
	}
	sort.Strings(out)
	return out
}

func walkContain(key string, v any, path string, out *[]string) {
	if fix, ok := refusedKeys[key]; ok {
		*out = append(*out, fmt.Sprintf("%q at %s: %s", key, path, fix))
		return
	}
	if (key == "config" || key == "projection") && !isObject(v) {
		if _, isStr := v.(string); isStr {
			*out = append(*out, fmt.Sprintf("%q at %s is a string: give it as an object, never an address", key, path))
			return
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			walkContain(k, x[k], join(path, k), out)
		}
	case []any:
		for i, e := range x {
			// An array element keeps the key it is under: "as": ["image", …].
			walkContain(key, e, fmt.Sprintf("%s[%d]", path, i), out)
		}
	case string:
		if what, fix := stringProblem(key, x); what != "" {
			*out = append(*out, fmt.Sprintf("%s at %s: %s", what, path, fix))
		}
	}
}

// stringProblem says what in s, the value of key, is refused and what to
// do instead, or "".
func stringProblem(key, s string) (what, fix string) {
	const remove = "remove it; a chart draws only the query's rows and its own marks"
	switch {
	case imageNamers[key] && strings.TrimSpace(s) == "image":
		return `"image"`, `image marks, and tooltip entries named "image", load pictures from addresses: use another mark (point, text) or another name`
	case schemeURL.MatchString(s), relativeURL.MatchString(s), schemeOnly.MatchString(s):
		return fmt.Sprintf("an address (%s)", clip(s)), remove
	case dataURI.MatchString(s):
		return fmt.Sprintf("a data: URI (%s)", clip(s)), remove
	case cssURL.MatchString(s):
		return fmt.Sprintf("a CSS url(…) (%s)", clip(s)), remove
	case imageKey.MatchString(s):
		return fmt.Sprintf(`an object with an "image" key (%s)`, clip(s)), `a tooltip loads an "image" entry as a picture: use another key`
	}
	return "", ""
}

// tooltipImage returns a problem when the chart has a tooltip and its data
// can hold a field named "image": a query column, or one a pivot makes
// out of the rows' values. vega-tooltip loads such a field as a picture.
func tooltipImage(spec map[string]any, cols []column) string {
	if !hasKey(spec, "tooltip") {
		return ""
	}
	for _, c := range cols {
		if c.name == "image" {
			return fmt.Sprintf(`the query returns a column named %q and the chart has a tooltip, which would load its values as pictures; alias the column (AS picture_url or similar) or remove the tooltip`, c.name)
		}
	}
	if hasKey(spec, "pivot") {
		return `the chart pivots on the rows' values and has a tooltip: a value "image" would become a field the tooltip loads as a picture; pivot in the SQL (PIVOT or GROUP BY) instead, or remove the tooltip`
	}
	return ""
}

func hasKey(v any, key string) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == key || hasKey(e, key) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasKey(e, key) {
				return true
			}
		}
	}
	return false
}

func isObject(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// clip shortens a refused string for the message.
func clip(s string) string {
	const max = 80
	r := []rune(s)
	if len(r) > max {
		return fmt.Sprintf("%q…", string(r[:max]))
	}
	return fmt.Sprintf("%q", s)
}
