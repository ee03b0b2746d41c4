package chart

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var english = message.NewPrinter(language.English)

// SchemaVersion is the Vega-Lite release whose JSON schema is vendored in
// schema/ (npm vega-lite@6.5.0, build/vega-lite-schema.json).
const SchemaVersion = "6.5.0"

// SchemaURL is the $schema given to specs that lack a Vega-Lite v6 one.
const SchemaURL = "https://vega.github.io/schema/vega-lite/v6.json"

//go:embed schema/vega-lite-schema.json
var schemaJSON []byte

// compiled is the Vega-Lite schema, compiled on first use (it takes a few
// hundred milliseconds and tens of MB) and shared by every chart tool.
var compiled = sync.OnceValues(compileSchema)

func compileSchema() (*jsonschema.Schema, error) {
	start := time.Now()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("read the vendored Vega-Lite schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	const loc = "vega-lite-schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("load the Vega-Lite schema: %w", err)
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("compile the Vega-Lite schema: %w", err)
	}
	slog.Default().Debug("compiled Vega-Lite schema", "subsystem", "chart", "version", SchemaVersion, "elapsed", time.Since(start))
	return s, nil
}

// Warm compiles the schema now instead of at the first chart.
func Warm() error {
	_, err := compiled()
	return err
}

// checkSchema validates spec (without its data) against the Vega-Lite
// schema. It returns nil, or a few lines saying what is wrong, or an error
// when the schema itself cannot be used.
func checkSchema(spec map[string]any) ([]string, error) {
	s, err := compiled()
	if err != nil {
		return nil, err
	}
	// The schema requires data at the top; ours is injected afterwards.
	probe := make(map[string]any, len(spec)+1)
	for k, v := range spec {
		probe[k] = v
	}
	probe["data"] = map[string]any{"values": []any{}}
	err = s.Validate(probe)
	if err == nil {
		return nil, nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []string{err.Error()}, nil
	}
	return summarize(ve, spec), nil
}

// maxIssues bounds how many lines a schema failure is reported in.
const maxIssues = 3

// summarize turns the schema library's tree of failures (one branch per
// alternative the schema allows, often hundreds of lines) into the few
// lines that point at the mistake: the failures at the deepest place in
// the spec, within the kind of spec the model meant to write, most useful
// kind first.
func summarize(ve *jsonschema.ValidationError, spec map[string]any) []string {
	roots := intended(ve, topLevelDef(spec))
	var leaves []*jsonschema.ValidationError
	for _, r := range roots {
		collectLeaves(r, &leaves)
	}
	if len(leaves) == 0 {
		return []string{"the spec does not match the Vega-Lite " + SchemaVersion + " schema"}
	}
	deepest := 0
	for _, l := range leaves {
		deepest = max(deepest, len(l.InstanceLocation))
	}
	byPlace := map[string][]*jsonschema.ValidationError{}
	var places []string
	for _, l := range leaves {
		if len(l.InstanceLocation) != deepest {
			continue
		}
		p := strings.Join(l.InstanceLocation, "\x00")
		if _, seen := byPlace[p]; !seen {
			places = append(places, p)
		}
		byPlace[p] = append(byPlace[p], l)
	}
	var out []string
	for _, p := range places {
		if len(out) == maxIssues {
			break
		}
		errs := byPlace[p]
		out = append(out, "at "+where(errs[0].InstanceLocation)+": "+describe(errs))
	}
	return out
}

// topLevelDef names the schema definition the spec's keys say it is.
func topLevelDef(spec map[string]any) string {
	for _, k := range []struct{ key, def string }{
		{"layer", "TopLevelLayerSpec"}, {"facet", "TopLevelFacetSpec"}, {"repeat", "TopLevelRepeatSpec"},
		{"concat", "TopLevelConcatSpec"}, {"hconcat", "TopLevelHConcatSpec"}, {"vconcat", "TopLevelVConcatSpec"},
	} {
		if _, ok := spec[k.key]; ok {
			return k.def
		}
	}
	return "TopLevelUnitSpec"
}

