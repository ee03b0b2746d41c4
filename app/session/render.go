package session

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"regexp"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/agent/report/vega"
)

// md renders the report view: CommonMark with GitHub's extensions; raw HTML
// in the model's text is dropped (goldmark's default).
var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// chartSrc matches the image links Markdown() writes for charts.
var chartSrc = regexp.MustCompile(`src="charts/([A-Za-z][A-Za-z0-9_-]{0,31})\.svg"`)

// View is a report as the report view shows it: its markdown (as
// exported), the same as an HTML fragment with the charts inlined as
// images, and each chart's SVG (empty when it could not be drawn).
type View struct {
	Title    string
	Markdown string
	HTML     string
	Charts   []ViewChart
}

// ViewChart is a chart of a report, drawn.
type ViewChart struct {
	Ref string `json:"ref"`
	SVG string `json:"svg"`
}

// Render renders rep for the report view. Raw HTML in the model's text is
// dropped; a chart that cannot be drawn is left out of the page (its SVG
// empty). ctx bounds the drawing.
func Render(ctx context.Context, rep *report.Report) (*View, error) {
	view := &View{Title: rep.Title, Markdown: rep.Markdown(), Charts: []ViewChart{}}
	svgs := map[string]string{}
	for _, ch := range rep.Exploration.Charts {
		svg, err := vega.Shared().SVG(ctx, ch.Spec)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c := ViewChart{Ref: ch.Ref}
		if err == nil {
			c.SVG = string(svg)
			svgs[ch.Ref] = c.SVG
		}
		view.Charts = append(view.Charts, c)
	}
	var body bytes.Buffer
	if err := md.Convert([]byte(view.Markdown), &body); err != nil {
		return nil, fmt.Errorf("render the report: %w", err)
	}
	view.HTML = chartSrc.ReplaceAllStringFunc(body.String(), func(m string) string {
		ref := chartSrc.FindStringSubmatch(m)[1]
		svg, ok := svgs[ref]
		if !ok {
			return m
		}
		return `src="data:image/svg+xml;base64,` + base64.StdEncoding.EncodeToString([]byte(svg)) + `"`
	})
	return view, nil
}
