package app

import "math"

// ChartRendered records in the app's log how long the page took to draw a
// chart of rows data rows with renderer ("svg" or "canvas"): vega-embed's
// parse, dataflow and draw, timed in the page. The log is where render
// times in the real window are read (make smoke prints the 10,000-point
// figure from it). Values the page cannot have measured are refused with
// CodeInvalid.
func (a *App) ChartRendered(rows int, renderer string, ms float64) error {
	if rows < 0 || (renderer != "svg" && renderer != "canvas") || ms < 0 || math.IsNaN(ms) || math.IsInf(ms, 0) {
		return newError(CodeInvalid, "A chart render time needs a row count, svg or canvas, and a time in milliseconds.", "")
	}
	a.log.Info("chart rendered", "rows", rows, "renderer", renderer, "ms", int64(ms))
	return nil
}
