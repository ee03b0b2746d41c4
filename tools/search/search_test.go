package search_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/memory"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/search"
	"github.com/loupeapp/loupe/tools/tooltest"
)

func TestSearchSchema(t *testing.T) {
	ws := tooltest.Workspace(t)
	idx, err := index.Open(ws.Engine.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	tool := search.NewSchema(ws, idx)
	ctx := context.Background()
	for _, tc := range []struct {
		args  any
		first string
		fail  bool
	}{
		{map[string]any{"query": "customer email addresses"}, "customers", false},
		{map[string]any{"question": "order totals", "k": "3"}, "orders", false}, // alias, k as a string
		{map[string]any{"query": "weather on Mars"}, "", false},
		{map[string]any{"k": 2}, "", true},
	} {
		res, err := tool.Run(ctx, tooltest.Args(t, tc.args))
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed != tc.fail {
			t.Errorf("%v: failed %v: %s", tc.args, res.Failed, res.ForModel)
			continue
		}
		if tc.fail {
			continue
		}
		var matches []search.TableMatch
		if err := json.Unmarshal(res.Display.Data, &matches); err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.first == "" && (len(matches) != 0 || !strings.Contains(res.ForModel, "No table matches")):
			t.Errorf("%v: %s", tc.args, res.ForModel)
		case tc.first != "" && (len(matches) == 0 || matches[0].Table != tc.first || !strings.Contains(res.ForModel, "1. "+tc.first)):
			t.Errorf("%v: %s", tc.args, res.ForModel)
		}
	}
}

func TestFindPriorQuery(t *testing.T) {
	ws := tooltest.Workspace(t)
	mem, err := memory.Open(ws.Engine.Dir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	prior := "SELECT status, count(*) FROM orders WHERE year(order_date) = 2023 GROUP BY status"
	if _, err := mem.Remember(ctx, memory.Entry{Chat: "c1", Question: "How many orders per status in 2023?", SQL: prior, Tables: []string{"orders"}, Result: "3 rows: status, count"}); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Remember(ctx, memory.Entry{Chat: "c0", Question: "Orders per status from the old system", SQL: "SELECT * FROM legacy_orders", Tables: []string{"legacy_orders"}}); err != nil {
		t.Fatal(err)
	}
	tool := search.NewPrior(mem, ws)
	res, err := tool.Run(tools.WithChat(ctx, "c1"), tooltest.Args(t, map[string]string{"question": "How many orders per status in 2024?"}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.ForModel, prior) || !strings.Contains(res.ForModel, "this conversation") || strings.Contains(res.ForModel, "legacy_orders") {
		t.Errorf("find_prior_query: %s", res.ForModel)
	}
	res, err = tool.Run(ctx, tooltest.Args(t, map[string]string{"q": "average delivery time by carrier"}))
	if err != nil || !strings.Contains(res.ForModel, "No earlier query") {
		t.Errorf("unrelated: %s, %v", res.ForModel, err)
	}
}
