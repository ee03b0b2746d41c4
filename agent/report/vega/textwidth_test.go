package vega

import (
	"context"
	"math"
	"strings"
	"testing"
)

func TestTextWidth(t *testing.T) {
	cases := []struct {
		text   string
		size   float64
		weight string
		want   float64
	}{
		{"East", 10, "", (667 + 556 + 500 + 278) * 10.0 / 1000},
		{"East", 10, "bold", (667 + 556 + 556 + 333) * 10.0 / 1000},
		{"East", 10, "700", (667 + 556 + 556 + 333) * 10.0 / 1000},
		{"East", 10, "400", (667 + 556 + 500 + 278) * 10.0 / 1000},
		{"100,000", 11, "", (6*556 + 278) * 11.0 / 1000},
		{"東京", 10, "", 20},
		{"Zürich", 10, "", (611 + 556 + 333 + 222 + 500 + 556) * 10.0 / 1000},
		{"", 10, "", 0},
	}
	for _, c := range cases {
		if got := textWidth(c.text, c.size, c.weight); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("textWidth(%q, %v, %q) = %v, want %v", c.text, c.size, c.weight, got, c.want)
		}
	}
}

// The engine measures with textWidth, not Vega's 0.8 em guess: a long
// rotated label then needs far less room below the axis.
func TestRendererMeasuresTextWithHelvetica(t *testing.T) {
	e, err := newEngine(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.rt.RunString(`vega.textMetrics.width({fontSize: 10}, 'Central & Overseas')`)
	if err != nil {
		t.Fatal(err)
	}
	want := textWidth("Central & Overseas", 10, "")
	if got := v.ToFloat(); math.Abs(got-want) > 1e-9 || got > 0.8*10*18*0.7 {
		t.Errorf("measured %v, want %v (well under the 0.8 em guess of 144)", got, want)
	}
	svg, err := testRenderer().SVG(context.Background(), readSpec(t, "bar.vl.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), `font-family="`+FontFamily+`"`) {
		t.Errorf("the SVG does not use %q", FontFamily)
	}
}
