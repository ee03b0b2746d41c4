package chart

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/loupeapp/loupe/data/results"
	targs "github.com/loupeapp/loupe/tools/args"
)

// use is one place the spec reads a field.
type use struct {
	field string
	path  string         // where in the spec: "encoding.x", "transform[0].groupby"
	def   map[string]any // the encoding's field definition; nil outside encodings
	sc    *scope
}

// scope is what a view may read besides the query's columns: the fields
// its own and its parents' transforms make. open is set when a transform
// makes fields whose names cannot be known (pivot), which turns the
// missing-field check off below it.
type scope struct {
	derived map[string]bool
	open    bool
}

func (s *scope) child() *scope {
	c := &scope{derived: make(map[string]bool, len(s.derived)), open: s.open}
	for k := range s.derived {
		c.derived[k] = true
	}
	return c
}

// walker collects the field uses of a spec and its nested views.
type walker struct {
	uses  []use
	exprs []use // fields read by expressions (datum.x)
}

func (w *walker) spec(node map[string]any, path string, sc *scope) {
	sc = sc.child()
	if ts, ok := node["transform"].([]any); ok {
		for i, t := range ts {
			if tm, ok := t.(map[string]any); ok {
				w.transform(tm, join(path, fmt.Sprintf("transform[%d]", i)), sc)
			}
		}
	}
	if enc, ok := node["encoding"].(map[string]any); ok {
		for _, ch := range sortedKeys(enc) {
			w.def(enc[ch], join(path, "encoding."+ch), sc)
		}
	}
	switch f := node["facet"].(type) {
	case map[string]any:
		if _, ok := f["field"]; ok {
			w.def(f, join(path, "facet"), sc)
		} else {
			for _, ch := range sortedKeys(f) {
				w.def(f[ch], join(path, "facet."+ch), sc)
			}
		}
	}
	switch r := node["repeat"].(type) {
	case []any:
		w.names(r, join(path, "repeat"), sc)
	case map[string]any:
		for _, k := range sortedKeys(r) {
			if l, ok := r[k].([]any); ok {
				w.names(l, join(path, "repeat."+k), sc)
			}
		}
	}
	if s, ok := node["spec"].(map[string]any); ok {
		w.spec(s, join(path, "spec"), sc)
	}
	for _, k := range []string{"layer", "concat", "hconcat", "vconcat"} {
		if l, ok := node[k].([]any); ok {
			for i, s := range l {
				if sm, ok := s.(map[string]any); ok {
					w.spec(sm, join(path, fmt.Sprintf("%s[%d]", k, i)), sc)
				}
			}
		}
	}
}

// def records the fields an encoding channel's definition reads.
func (w *walker) def(v any, path string, sc *scope) {
	switch d := v.(type) {
	case []any: // tooltip, detail, order
		for i, e := range d {
			w.def(e, fmt.Sprintf("%s[%d]", path, i), sc)
		}
	case map[string]any:
		if f, ok := d["field"].(string); ok {
			w.uses = append(w.uses, use{field: f, path: path, def: d, sc: sc})
		}
		switch c := d["condition"].(type) {
		case map[string]any:
			w.def(c, path+".condition", sc)
			w.expr(c["test"], path+".condition.test", sc)
		case []any:
			for i, e := range c {
				w.def(e, fmt.Sprintf("%s.condition[%d]", path, i), sc)
				if em, ok := e.(map[string]any); ok {
					w.expr(em["test"], fmt.Sprintf("%s.condition[%d].test", path, i), sc)
				}
			}
		}
		if s, ok := d["sort"].(map[string]any); ok {
			if f, ok := s["field"].(string); ok {
				w.uses = append(w.uses, use{field: f, path: path + ".sort", sc: sc})
			}
		}
	}
}

// names records a list of field names (repeat, groupby, fold).
func (w *walker) names(l []any, path string, sc *scope) {
	for i, v := range l {
		if f, ok := v.(string); ok {
			w.uses = append(w.uses, use{field: f, path: fmt.Sprintf("%s[%d]", path, i), sc: sc})
		}
	}
}

func (w *walker) name(v any, path string, sc *scope) {
	if f, ok := v.(string); ok {
		w.uses = append(w.uses, use{field: f, path: path, sc: sc})
	}
}

var (
	datumDot     = regexp.MustCompile(`\bdatum\.([A-Za-z_$][\w$]*)`)
	datumBracket = regexp.MustCompile(`\bdatum\[\s*(?:"([^"]*)"|'([^']*)')\s*\]`)
)

