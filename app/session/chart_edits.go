package session

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/chart"
)

// EditChart changes the chart the tool call callID of run runID drew in
// conversation chatID to spec, a Vega-Lite spec the user wrote or made
// with the chart editor, and keeps the change with the answer: reopening
// the conversation and the reports written from it show the edited chart.
// The spec is checked the way the model's are (chart.Revise: nothing
// fetched, the Vega-Lite schema, fields of the chart's own data, which
// the spec cannot replace). title names the chart when the spec has no
// title. Errors: CodeNotFound (no such run or chart), CodeInvalid (a spec
// that cannot be drawn, or an answer not finished).
func (c *Conversations) EditChart(ctx context.Context, chatID, runID, callID string, spec json.RawMessage, title string) (*tools.Chart, error) {
	m, t, err := c.turn(ctx, chatID, runID)
	if err != nil {
		return nil, err
	}
	if m.Status == store.Generating {
		return nil, NewError(CodeInvalid, "This answer is still being written.", "Edit its chart once it is finished.")
	}
	drawn := drawnChart(t, callID)
	if drawn == nil {
		return nil, &Error{Code: CodeNotFound, Message: fmt.Sprintf("The answer has no chart drawn by call %q.", callID)}
	}
	if title == "" {
		title = drawn.Title
	}
	edited, err := chart.Revise(drawn.Spec, spec, title)
	if err != nil {
		return nil, err
	}
	edited.Edited = true
	st, err := c.Store()
	if err != nil {
		return nil, err
	}
	if _, err := st.SaveChartEdit(ctx, store.ChartEdit{MessageID: m.ID, CallID: callID, Title: edited.Title, Mark: edited.Mark, Spec: edited.Spec}); err != nil {
		return nil, Wrap(err)
	}
	return edited, nil
}

// ResetChart forgets the user's edit of the chart of call callID: the
// answer shows the chart the model drew again, which it returns.
func (c *Conversations) ResetChart(ctx context.Context, chatID, runID, callID string) (*tools.Chart, error) {
	m, t, err := c.turn(ctx, chatID, runID)
	if err != nil {
		return nil, err
	}
	drawn := drawnChart(t, callID)
	if drawn == nil {
		return nil, &Error{Code: CodeNotFound, Message: fmt.Sprintf("The answer has no chart drawn by call %q.", callID)}
	}
	st, err := c.Store()
	if err != nil {
		return nil, err
	}
	if err := st.DeleteChartEdit(ctx, m.ID, callID); err != nil {
		return nil, Wrap(err)
	}
	return drawn, nil
}

// drawnChart is the chart call callID drew, as the model made it.
func drawnChart(t *Turn, callID string) *tools.Chart {
	for _, e := range t.Events {
		switch {
		case e.Type == agent.ToolResult && e.Result != nil && e.Result.CallID == callID && e.Result.Display.Chart != nil:
			return e.Result.Display.Chart
		case e.Type == agent.ChartMade && e.Chart != nil && e.Chart.CallID == callID && e.Chart.Chart != nil:
			return e.Chart.Chart
		}
	}
	return nil
}

// withChartEdits shows the user's edits in t: wherever an edited call's
// chart appears (its result's display, its chart event, the outcome's
// evidence) the edited chart is shown, marked Edited. The events' shared
// values are copied, not changed.
func withChartEdits(t *Turn, edits []store.ChartEdit) {
	for _, ed := range edits {
		c := &tools.Chart{Title: ed.Title, Spec: ed.Spec, Mark: ed.Mark, Rows: rowsOf(ed.Spec), Edited: true}
		for i, e := range t.Events {
			switch {
			case e.Type == agent.ToolResult && e.Result != nil && e.Result.CallID == ed.CallID && e.Result.Display.Chart != nil:
				r := *e.Result
				r.Display.Chart = c
				t.Events[i].Result = &r
			case e.Type == agent.ChartMade && e.Chart != nil && e.Chart.CallID == ed.CallID:
				ce := *e.Chart
				ce.Chart = c
				t.Events[i].Chart = &ce
			}
		}
		if t.Outcome != nil {
			outcomeWithEdit(t.Outcome, ed.CallID, c)
		}
	}
}

// outcomeWithEdit gives the evidence of call callID the chart c.
func outcomeWithEdit(out *agent.Outcome, callID string, c *tools.Chart) {
	ev := append([]agent.Evidence(nil), out.Evidence...)
	for i := range ev {
		if ev[i].CallID == callID && ev[i].Chart != nil {
			ev[i].Chart = c
			if ev[i].Display != nil {
				d := *ev[i].Display
				d.Chart = c
				ev[i].Display = &d
			}
		}
	}
	out.Evidence = ev
}

// rowsOf counts the data rows inlined in a spec.
func rowsOf(spec json.RawMessage) int {
	var s struct {
		Data struct {
			Values []json.RawMessage `json:"values"`
		} `json:"data"`
	}
	_ = json.Unmarshal(spec, &s)
	return len(s.Data.Values)
}
