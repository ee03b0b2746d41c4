package app

import (
	"encoding/json"

	"github.com/loupeapp/loupe/tools"
)

// EditChart changes the chart that tool call callID of run runID drew in
// conversation chatID to spec (Vega-Lite JSON text, without data: the
// chart keeps its own rows) and keeps the change with the answer, so that
// reopening the conversation and its reports show the edited chart. The
// spec is checked as the model's are: nothing fetched, the Vega-Lite
// schema, fields of the chart's data. It returns the chart to draw.
// Errors: "invalid" (a spec that cannot be drawn, with what is wrong),
// "not_found" (no such run or chart).
func (a *App) EditChart(chatID, runID, callID, spec, title string) (*tools.Chart, error) {
	if !json.Valid([]byte(spec)) {
		return nil, newError(CodeInvalid, "The spec is not valid JSON.", "Check the brackets, quotes and commas, or go back to the fields above.")
	}
	c, err := a.s.Chats.EditChart(a.life, chatID, runID, callID, json.RawMessage(spec), title)
	if err != nil {
		return nil, wrap(err)
	}
	return c, nil
}

// ResetChart forgets the user's edit of the chart of call callID of run
// runID: the answer shows the chart it was drawn with again, which it
// returns.
func (a *App) ResetChart(chatID, runID, callID string) (*tools.Chart, error) {
	c, err := a.s.Chats.ResetChart(a.life, chatID, runID, callID)
	if err != nil {
		return nil, wrap(err)
	}
	return c, nil
}