// expr records the fields an expression string reads.
func (w *walker) expr(v any, path string, sc *scope) {
	s, ok := v.(string)
	if !ok {
		return
	}
	for _, m := range datumDot.FindAllStringSubmatch(s, -1) {
		w.exprs = append(w.exprs, use{field: m[1], path: path, sc: sc})
	}
	for _, m := range datumBracket.FindAllStringSubmatch(s, -1) {
		w.exprs = append(w.exprs, use{field: m[1] + m[2], path: path, sc: sc})
	}
}

// predicate records the fields a filter predicate reads.
func (w *walker) predicate(v any, path string, sc *scope) {
	switch p := v.(type) {
	case string:
		w.expr(p, path, sc)
	case map[string]any:
		w.name(p["field"], path+".field", sc)
		for _, k := range []string{"and", "or"} {
			if l, ok := p[k].([]any); ok {
				for i, e := range l {
					w.predicate(e, fmt.Sprintf("%s.%s[%d]", path, k, i), sc)
				}
			}
		}
		if n, ok := p["not"]; ok {
			w.predicate(n, path+".not", sc)
		}
	}
}

// transform records what a transform reads, then adds what it makes to sc.
func (w *walker) transform(t map[string]any, path string, sc *scope) {
	out := func(v any) {
		switch a := v.(type) {
		case string:
			sc.derived[a] = true
		case []any:
			for _, e := range a {
				if s, ok := e.(string); ok {
					sc.derived[s] = true
				}
			}
		}
	}
	outOr := func(v any, def ...string) {
		if v != nil {
			out(v)
			return
		}
		for _, d := range def {
			sc.derived[d] = true
		}
	}
	groupby := func() {
		if g, ok := t["groupby"].([]any); ok {
			w.names(g, path+".groupby", sc)
		}
	}
	ops := func(key string) {
		l, _ := t[key].([]any)
		for i, e := range l {
			if m, ok := e.(map[string]any); ok {
				w.name(m["field"], fmt.Sprintf("%s.%s[%d].field", path, key, i), sc)
			}
		}
		groupby()
		for _, e := range l {
			if m, ok := e.(map[string]any); ok {
				out(m["as"])
			}
		}
	}
	switch {
	case t["calculate"] != nil:
		w.expr(t["calculate"], path+".calculate", sc)
		out(t["as"])
	case t["filter"] != nil:
		w.predicate(t["filter"], path+".filter", sc)
	case t["aggregate"] != nil:
		ops("aggregate")
	case t["joinaggregate"] != nil:
		ops("joinaggregate")
	case t["window"] != nil:
		if s, ok := t["sort"].([]any); ok {
			for i, e := range s {
				if m, ok := e.(map[string]any); ok {
					w.name(m["field"], fmt.Sprintf("%s.sort[%d].field", path, i), sc)
				}
			}
		}
		ops("window")
	case t["bin"] != nil:
		w.name(t["field"], path+".field", sc)
		out(t["as"])
	case t["timeUnit"] != nil:
		w.name(t["field"], path+".field", sc)
		out(t["as"])
	case t["fold"] != nil:
		if l, ok := t["fold"].([]any); ok {
			w.names(l, path+".fold", sc)
		}
		outOr(t["as"], "key", "value")
	case t["flatten"] != nil:
		l, _ := t["flatten"].([]any)
		w.names(l, path+".flatten", sc)
		outOr(t["as"])
	case t["density"] != nil:
		w.name(t["density"], path+".density", sc)
		groupby()
		outOr(t["as"], "value", "density")
	case t["quantile"] != nil:
		w.name(t["quantile"], path+".quantile", sc)
		groupby()
		outOr(t["as"], "prob", "value")
	case t["loess"] != nil || t["regression"] != nil:
		for _, k := range []string{"loess", "regression", "on"} {
			w.name(t[k], path+"."+k, sc)
		}
		groupby()
		outOr(t["as"])
	case t["stack"] != nil:
		w.name(t["stack"], path+".stack", sc)
		groupby()
		out(t["as"])
	case t["impute"] != nil:
		w.name(t["impute"], path+".impute", sc)
		w.name(t["key"], path+".key", sc)
		groupby()
	case t["extent"] != nil:
		w.name(t["extent"], path+".extent", sc)
	case t["lookup"] != nil:
		w.name(t["lookup"], path+".lookup", sc)
		from, _ := t["from"].(map[string]any)
		switch {
		case t["as"] != nil:
			out(t["as"])
		case from != nil && from["fields"] != nil:
			out(from["fields"])
		default:
			sc.open = true
		}
	case t["sample"] != nil:
	default: // pivot, and transforms this check does not know
		if t["pivot"] != nil {
			w.name(t["pivot"], path+".pivot", sc)
			w.name(t["value"], path+".value", sc)
			groupby()
		}
		sc.open = true
	}
}

