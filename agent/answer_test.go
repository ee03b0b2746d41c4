package agent

import (
	"reflect"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/tools"
)

func TestParseAnswer(t *testing.T) {
	known := map[string]bool{"q1": true, "q2": true, "c1": true}
	cases := []struct {
		name     string
		text     string
		summary  string
		findings []Finding
	}{
		{"plain summary", "Sales grew 12% in 2023.", "Sales grew 12% in 2023.", nil},
		{
			"summary and findings",
			"North leads with 4.2M in sales.\n\nFindings:\n- North sold 4.2M [q1]\n- South fell 8% [q2, c1]\n",
			"North leads with 4.2M in sales.",
			[]Finding{{Text: "North sold 4.2M [q1]", Evidence: []string{"q1"}}, {Text: "South fell 8% [q2, c1]", Evidence: []string{"q2", "c1"}}},
		},
		{
			"markdown heading, numbered, unknown ref dropped",
			"Summary text.\n\n## Key findings\n1. Revenue peaked in May [q1][q9]\n2) Returns are rare\n   (under 2%) [q2]",
			"Summary text.",
			[]Finding{{Text: "Revenue peaked in May [q1][q9]", Evidence: []string{"q1"}}, {Text: "Returns are rare (under 2%) [q2]", Evidence: []string{"q2"}}},
		},
		{
			"bold heading",
			"Two sentences. Here.\n**Findings:**\n* One [q1; q1]",
			"Two sentences. Here.",
			[]Finding{{Text: "One [q1; q1]", Evidence: []string{"q1"}}},
		},
		{"the word findings in a sentence is not a heading", "My findings are below: none.", "My findings are below: none.", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, f := parseAnswer(c.text, known)
			if s != c.summary {
				t.Errorf("summary = %q, want %q", s, c.summary)
			}
			if !reflect.DeepEqual(f, c.findings) {
				t.Errorf("findings = %#v\nwant %#v", f, c.findings)
			}
		})
	}
}

func TestSystemPrompt(t *testing.T) {
	s := Schema{
		Tables: []Table{{Name: "orders", Source: "orders.csv", Rows: 1234567, Columns: []Column{
			{Name: "region", Type: "VARCHAR", Samples: []string{"north", "south"}},
			{Name: "amount", Type: "DOUBLE"},
		}}},
		JoinPaths: []JoinPath{{From: "orders", FromColumn: "customer_id", To: "customers", ToColumn: "id", Declared: true}},
	}
	o := promptOptions{maxSteps: 7, tools: newCatalog([]tools.Spec{{Name: "run_sql",
		Guidance: tools.Guidance{Stage: tools.StageQuery, Text: "Run focused queries with run_sql, read the results, refine."}}})}
	p := systemPrompt(s, o) + questionTurn(s, o, nil, "How many?")
	for _, want := range []string{
		"Table orders — 1,234,567 rows, from orders.csv",
		"region VARCHAR (e.g. north, south)",
		"orders.customer_id = customers.id (declared key)",
		"At most 7 steps",
		"run_sql",
		"Findings:",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	for _, absent := range []string{"ask_user", "create_chart"} {
		if strings.Contains(p, absent) {
			t.Errorf("prompt mentions %s, which is not offered", absent)
		}
	}
	none := questionTurn(Schema{}, promptOptions{maxSteps: 15}, nil, "How many?")
	if !strings.Contains(none, "no tables yet") || !strings.Contains(none, "No join paths are known") {
		t.Errorf("empty-workspace prompt does not say so:\n%s", none)
	}
}
