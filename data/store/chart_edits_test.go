package store

import (
	"context"
	"encoding/json"
	"testing"
)

// A chart edit is kept per answer and call, replaced by a newer one,
// refused on a question or an answer still being written, read back by
// conversation, deleted on its own, and goes with its conversation.
func TestChartEdits(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	conv := conversation(t, s)
	p, r := ask(t, s, conv, "Where do orders come from?", "run_1")
	edit := ChartEdit{MessageID: p.Assistant.ID, CallID: "call_2", Title: "Orders", Mark: "point", Spec: json.RawMessage(`{"mark":"point"}`)}
	if _, err := s.SaveChartEdit(ctx, edit); err == nil {
		t.Error("an answer still being written took a chart edit")
	}
	must(t, r.Finish(ctx, Final{Status: Complete, Content: "West."}))
	for _, bad := range []ChartEdit{
		{MessageID: p.User.ID, CallID: "call_2", Spec: json.RawMessage(`{}`)},
		{MessageID: p.Assistant.ID, CallID: "", Spec: json.RawMessage(`{}`)},
		{MessageID: p.Assistant.ID, CallID: "call_2", Spec: json.RawMessage(`{"mark":`)},
	} {
		if _, err := s.SaveChartEdit(ctx, bad); err == nil {
			t.Errorf("SaveChartEdit(%+v) took it", bad)
		}
	}
	_, err := s.SaveChartEdit(ctx, edit)
	must(t, err)
	edit.Mark, edit.Spec = "line", json.RawMessage(`{"mark":"line"}`)
	saved, err := s.SaveChartEdit(ctx, edit)
	must(t, err)
	got, err := s.ChartEdits(ctx, conv)
	must(t, err)
	if es := got[p.Assistant.ID]; len(es) != 1 || es[0].Mark != "line" || string(es[0].Spec) != `{"mark":"line"}` || !es[0].Edited.Equal(saved.Edited) {
		t.Fatalf("edits %+v, want the newer line", got)
	}
	must(t, s.DeleteChartEdit(ctx, p.Assistant.ID, "call_2"))
	if got, _ := s.ChartEdits(ctx, conv); len(got) != 0 {
		t.Errorf("after delete: %+v", got)
	}
	_, err = s.SaveChartEdit(ctx, edit)
	must(t, err)
	must(t, s.Delete(ctx, conv))
	var n int
	must(t, s.db.QueryRow(`SELECT count(*) FROM chart_edits`).Scan(&n))
	if n != 0 {
		t.Errorf("%d chart edits outlive their conversation", n)
	}
}
