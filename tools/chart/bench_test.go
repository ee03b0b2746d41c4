package chart

import "testing"

// BenchmarkSchemaCompile measures reading and compiling the vendored
// Vega-Lite schema, which the first chart of a process pays once.
func BenchmarkSchemaCompile(b *testing.B) {
	for b.Loop() {
		if _, err := compileSchema(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSchemaValidate measures validating one typical spec against the
// compiled schema.
func BenchmarkSchemaValidate(b *testing.B) {
	if err := Warm(); err != nil {
		b.Fatal(err)
	}
	spec := map[string]any{
		"mark": "bar",
		"encoding": map[string]any{
			"x":     map[string]any{"field": "region", "type": "nominal", "sort": "-y"},
			"y":     map[string]any{"field": "total", "type": "quantitative"},
			"color": map[string]any{"field": "region", "type": "nominal"},
		},
	}
	for b.Loop() {
		if issues, err := checkSchema(spec); err != nil || len(issues) > 0 {
			b.Fatal(err, issues)
		}
	}
}

// BenchmarkSchemaInvalid measures validating a spec with a typo, where
// the library explores every alternative and the summary is built.
func BenchmarkSchemaInvalid(b *testing.B) {
	if err := Warm(); err != nil {
		b.Fatal(err)
	}
	spec := map[string]any{"mark": "barz", "encoding": map[string]any{"x": map[string]any{"field": "region", "type": "nominal"}}}
	for b.Loop() {
		if issues, err := checkSchema(spec); err != nil || len(issues) == 0 {
			b.Fatal(err, issues)
		}
	}
}
