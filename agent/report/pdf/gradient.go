package pdf

import (
	"math"
	"strings"
)

func (c *svgCanvas) gradientOf(fill string) *svgNode {
	if !strings.HasPrefix(fill, "url(#") {
		return nil
	}
	id := strings.TrimSuffix(strings.TrimPrefix(fill, "url(#"), ")")
	return c.gradients[id]
}

// gradientFill fills the bounding box of segs with a linear gradient's
// stops as narrow bands along its direction (objectBoundingBox units, as
// Vega writes them): PDF shadings are not worth their weight for a legend.
func (c *svgCanvas) gradientFill(segs []segment, m matrix, st style, g *svgNode) {
	type stop struct {
		at      float64
		r, g, b int
	}
	var stops []stop
	for _, ch := range g.children {
		if ch.name != "stop" {
			continue
		}
		at := 0.0
		if v := numbers(strings.TrimSuffix(ch.attr("offset"), "%")); len(v) == 1 {
			at = v[0]
			if strings.HasSuffix(ch.attr("offset"), "%") {
				at /= 100
			}
		}
		if r, gg, b, ok := parseColor(ch.attr("stop-color")); ok {
			stops = append(stops, stop{at, r, gg, b})
		}
	}
	if len(stops) == 0 {
		return
	}
	x0, y0, x1, y1 := bbox(segs)
	v := attrNums(g, "x1", "y1", "x2", "y2")
	if _, ok := g.attrs["x2"]; !ok {
		v[2] = 1
	}
	vertical := math.Abs(v[3]-v[1]) > math.Abs(v[2]-v[0])
	const bands = 48
	c.pdf.SetAlpha(clamp01(st.opacity*st.fillOpacity), "Normal")
	for i := range bands {
		t := (float64(i) + 0.5) / bands
		from, to := float64(i)/bands, float64(i+1)/bands
		pos := t
		if (vertical && v[3] < v[1]) || (!vertical && v[2] < v[0]) {
			pos = 1 - t
		}
		r, gg, b := stops[0].r, stops[0].g, stops[0].b
		for j := 1; j < len(stops); j++ {
			a, z := stops[j-1], stops[j]
			if pos >= a.at && pos <= z.at && z.at > a.at {
				f := (pos - a.at) / (z.at - a.at)
				r, gg, b = lerp(a.r, z.r, f), lerp(a.g, z.g, f), lerp(a.b, z.b, f)
				break
			}
			if pos > z.at {
				r, gg, b = z.r, z.g, z.b
			}
		}
		var band []segment
		if vertical {
			band = rectSegments(x0, y0+(y1-y0)*from, x1-x0, (y1-y0)*(to-from)+0.01)
		} else {
			band = rectSegments(x0+(x1-x0)*from, y0, (x1-x0)*(to-from)+0.01, y1-y0)
		}
		c.pdf.SetFillColor(r, gg, b)
		c.path(band, m)
		c.pdf.DrawPath("F")
	}
}

func lerp(a, b int, f float64) int { return int(math.Round(float64(a) + (float64(b)-float64(a))*f)) }

func bbox(segs []segment) (x0, y0, x1, y1 float64) {
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, s := range segs {
		for i := 0; i+1 < len(s.pts); i += 2 {
			x0, x1 = math.Min(x0, s.pts[i]), math.Max(x1, s.pts[i])
			y0, y1 = math.Min(y0, s.pts[i+1]), math.Max(y1, s.pts[i+1])
		}
	}
	return
}