// column is a result column and the category of its type.
type column struct {
	name string
	typ  string
	cat  category
	idx  int
}

type category int

const (
	catOther category = iota
	catNumber
	catTemporal
	catText
	catBool
)

func categorize(typ string) category {
	t := strings.ToUpper(typ)
	switch {
	case strings.HasPrefix(t, "DECIMAL") || strings.HasSuffix(t, "INT") || strings.HasPrefix(t, "UINT") ||
		t == "INTEGER" || t == "BIGINT" || t == "SMALLINT" || t == "TINYINT" || t == "HUGEINT" || t == "UHUGEINT" ||
		t == "DOUBLE" || t == "FLOAT" || t == "REAL" || t == "UBIGINT" || t == "UINTEGER" || t == "USMALLINT" || t == "UTINYINT":
		return catNumber
	case t == "DATE" || strings.HasPrefix(t, "TIMESTAMP") || strings.HasPrefix(t, "TIME"):
		return catTemporal
	case t == "VARCHAR" || strings.HasPrefix(t, "ENUM") || t == "UUID" || t == "JSON":
		return catText
	case t == "BOOLEAN":
		return catBool
	}
	return catOther
}

// check verifies every field the spec reads against the result's columns
// and that each encoding's type suits its column. It returns the problems
// (at most a few) and the columns used as time, whose values are written
// as ISO date-times.
func check(w *walker, cols []column, rows [][]any) (problems []string, temporal map[int]bool) {
	byName := make(map[string]column, len(cols))
	names := make([]string, len(cols))
	for i, c := range cols {
		byName[c.name] = c
		names[i] = c.name
	}
	temporal = map[int]bool{}
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] && len(problems) < maxIssues {
			seen[p] = true
			problems = append(problems, p)
		}
	}
	resolve := func(u use) (column, bool, bool) {
		if c, ok := byName[u.field]; ok {
			return c, true, true
		}
		if c, ok := byName[unescape(u.field)]; ok {
			return c, true, true
		}
		if u.sc.derived[u.field] || u.sc.derived[unescape(u.field)] || u.sc.open {
			return column{}, false, true
		}
		return column{}, false, false
	}
	for _, u := range append(append([]use(nil), w.uses...), w.exprs...) {
		c, isCol, ok := resolve(u)
		if !ok {
			add(unknownField(u, names))
			continue
		}
		if !isCol || u.def == nil {
			continue
		}
		if c.name != u.field || needsEscape(c.name) {
			u.def["field"] = escape(c.name) // Vega-Lite reads "a.b" as a path
		}
		if _, ok := u.def["type"]; !ok && !strings.HasSuffix(u.path, ".sort") {
			u.def["type"] = inferType(u.path, c)
		}
		if p := typeProblem(u, c, rows); p != "" {
			add(p)
		}
		if usedAsTime(u.def) && c.cat == catTemporal {
			temporal[c.idx] = true
		}
	}
	return problems, temporal
}

func unknownField(u use, names []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "field %q (%s) is not a column of the query result; columns are: %s", u.field, u.path, strings.Join(names, ", "))
	if d := derivedNames(u.sc); len(d) > 0 {
		fmt.Fprintf(&b, "; transforms make: %s", strings.Join(d, ", "))
	}
	if s := closest(u.field, names); s != "" {
		fmt.Fprintf(&b, ". Did you mean %q?", s)
	} else {
		b.WriteString(". Use a column name exactly, or add the column to the SQL")
	}
	return b.String()
}

