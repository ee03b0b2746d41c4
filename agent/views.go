package agent

import "github.com/loupeapp/loupe/tools"

// WithViews fills in the View of tool calls recorded without one (before
// calls carried it, or rebuilt from stored messages) from specs, the tools
// the conversation runs with, matching names as a run does. Calls already
// carrying a view and calls of tools not in specs are left as they are.
// evs is changed in place and returned.
func WithViews(evs []Event, specs []tools.Spec) []Event {
	r := NewCallReader(specs)
	for i, e := range evs {
		if e.Type != ToolCalled || e.Call == nil || e.Call.View != nil {
			continue
		}
		if v := r.spec(e.Call.Name).View; v != (tools.View{}) {
			c := *e.Call
			c.View = &v
			evs[i].Call = &c
		}
	}
	return evs
}
