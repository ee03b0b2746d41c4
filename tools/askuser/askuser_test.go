package askuser_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/askuser"
)

func run(t *testing.T, raw string) tools.Result {
	t.Helper()
	r, err := askuser.New().Run(context.Background(), json.RawMessage(raw))
	if err != nil {
		t.Fatalf("Go error %v", err)
	}
	return r
}

func TestAsk(t *testing.T) {
	tests := []struct {
		name, raw string
		question  string
		options   []string
	}{
		{"with options", `{"question": "Which status do you mean?", "options": ["shipped", "pending", "cancelled"]}`,
			"Which status do you mean?", []string{"shipped", "pending", "cancelled"}},
		{"no options", `{"question": "  Which year?  "}`, "Which year?", nil},
		{"string-wrapped", `"{\"question\": \"Which region?\", \"options\": \"[\\\"North\\\", \\\"South\\\"]\"}"`,
			"Which region?", []string{"North", "South"}},
		{"plain text", `"Revenue or order count?"`, "Revenue or order count?", nil},
		{"aliases", `{"text": "Which year?", "choices": [2023, 2024]}`, "Which year?", []string{"2023", "2024"}},
		{"blank and repeated options dropped", `{"question": "Q?", "options": ["a", " ", "A", "b", null]}`, "Q?", []string{"a", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.raw)
			if r.Failed || !r.EndTurn {
				t.Fatalf("failed=%v endTurn=%v: %s", r.Failed, r.EndTurn, r.ForModel)
			}
			d := r.Display
			if d.Kind != tools.KindQuestion || d.Question == nil || d.Question.Text != tc.question || !reflect.DeepEqual(d.Question.Options, tc.options) {
				t.Fatalf("display %+v %+v", d, d.Question)
			}
			if !strings.Contains(r.ForModel, `Asked the user: "`+tc.question+`"`) || !strings.Contains(r.ForModel, "Your turn ends here") {
				t.Fatalf("ForModel %q", r.ForModel)
			}
			for _, o := range tc.options {
				if !strings.Contains(r.ForModel, o) {
					t.Fatalf("ForModel %q lacks option %q", r.ForModel, o)
				}
			}
			if r.Summary != "asked: "+tc.question {
				t.Fatalf("summary %q", r.Summary)
			}
		})
	}
}

func TestAskInvalid(t *testing.T) {
	tests := []struct{ name, raw, want string }{
		{"missing question", `{"options": ["a"]}`, `missing required argument "question"`},
		{"empty question", `{"question": "   "}`, `required argument "question" is empty`},
		{"too many options", `{"question": "Q?", "options": ["1","2","3","4","5","6","7"]}`, "7 options given; offer at most 6"},
		{"long question", `{"question": "` + strings.Repeat("why ", 200) + `"}`, "ask one short question"},
		{"long option", `{"question": "Q?", "options": ["` + strings.Repeat("x", 200) + `"]}`, "too long"},
		{"unknown argument", `{"question": "Q?", "default": "a"}`, `unknown argument "default"`},
		{"options not strings", `{"question": "Q?", "options": [{"label": "a"}]}`, `"options" must be an array of strings`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.raw)
			if !r.Failed || r.EndTurn || !strings.Contains(r.ForModel, tc.want) || r.Display.Kind != tools.KindError {
				t.Fatalf("failed=%v endTurn=%v: %s (want %q)", r.Failed, r.EndTurn, r.ForModel, tc.want)
			}
		})
	}
}

func TestSpec(t *testing.T) {
	s := askuser.New().Spec()
	var schema struct {
		Required   []string                  `json:"required"`
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(s.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if s.Name != "ask_user" || !reflect.DeepEqual(schema.Required, []string{"question"}) || schema.Properties["options"]["type"] != "array" || len(s.Description) > 300 {
		t.Fatalf("%+v %s", s, s.Parameters)
	}
}
