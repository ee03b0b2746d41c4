package args_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/args"
)

var params = args.Params{Tool: "t", List: []args.Param{
	{Name: "sql", Type: args.String, Required: true, Doc: "one SELECT", Aliases: []string{"query"}},
	{Name: "n", Type: args.Integer, Doc: "rows"},
	{Name: "ratio", Type: args.Number, Doc: "a ratio"},
	{Name: "all", Type: args.Boolean, Doc: "everything"},
	{Name: "options", Type: args.Strings, Doc: "choices"},
}}

type got struct {
	SQL     string   `json:"sql"`
	N       int      `json:"n"`
	Ratio   float64  `json:"ratio"`
	All     bool     `json:"all"`
	Options []string `json:"options"`
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want got
	}{
		{"object", `{"sql": "SELECT 1", "n": 5}`, got{SQL: "SELECT 1", N: 5}},
		{"string-wrapped object", `"{\"sql\": \"SELECT 1\", \"n\": 5}"`, got{SQL: "SELECT 1", N: 5}},
		{"twice-wrapped object", `"\"{\\\"sql\\\": \\\"SELECT 2\\\"}\""`, got{SQL: "SELECT 2"}},
		{"alias", `{"query": "SELECT 3"}`, got{SQL: "SELECT 3"}},
		{"name in other case", `{"SQL": "SELECT 4"}`, got{SQL: "SELECT 4"}},
		{"numbers as strings", `{"sql": "x", "n": "7", "ratio": "0.5"}`, got{SQL: "x", N: 7, Ratio: 0.5}},
		{"whole float as integer", `{"sql": "x", "n": 3.0}`, got{SQL: "x", N: 3}},
		{"boolean as string", `{"sql": "x", "all": "True"}`, got{SQL: "x", All: true}},
		{"null optional", `{"sql": "x", "n": null}`, got{SQL: "x"}},
		{"list", `{"sql": "x", "options": ["a", "b"]}`, got{SQL: "x", Options: []string{"a", "b"}}},
		{"list as JSON string", `{"sql": "x", "options": "[\"a\", \"b\"]"}`, got{SQL: "x", Options: []string{"a", "b"}}},
		{"list as one string", `{"sql": "x", "options": "only"}`, got{SQL: "x", Options: []string{"only"}}},
		{"list of numbers", `{"sql": "x", "options": [2023, 2024]}`, got{SQL: "x", Options: []string{"2023", "2024"}}},
		{"number for a string", `{"sql": 42}`, got{SQL: "42"}},
		{"plain text for the one required string", `"SELECT 5"`, got{SQL: "SELECT 5"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var g got
			if err := params.Decode(json.RawMessage(tc.raw), &g); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, tc.want) {
				t.Fatalf("got %+v, want %+v", g, tc.want)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, raw, problem string
	}{
		{"missing required", `{"n": 1}`, `missing required argument "sql"`},
		{"empty object", `{}`, `missing required argument "sql"`},
		{"no arguments at all", ``, `missing required argument "sql"`},
		{"empty required", `{"sql": "  "}`, `required argument "sql" is empty`},
		{"unknown", `{"sql": "x", "limit": 3, "foo": 1}`, `unknown argument "foo", "limit"`},
		{"array", `["SELECT 1"]`, `must be a JSON object, not an array`},
		{"bad JSON", `{"sql": `, `not valid JSON`},
		{"string holding a number", `"12"`, `must be a JSON object, not a number`},
		{"not a number", `{"sql": "x", "n": "five"}`, `"n" must be an integer`},
		{"fraction for integer", `{"sql": "x", "n": 2.5}`, `not a whole number`},
		{"object for string", `{"sql": {"text": "x"}}`, `"sql" must be a string: got an object`},
		{"twice", `{"sql": "x", "query": "y"}`, `given twice`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var g got
			err := params.Decode(json.RawMessage(tc.raw), &g)
			var ae *args.Error
			if !errors.As(err, &ae) {
				t.Fatalf("err %v (%T), want *args.Error", err, err)
			}
			if !strings.Contains(ae.Problem, tc.problem) {
				t.Fatalf("problem %q, want it to contain %q", ae.Problem, tc.problem)
			}
			if !strings.Contains(err.Error(), "sql (string, required): one SELECT") {
				t.Fatalf("message %q does not name the expected arguments", err)
			}
		})
	}
}

// Plain text stands for an argument only when one string is required.
func TestPlainTextNeedsOneRequiredString(t *testing.T) {
	p := args.Params{Tool: "two", List: []args.Param{
		{Name: "a", Type: args.String, Required: true}, {Name: "b", Type: args.String, Required: true}}}
	var v struct{ A, B string }
	err := p.Decode(json.RawMessage(`"hello"`), &v)
	if err == nil || !strings.Contains(err.Error(), "not plain text") {
		t.Fatalf("err %v", err)
	}
}

func TestIgnoreUnknown(t *testing.T) {
	p := args.Params{Tool: "list", IgnoreUnknown: true}
	var v struct{}
	if err := p.Decode(json.RawMessage(`{"anything": 1}`), &v); err != nil {
		t.Fatal(err)
	}
	if p.Usage() != "none ({})" {
		t.Fatalf("usage %q", p.Usage())
	}
}

func TestFailure(t *testing.T) {
	var g got
	err := params.Decode(json.RawMessage(`{}`), &g)
	r := params.Failure(err)
	if !r.Failed || r.Display.Kind != tools.KindError || r.EndTurn {
		t.Fatalf("result %+v", r)
	}
	for _, want := range []string{"Invalid arguments for t", `missing required argument "sql"`, "sql (string, required)", "n (integer)"} {
		if !strings.Contains(r.ForModel, want) {
			t.Fatalf("ForModel %q lacks %q", r.ForModel, want)
		}
	}
	if r.Summary != `invalid arguments: missing required argument "sql"` {
		t.Fatalf("summary %q", r.Summary)
	}
}

func TestSchema(t *testing.T) {
	var s struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(params.Schema(), &s); err != nil {
		t.Fatal(err)
	}
	if s.Type != "object" || !reflect.DeepEqual(s.Required, []string{"sql"}) || len(s.Properties) != 5 {
		t.Fatalf("schema %+v", s)
	}
	if s.Properties["options"]["type"] != "array" || s.Properties["n"]["type"] != "integer" || s.Properties["sql"]["description"] != "one SELECT" {
		t.Fatalf("properties %+v", s.Properties)
	}
}
