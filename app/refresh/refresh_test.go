package refresh

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/ollama"
	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

const byRegion = "SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY region"

// sales opens a workspace holding sales.csv with content, and returns
// it with a func that writes the file again and reloads it.
func sales(t *testing.T, content string) (*workspace.Workspace, func(string)) {
	t.Helper()
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	path := filepath.Join(t.TempDir(), "sales.csv")
	put := func(content string) {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ws.Loader.Load(ctx, path, load.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	put(content)
	return ws, put
}

// written is a report as the report stage leaves it, its results taken
// from the workspace as it is.
func written(t *testing.T, ws *workspace.Workspace) *report.Report {
	t.Helper()
	spec := json.RawMessage(`{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"total","type":"quantitative"}}}`)
	exp := report.Exploration{Question: "Who sells most?",
		Queries:  []report.Query{{Ref: "q1", SQL: byRegion, Purpose: "by region"}, {Ref: "q2", Purpose: "a profile"}},
		Charts:   []report.Chart{{Ref: "c1", Title: "By region", Spec: spec, SQL: byRegion}},
		Findings: []report.Finding{{Text: "North sold 17", Evidence: []string{"q1"}}},
	}
	exp, failed, err := Rerun(context.Background(), ws.Query, exp)
	if err != nil || len(failed) != 0 {
		t.Fatalf("the first run: %v %v", failed, err)
	}
	return &report.Report{Title: "North leads", Body: "North leads.\n\n{{table:q1}}\n\n{{chart:c1}}\n", Exploration: exp,
		Created: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
}

func TestRefresh(t *testing.T) {
	ws, put := sales(t, "region,amount\nnorth,10\nsouth,12\nnorth,7\n")
	prev := written(t, ws)
	if q := prev.Exploration.Queries[1]; !strings.Contains(q.Error, "no SQL was recorded") {
		t.Errorf("a result without SQL: %+v", q)
	}
	srv := fake.New(t,
		fake.Text("North fell from 17 to 10."),
		fake.Failing(fake.Status(http.StatusBadRequest, "model is loading")),
	)
	p, err := ollama.New(ollama.Config{BaseURL: srv.OllamaURL()})
	if err != nil {
		t.Fatal(err)
	}
	prose := func(ctx context.Context, title string, c *report.Changes) (string, error) {
		return report.WriteChangesProse(ctx, p, "qwen3:8b", title, c)
	}
	put("region,amount\nnorth,10\nsouth,12\n")
	now := time.Date(2026, 11, 8, 9, 0, 0, 0, time.UTC)
	next, err := Refresh(context.Background(), Request{Previous: prev, PreviousID: "report-1", Run: ws.Query, Prose: prose,
		Reloaded: []string{"sales"}, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	c := next.Refresh.Changes
	var moved []string
	for _, n := range c.Numbers {
		moved = append(moved, n.String())
	}
	if strings.Join(moved, "; ") != "q1, north, total: 17 → 10" || c.Prose != "North fell from 17 to 10." || c.ProseBy != "model" ||
		len(c.Findings) != 1 || next.Refresh.Of != "report-1" || !next.Refresh.Written.Equal(prev.Created) || !next.Created.Equal(now) {
		t.Errorf("refresh: %+v", next.Refresh)
	}
	if !strings.Contains(string(next.Exploration.Charts[0].Spec), `"total":10`) || strings.Contains(string(prev.Exploration.Charts[0].Spec), `"total":10`) {
		t.Errorf("the chart was not redrawn on a copy: %s", next.Exploration.Charts[0].Spec)
	}
	if len(c.Failed) != 0 {
		t.Errorf("a query that failed before is not one that fails now: %+v", c.Failed)
	}

	// The file is emptied (its amount column is read as text): the query
	// fails, the chart cannot be drawn and is kept as it was; the model
	// fails, and Loupe words the changes itself.
	put("region,amount\n")
	again, err := Refresh(context.Background(), Request{Previous: next, PreviousID: "report-2", Run: ws.Query, Prose: prose})
	if err != nil {
		t.Fatal(err)
	}
	c = again.Refresh.Changes
	if len(c.Charts) != 1 || c.Charts[0].Ref != "c1" || !strings.Contains(c.Charts[0].Error, "The chart's SQL failed: Binder Error") ||
		string(again.Exploration.Charts[0].Spec) != string(next.Exploration.Charts[0].Spec) {
		t.Errorf("a chart that cannot be drawn: %+v", c.Charts)
	}
	if c.ProseBy != "loupe" || c.Prose != "" || len(again.Notices) != 1 || again.Notices[0].Kind != NoticeProse ||
		!strings.Contains(again.Notices[0].Text, "model is loading") {
		t.Errorf("the model's failure: %q %q %+v", c.ProseBy, c.Prose, again.Notices)
	}
	if !again.Refresh.Written.Equal(prev.Created) {
		t.Error("a refresh of a refresh forgot when the text was written")
	}
	md := again.Markdown()
	if len(c.Failed) != 1 || c.Failed[0].Ref != "q1" || !strings.Contains(c.Failed[0].Error, "sum(VARCHAR)") {
		t.Errorf("the query that fails now: %+v", c.Failed)
	}
	for _, want := range []string{"Since the previous version, 1 query now fails, 1 chart could not be redrawn and 1 finding no longer holds.",
		"**Charts not redrawn (shown as before)**", "- c1: ` The chart's SQL failed: Binder Error", "*Table 1. by region (q1): the query failed: Binder Error"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestRefreshStopsWithItsContext(t *testing.T) {
	ws, _ := sales(t, "region,amount\nnorth,10\n")
	prev := written(t, ws)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Refresh(ctx, Request{Previous: prev, Run: ws.Query}); !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled refresh: %v", err)
	}
}
