package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app/session"
)

const (
	productSQL = "SELECT product, sum(quantity) AS units FROM orders GROUP BY product ORDER BY units DESC"
	statusSQL  = "SELECT status, count(*) AS orders FROM orders GROUP BY status ORDER BY orders DESC"
	barSpec    = `{"mark":"bar","encoding":{"x":{"field":"%s","type":"nominal"},"y":{"field":"%s","type":"quantitative"}}}`
)

func chartCall(t *testing.T, title, sql, x, y string) fake.Call {
	return call(t, "create_chart", map[string]any{"title": title, "sql": sql,
		"spec": json.RawMessage(strings.ReplaceAll(strings.Replace(barSpec, "%s", x, 1), "%s", y))})
}

// A three-question conversation through the fake model, with the real
// tools on real DuckDB: refs run on across the questions (q1…q3, c1…c2),
// and the report written on the last answer covers all three — every
// chart and query, each finding with the evidence of the question that
// produced it, citations resolved, what it removed listed.
func TestAConversationsReportCoversEveryQuestion(t *testing.T) {
	w := newWorld(t,
		fake.Calls(call(t, "run_sql", map[string]any{"sql": regionSQL, "purpose": "orders by region"})),
		fake.Calls(chartCall(t, "Orders by region", regionSQL, "region", "orders")),
		fake.Text("West has the most orders.\n\nFindings:\n- West leads [q1, c1]"),
		fake.Calls(call(t, "run_sql", map[string]any{"sql": productSQL, "purpose": "units by product"})),
		fake.Text("Widgets sell most.\n\nFindings:\n- Widgets lead on units [q2]"),
		fake.Calls(call(t, "run_sql", map[string]any{"sql": statusSQL, "purpose": "orders by status"})),
		fake.Calls(chartCall(t, "Orders by status", statusSQL, "status", "orders")),
		fake.Text("Most orders shipped.\n\nFindings:\n- Shipped leads [q3, c2]"),
		// The report: it cites refs of all three questions, one that does
		// not exist, and a placeholder for a chart no question drew.
		fake.Text("# Orders at a glance\n\n## Findings\n\n### Regions\n\nWest leads [q1, c1].\n\n{{chart:c1}}\n\n"+
			"### Products\n\nWidgets lead on units [q2].\n\n{{table:q2}}\n\n### Status\n\nShipped leads [q3, c2] and [q9].\n\n{{chart:c7}}\n\n"+
			"## Method\n\nThree queries (q1), (q2) and (q3)."),
	)
	ctx := context.Background()
	first, out1, evs1 := w.ask(t, "", "Where do orders come from?")
	chat := first.User.ConversationID
	_, out2, evs2 := w.ask(t, chat, "Which product sells most?")
	last, out3, evs3 := w.ask(t, chat, "And by status?")
	for i, out := range []*agent.Outcome{out1, out2, out3} {
		if out.Status != agent.Done {
			t.Fatalf("answer %d: %s %s", i+1, out.Status, out.Reason)
		}
	}
	// Refs are unique in the conversation: in the trace and the findings.
	if got := traceRefs(evs1, evs2, evs3); !slices.Equal(got, []string{"q1", "c1", "q2", "q3", "c2"}) {
		t.Fatalf("trace refs %v", got)
	}
	if f := out2.Findings; len(f) != 1 || !slices.Equal(f[0].Evidence, []string{"q2"}) {
		t.Errorf("findings of the second answer %+v", f)
	}
	if f := out3.Findings; len(f) != 1 || !slices.Equal(f[0].Evidence, []string{"q3", "c2"}) {
		t.Errorf("findings of the third answer %+v", f)
	}

	m, err := w.st.MessageByRun(ctx, "run_"+last.Assistant.ID)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := session.WriteConversationReport(ctx, session.ConversationReportRequest{Store: w.st, ChatID: chat,
		MessageID: m.ID, Provider: w.p, Model: "qwen3:8b"})
	if err != nil {
		t.Fatal(err)
	}
	exp := rep.Report.Exploration
	if !slices.Equal(exp.Turns, []int{1, 2, 3}) || exp.Question != "Where do orders come from?" || len(exp.FollowUps) != 2 {
		t.Errorf("covered %v %q %v", exp.Turns, exp.Question, exp.FollowUps)
	}
	dir := filepath.Join(t.TempDir(), "r")
	files, err := session.Export(ctx, w.st, rep, session.ExportFolder, dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(files.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{
		"![Orders by region](charts/c1.svg)", "![Orders by status](charts/c2.svg)", // every chart
		"### q1 — orders by region", "### q2 — units by product", "### q3 — orders by status", // every query
		regionSQL, productSQL, statusSQL,
		"West leads (query q1; Figure 1).", "Widgets lead on units (Table 1).", "Shipped leads (query q3; Figure 2)", "(query q1), (Table 1) and (query q3)", // citations resolved
		"questions: “Where do orders come from?”, “Which product sells most?” and “And by status?”",
		"## Notes on this report", "placeholder for c7", "citation q9", // removals listed
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if raw := regexp.MustCompile(`\[[qc]\d+`).FindString(md); raw != "" {
		t.Errorf("report.md shows a raw citation %q:\n%s", raw, md)
	}
	for _, svg := range []string{"c1.svg", "c2.svg"} {
		if _, err := os.Stat(filepath.Join(dir, "charts", svg)); err != nil {
			t.Error(err)
		}
	}
	// The report is kept with the answer it was asked on, and found by it.
	got, err := session.ReportOfRun(ctx, w.st, "run_"+last.Assistant.ID)
	if err != nil || got == nil || got.ID != rep.ID {
		t.Errorf("report of the last run: %+v %v", got, err)
	}

	// The user picks questions: the report of question 2 alone.
	c, err := session.Cover(ctx, w.st, chat, []int{2})
	if err != nil || !slices.Equal(c.Turns(), []int{2}) || c.Covers(rep, m.ID) {
		t.Errorf("cover of question 2: %+v %v", c, err)
	}
	for _, bad := range [][]int{{4}, {0}} {
		if _, err := session.Cover(ctx, w.st, chat, bad); err == nil {
			t.Errorf("covered questions %v", bad)
		}
	}
}

// traceRefs are the refs the trace's results carry, in order.
func traceRefs(runs ...[]agent.Event) []string {
	var out []string
	for _, evs := range runs {
		for _, e := range evs {
			if e.Type == agent.ToolResult && e.Result != nil && e.Result.Ref != "" {
				out = append(out, e.Result.Ref)
			}
		}
	}
	return out
}
