package chart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/tools"
)

// ErrNotRedrawn is wrapped by Redraw's error when the chart cannot be
// drawn on the current data (its query fails, returns no rows or too
// many, or no longer fits the spec); the error says why.
var ErrNotRedrawn = errors.New("the chart cannot be drawn on the current data")

// Redraw draws a chart again on the current data: spec is the chart as it
// was drawn (its inlined data is replaced), sql the query of its data.
// It goes through every check create_chart makes, and returns the new
// spec with the rows inlined, or an error wrapping ErrNotRedrawn with the
// reason, or ctx's error, or an infrastructure error.
func (t *Tool) Redraw(ctx context.Context, title string, spec json.RawMessage, sql string) (json.RawMessage, error) {
	var s map[string]any
	if err := json.Unmarshal(spec, &s); err != nil {
		return nil, fmt.Errorf("%w: its spec is not a JSON object: %v", ErrNotRedrawn, err)
	}
	delete(s, "data")
	raw, err := json.Marshal(map[string]any{"title": title, "sql": sql, "spec": s})
	if err != nil {
		return nil, fmt.Errorf("encode the chart: %w", err)
	}
	res, err := t.Run(ctx, raw)
	if err != nil {
		return nil, err
	}
	switch {
	case res.Failed:
		return nil, fmt.Errorf("%w: %s", ErrNotRedrawn, lineOne(res.ForModel))
	case res.Display.Kind != tools.KindChart || res.Display.Chart == nil:
		return nil, fmt.Errorf("%w: %s", ErrNotRedrawn, res.Summary)
	}
	return res.Display.Chart.Spec, nil
}

func lineOne(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