func derivedNames(sc *scope) []string {
	var out []string
	for k := range sc.derived {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// countOps are aggregates that read no values, so any column will do.
var countOps = map[string]bool{"count": true, "distinct": true, "valid": true, "missing": true, "invalid": true}

// numericOps are aggregates that need numbers.
var numericOps = map[string]bool{
	"sum": true, "mean": true, "average": true, "median": true, "q1": true, "q3": true, "stdev": true,
	"stdevp": true, "variance": true, "variancep": true, "ci0": true, "ci1": true, "stderr": true, "product": true,
}

// typeProblem says why an encoding's type, aggregate or bin does not suit
// its column, or "".
func typeProblem(u use, c column, rows [][]any) string {
	typ, _ := u.def["type"].(string)
	agg, _ := u.def["aggregate"].(string)
	binned := u.def["bin"] != nil && u.def["bin"] != false
	kindName := map[category]string{catText: "text", catBool: "true/false", catTemporal: "a date/time", catOther: "not a plain value"}[c.cat]
	example := exampleValue(rows, c.idx)
	switch {
	case numericOps[agg] && c.cat != catNumber:
		return fmt.Sprintf(`%s aggregates field %q with %q, which needs numbers, but the column is %s (%s%s); use "count", or make it numeric in the SQL`, u.path, c.name, agg, c.typ, kindName, example)
	case binned && c.cat != catNumber && c.cat != catTemporal:
		return fmt.Sprintf(`%s bins field %q, but the column is %s (%s%s); bin a numeric column, or drop "bin" and use type "nominal"`, u.path, c.name, c.typ, kindName, example)
	case typ == "quantitative" && !countOps[agg] && c.cat != catNumber:
		hint := `use type "nominal" or "ordinal", aggregate it with "count", or cast it to a number in the SQL`
		if c.cat == catTemporal {
			hint = `use type "temporal"`
		}
		return fmt.Sprintf(`%s uses field %q as quantitative, but the column is %s (%s%s); %s`, u.path, c.name, c.typ, kindName, example, hint)
	case typ == "temporal" && !countOps[agg]:
		return temporalProblem(u, c, rows, example)
	}
	return ""
}

func temporalProblem(u use, c column, rows [][]any, example string) string {
	switch c.cat {
	case catTemporal:
		return ""
	case catText:
		for _, r := range rows {
			if s, ok := r[c.idx].(string); ok && !looksLikeDate(s) {
				return fmt.Sprintf(`%s uses field %q as temporal, but value %q is not a date; use ISO dates (2024-03-01) — cast in the SQL (strptime, ::DATE) — or use type "ordinal"`, u.path, c.name, s)
			}
		}
		return ""
	case catNumber:
		top := 0.0
		for _, r := range rows {
			if f, ok := results.Number(r[c.idx]); ok {
				top = max(top, f)
				top = max(top, -f)
			}
		}
		if top < 1e11 {
			return fmt.Sprintf(`%s uses field %q as temporal, but it holds numbers (%s), which Vega-Lite reads as milliseconds since 1970; make a date in the SQL (make_date(year, 1, 1), to_timestamp(seconds)) or use type "ordinal"`, u.path, c.name, strings.TrimPrefix(example, ", e.g. "))
		}
		return ""
	}
	return fmt.Sprintf(`%s uses field %q as temporal, but the column is %s; use a DATE or TIMESTAMP column`, u.path, c.name, c.typ)
}

// inferType gives an encoding without a type the one its column
// suggests; Vega-Lite would otherwise read every untyped field as nominal.
func inferType(path string, c column) string {
	for _, ch := range []string{".row", ".column", ".facet", ".detail"} {
		if strings.HasSuffix(path, ch) || strings.HasPrefix(path, "facet") {
			return "nominal"
		}
	}
	switch c.cat {
	case catNumber:
		return "quantitative"
	case catTemporal:
		return "temporal"
	}
	return "nominal"
}

func usedAsTime(def map[string]any) bool {
	t, _ := def["type"].(string)
	return t == "temporal" || def["timeUnit"] != nil
}

var isoDate = regexp.MustCompile(`^\d{4}(-\d{2}(-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?)?)?$`)

// looksLikeDate reports whether a browser's Date.parse reads s the same
// everywhere: ISO 8601 dates and date-times.
func looksLikeDate(s string) bool {
	return isoDate.MatchString(strings.TrimSpace(s))
}

func exampleValue(rows [][]any, idx int) string {
	for _, r := range rows {
		if r[idx] != nil {
			return ", e.g. " + jsonText(r[idx])
		}
	}
	return ""
}

// Vega-Lite reads "." and "[]" in a field name as a path into nested
// objects; a backslash makes them literal.
func needsEscape(name string) bool { return strings.ContainsAny(name, `.[]\`) }

func escape(name string) string {
	r := strings.NewReplacer(`\`, `\\`, `.`, `\.`, `[`, `\[`, `]`, `\]`)
	return r.Replace(name)
}

func unescape(f string) string {
	if !strings.Contains(f, `\`) {
		return f
	}
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] == '\\' && i+1 < len(f) {
			i++
		}
		b.WriteByte(f[i])
	}
	return b.String()
}

func join(path, part string) string {
	if path == "" {
		return part
	}
	return path + "." + part
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// closest is the name nearest to s by edit distance, if near enough to be
// a typo (or differs only in case), else "".
func closest(s string, names []string) string {
	best, bestD := "", 1<<30
	for _, n := range names {
		if strings.EqualFold(n, s) {
			return n
		}
		d := targs.Distance(strings.ToLower(s), strings.ToLower(n))
		if d < bestD {
			best, bestD = n, d
		}
	}
	if bestD <= max(1, len([]rune(s))/3) {
		return best
	}
	return ""
}