// intended walks down from the root failure to the alternatives of the
// top-level anyOf and keeps the branch for def, if there is one.
func intended(ve *jsonschema.ValidationError, def string) []*jsonschema.ValidationError {
	n := ve
	for len(n.Causes) == 1 {
		n = n.Causes[0]
	}
	if _, ok := n.ErrorKind.(*kind.AnyOf); !ok || len(n.InstanceLocation) != 0 {
		return []*jsonschema.ValidationError{n}
	}
	var keep []*jsonschema.ValidationError
	for _, c := range n.Causes {
		if defIn(c, def) {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		return n.Causes
	}
	return keep
}

func defIn(e *jsonschema.ValidationError, def string) bool {
	u := e.SchemaURL
	if r, ok := e.ErrorKind.(*kind.Reference); ok {
		u = r.URL
	}
	i := strings.Index(u, "/definitions/"+def)
	if i < 0 {
		return false
	}
	rest := u[i+len("/definitions/"+def):]
	return rest == "" || rest[0] == '/'
}

func collectLeaves(e *jsonschema.ValidationError, out *[]*jsonschema.ValidationError) {
	if len(e.Causes) == 0 {
		*out = append(*out, e)
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out)
	}
}

// where prints an instance location the way the model wrote it.
func where(loc []string) string {
	if len(loc) == 0 {
		return "the top level of the spec"
	}
	var b strings.Builder
	for i, t := range loc {
		if isIndex(t) {
			b.WriteString("[" + t + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(t)
	}
	return b.String()
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// describe says what is wrong at one place, from the failures of the
// schema's alternatives there: allowed values first (merged), then the
// closest object shape, then types.
func describe(errs []*jsonschema.ValidationError) string {
	var allowed, consts []any
	var got any
	var extra, missing []string
	var types []string
	var other []string
	for _, e := range errs {
		switch k := e.ErrorKind.(type) {
		case *kind.Enum:
			got = k.Got
			allowed = append(allowed, k.Want...)
		case *kind.Const:
			got = k.Got
			consts = append(consts, k.Want)
		case *kind.AdditionalProperties:
			if extra == nil || len(k.Properties) < len(extra) {
				extra = k.Properties
			}
		case *kind.Required:
			if missing == nil || len(k.Missing) < len(missing) {
				missing = k.Missing
			}
		case *kind.Type:
			types = append(types, k.Want...)
			if got == nil {
				got = k.Got
			}
		default:
			other = append(other, e.ErrorKind.LocalizedString(english))
		}
	}
	allowed = append(allowed, consts...)
	switch {
	case len(allowed) > 0:
		return notAllowed(got, allowed)
	case len(extra) > 0:
		return "unknown propert" + plural(len(extra), "y", "ies") + " " + quoteAll(extra) + " (remove or rename)"
	case len(missing) > 0:
		return "missing propert" + plural(len(missing), "y", "ies") + " " + quoteAll(missing)
	case len(types) > 0:
		return fmt.Sprintf("got %v, want %s", got, strings.Join(uniq(types), " or "))
	}
	if u := uniq(other); len(u) > 0 {
		return strings.Join(u[:min(2, len(u))], "; ")
	}
	return "does not match the schema"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// jsonText prints v as JSON ("bar", 3, {"a":1}).
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// notAllowed says got is not one of the allowed values, suggesting the
// nearest when got looks like a typo of one.
func notAllowed(got any, allowed []any) string {
	var names, texts []string
	seen := map[string]bool{}
	for _, a := range allowed {
		t := jsonText(a)
		if seen[t] {
			continue
		}
		seen[t] = true
		texts = append(texts, t)
		if s, ok := a.(string); ok {
			names = append(names, s)
		}
	}
	msg := fmt.Sprintf("%s is not allowed; use one of %s", jsonText(got), strings.Join(texts, ", "))
	if g, ok := got.(string); ok {
		if c := closest(g, names); c != "" {
			msg += fmt.Sprintf(". Did you mean %q?", c)
		}
	}
	return msg
}
