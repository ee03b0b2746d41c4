package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/tools"
)

// chartOf is the chart shown for call callID in turn t (its tool result's
// display), and the outcome's evidence chart of that call.
func chartOf(t app.Turn, callID string) (shown, evidence *tools.Chart) {
	for _, e := range t.Events {
		if e.Type == agent.ToolResult && e.Result.CallID == callID {
			shown = e.Result.Display.Chart
		}
	}
	if t.Outcome != nil {
		for _, ev := range t.Outcome.Evidence {
			if ev.CallID == callID {
				evidence = ev.Chart
			}
		}
	}
	return shown, evidence
}

// TestEditChartIsKeptWithTheAnswer: the user changes the answer's bar
// chart into points with a title of their own; the change is checked,
// kept across a restart, drawn in the report, and can be undone. A spec
// that names an address or a field the chart lacks is refused with why,
// and changes nothing.
func TestEditChartIsKeptWithTheAnswer(t *testing.T) {
	spec := map[string]any{"mark": "bar", "encoding": map[string]any{
		"x": map[string]any{"field": "region", "type": "nominal"},
		"y": map[string]any{"field": "orders", "type": "quantitative"},
	}}
	srv := fake.Start(t, fake.Options{Turns: []fake.Turn{
		fake.Calls(call("run_sql", map[string]any{"sql": regionSQL, "purpose": "orders by region"})),
		fake.Calls(call("create_chart", map[string]any{"title": "Orders by region", "sql": regionSQL, "spec": spec})),
		fake.Text("West has the most orders.\n\nFindings:\n- West leads [q1, c1]"),
		fake.Text("# Where the orders come from\n\n{{chart:c1}}\n\nWest leads."),
	}})
	ws := t.TempDir()
	first := openApp(t, ws, srv)
	first.load(t)
	chat := first.chat(t)
	res, err := first.app.Ask(chat, "Where do orders come from?")
	if err != nil {
		t.Fatal(err)
	}
	if out := first.rec.waitFinished(t, res.RunID, 20*time.Second); out.Status != agent.Done {
		t.Fatalf("run: %s %s", out.Status, out.Reason)
	}
	c, err := first.app.GetChat(chat)
	if err != nil {
		t.Fatal(err)
	}
	var callID string
	for _, e := range c.Turns[0].Events {
		if e.Type == agent.ToolResult && e.Result.Display.Chart != nil {
			callID = e.Result.CallID
		}
	}
	drawn, _ := chartOf(c.Turns[0], callID)
	if callID == "" || drawn.Mark != "bar" || drawn.Edited {
		t.Fatalf("the answer's chart: call %q, %+v", callID, drawn)
	}

	for _, bad := range []struct{ spec, want string }{
		{`{"mark":"bar","data":{"url":"https://example.com/steal.csv"},"encoding":{"x":{"field":"region","type":"nominal"}}}`, "fetch from outside"},
		{`{"mark":"bar","encoding":{"x":{"field":"customer","type":"nominal"}}}`, "columns are: orders, region"},
		{`{"mark":`, "not valid JSON"},
	} {
		_, err := first.app.EditChart(chat, res.RunID, callID, bad.spec, "")
		if codeOf(t, err) != app.CodeInvalid || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("EditChart(%s): %v, want invalid saying %s", bad.spec, err, bad.want)
		}
	}
	if _, err := first.app.EditChart(chat, res.RunID, "call_nope", `{"mark":"point"}`, ""); codeOf(t, err) != app.CodeNotFound {
		t.Errorf("an unknown call: %v", err)
	}

	edited, err := first.app.EditChart(chat, res.RunID, callID, `{"title":"Orders, as points","mark":"point",
		"encoding":{"x":{"field":"orders","type":"quantitative"},"y":{"field":"region","type":"nominal"}}}`, "")
	if err != nil {
		t.Fatal(err)
	}
	if edited.Mark != "point" || !edited.Edited || edited.Title != "Orders, as points" || edited.Rows != drawn.Rows {
		t.Errorf("edited chart %+v", edited)
	}
	first.app.Shutdown(context.Background())

	second := openApp(t, ws, srv)
	c, err = second.app.GetChat(chat)
	if err != nil {
		t.Fatal(err)
	}
	shown, evidence := chartOf(c.Turns[0], callID)
	if shown == nil || shown.Mark != "point" || !shown.Edited || evidence == nil || evidence.Mark != "point" {
		t.Fatalf("after a restart the answer shows %s (evidence %s), want the edited points", markOf(shown), markOf(evidence))
	}
	rep, err := second.app.WriteReport(chat, res.RunID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Charts) != 1 || !strings.Contains(rep.Charts[0].SVG, "mark-symbol") || strings.Contains(rep.Charts[0].SVG, "mark-rect") ||
		!strings.Contains(rep.Charts[0].SVG, "Orders, as points") {
		t.Errorf("the report does not draw the edited chart: %d charts", len(rep.Charts))
	}

	back, err := second.app.ResetChart(chat, res.RunID, callID)
	if err != nil || back.Mark != "bar" || back.Edited {
		t.Fatalf("reset: %+v %v", back, err)
	}
	c, _ = second.app.GetChat(chat)
	if shown, _ := chartOf(c.Turns[0], callID); shown.Mark != "bar" || shown.Edited {
		t.Errorf("after a reset the answer shows %s, want the bars it was drawn with", markOf(shown))
	}
}

func markOf(c *tools.Chart) string {
	if c == nil {
		return "no chart"
	}
	return fmt.Sprintf("%s (edited %v)", c.Mark, c.Edited)
}
