package chart

import (
	"fmt"
	"regexp"
	"strings"
)

// officialSchema matches the Vega-Lite schema addresses a model may give;
// any other $schema is replaced (vega-embed reads it to tell Vega from
// Vega-Lite, and nothing else may steer that).
var officialSchema = regexp.MustCompile(`^https://vega\.github\.io/schema/vega-lite/v[0-9][0-9.]*(\.json)?$`)

// markAliases are chart names models use that are not Vega-Lite marks.
var markAliases = map[string]string{"pie": "arc", "donut": "arc", "doughnut": "arc", "scatter": "point", "column": "bar", "scatterplot": "point"}

// prepare makes the model's spec ready for the schema: it refuses anything
// the spec would fetch itself (see contain), drops "usermeta" and the
// top-level data (the query's rows replace it), sets the official
// $schema, and reads common mark aliases. It returns notes for the
// model about what it changed, or a problem.
func prepare(spec map[string]any) (notes []string, problem string) {
	if _, ok := spec["marks"]; ok {
		return nil, `this looks like a Vega spec ("marks"); give a Vega-Lite spec: {"mark": "bar", "encoding": {...}}`
	}
	if _, ok := spec["usermeta"]; ok {
		delete(spec, "usermeta")
		notes = append(notes, `"usermeta" was removed: the app ignores it, and how a chart is shown is not the spec's to change`)
	}
	if s, ok := spec["$schema"]; ok && !officialSchema.MatchString(fmt.Sprint(s)) {
		notes = append(notes, fmt.Sprintf("$schema %q was replaced by %s", fmt.Sprint(s), SchemaURL))
	}
	spec["$schema"] = SchemaURL
	if refused := contain(spec); len(refused) > 0 {
		return nil, "The spec names something the chart would fetch from outside Loupe, which is not allowed: a chart draws only the query's rows.\n- " +
			strings.Join(refused, "\n- ") + "\nRemove these, use the query's rows for the data, and call create_chart again."
	}
	if p := fetches(spec, ""); p != "" {
		return nil, fmt.Sprintf(`remove the data at %s: a chart's data comes only from the sql (inline "values" are allowed in layers)`, p)
	}
	if _, ok := spec["data"]; ok {
		delete(spec, "data")
		notes = append(notes, "the spec's own data was replaced by the query's rows")
	}
	notes = append(notes, aliasMarks(spec)...)
	return notes, ""
}

// fetches returns where a nested view's data names a URL or a named
// dataset, or "". The top level's data is replaced, so it is not checked.
func fetches(node map[string]any, path string) string {
	if path != "" {
		if d, ok := node["data"].(map[string]any); ok {
			if _, ok := d["values"]; !ok {
				if _, isSeq := d["sequence"]; !isSeq {
					return join(path, "data")
				}
			}
		}
	}
	for _, child := range children(node, path) {
		if p := fetches(child.node, child.path); p != "" {
			return p
		}
	}
	return ""
}

type view struct {
	node map[string]any
	path string
}

// children are the views nested directly in node.
func children(node map[string]any, path string) []view {
	var out []view
	if s, ok := node["spec"].(map[string]any); ok {
		out = append(out, view{s, join(path, "spec")})
	}
	for _, k := range []string{"layer", "concat", "hconcat", "vconcat"} {
		if l, ok := node[k].([]any); ok {
			for i, s := range l {
				if sm, ok := s.(map[string]any); ok {
					out = append(out, view{sm, join(path, fmt.Sprintf("%s[%d]", k, i))})
				}
			}
		}
	}
	return out
}

func aliasMarks(node map[string]any) []string {
	var notes []string
	switch m := node["mark"].(type) {
	case string:
		if a, ok := markAliases[strings.ToLower(m)]; ok {
			node["mark"] = a
			if a == "arc" && strings.ToLower(m) != "pie" {
				node["mark"] = map[string]any{"type": "arc", "innerRadius": 60}
			}
			notes = append(notes, fmt.Sprintf("mark %q read as %q", m, a))
		}
	case map[string]any:
		if t, ok := m["type"].(string); ok {
			if a, ok := markAliases[strings.ToLower(t)]; ok {
				m["type"] = a
				notes = append(notes, fmt.Sprintf("mark %q read as %q", t, a))
			}
		}
	}
	for _, c := range children(node, "") {
		notes = append(notes, aliasMarks(c.node)...)
	}
	return notes
}

// markOf names the chart's mark: the unit's, the first layer's, or the
// kind of composition.
func markOf(node map[string]any) string {
	switch m := node["mark"].(type) {
	case string:
		return m
	case map[string]any:
		if t, ok := m["type"].(string); ok {
			return t
		}
	}
	if l, ok := node["layer"].([]any); ok && len(l) > 0 {
		if sm, ok := l[0].(map[string]any); ok {
			return markOf(sm)
		}
	}
	if s, ok := node["spec"].(map[string]any); ok {
		return markOf(s)
	}
	for _, k := range []string{"concat", "hconcat", "vconcat"} {
		if _, ok := node[k]; ok {
			return k
		}
	}
	return ""
}

// Default sizes for a single view or a layer.
const (
	defaultWidth  = 560
	defaultHeight = 320
	arcSize       = 320
)

// applyDefaults sets a size and autosize for single views and layers that
// lack them, and the title.
func applyDefaults(spec map[string]any, title string) {
	if _, ok := spec["title"]; !ok && title != "" {
		spec["title"] = title
	}
	if topLevelDef(spec) != "TopLevelUnitSpec" && topLevelDef(spec) != "TopLevelLayerSpec" {
		return
	}
	w, h := defaultWidth, defaultHeight
	if markOf(spec) == "arc" {
		w, h = arcSize, arcSize
	}
	if _, ok := spec["width"]; !ok {
		spec["width"] = w
	}
	if _, ok := spec["height"]; !ok {
		spec["height"] = h
	}
	if _, ok := spec["autosize"]; !ok && !faceted(spec) {
		spec["autosize"] = map[string]any{"type": "fit", "contains": "padding"}
	}
}

// faceted reports a row, column or facet channel, where "fit" autosize
// does not apply.
func faceted(spec map[string]any) bool {
	enc, _ := spec["encoding"].(map[string]any)
	for _, k := range []string{"row", "column", "facet"} {
		if _, ok := enc[k]; ok {
			return true
		}
	}
	return false
}
