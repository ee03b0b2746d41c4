package pdf

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/go-pdf/fpdf"
)

// The SVG drawn here is what Vega's headless SVG renderer writes: nested
// <g> with transforms, <path>, <rect>, <line>, <circle>, <text> and linear
// gradients (continuous legends), styled by presentation attributes. Every
// shape becomes PDF vector paths and every label real text, so a chart
// stays sharp at any zoom and its words can be searched and copied.
// Anything else (images, filters, clip paths, CSS) is skipped.

// svgNode is one parsed element.
type svgNode struct {
	name     string
	attrs    map[string]string
	children []*svgNode
	text     string
}

func (n *svgNode) attr(k string) string { return n.attrs[k] }

// parseSVG reads an SVG document into a tree.
func parseSVG(b []byte) (*svgNode, error) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = false
	var stack []*svgNode
	var root *svgNode
	for {
		tok, err := dec.Token()
		if err != nil {
			if root == nil {
				return nil, fmt.Errorf("read the chart's SVG: %w", err)
			}
			return root, nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &svgNode{name: t.Name.Local, attrs: map[string]string{}}
			for _, a := range t.Attr {
				if a.Name.Space == "" || a.Name.Space == "xlink" || a.Name.Space == "http://www.w3.org/1999/xlink" {
					n.attrs[a.Name.Local] = a.Value
				}
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			} else if root == nil {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(t)
			}
		}
	}
}

// svgSize is the drawing's width and height in SVG units.
func svgSize(root *svgNode) (w, h float64) {
	w, _ = strconv.ParseFloat(strings.TrimSuffix(root.attr("width"), "px"), 64)
	h, _ = strconv.ParseFloat(strings.TrimSuffix(root.attr("height"), "px"), 64)
	if vb := numbers(root.attr("viewBox")); len(vb) == 4 && (w == 0 || h == 0) {
		w, h = vb[2], vb[3]
	}
	return w, h
}

// matrix is an affine transform: x' = a·x + c·y + e, y' = b·x + d·y + f.
type matrix struct{ a, b, c, d, e, f float64 }

var identity = matrix{a: 1, d: 1}

func (m matrix) mul(n matrix) matrix { // m then n applied first: m·n
	return matrix{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return m.a*x + m.c*y + m.e, m.b*x + m.d*y + m.f
}

// scale is the transform's mean linear scale (for stroke widths, font sizes).
func (m matrix) scale() float64 { return math.Sqrt(math.Abs(m.a*m.d - m.b*m.c)) }

// parseTransform reads an SVG transform list.
func parseTransform(s string) matrix {
	m := identity
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		open := strings.IndexByte(s, '(')
		end := strings.IndexByte(s, ')')
		if open < 0 || end < open {
			break
		}
		name := strings.TrimSpace(strings.Trim(s[:open], ", "))
		v := numbers(s[open+1 : end])
		s = s[end+1:]
		var t matrix
		switch {
		case name == "translate" && len(v) >= 1:
			t = matrix{a: 1, d: 1, e: v[0]}
			if len(v) > 1 {
				t.f = v[1]
			}
		case name == "scale" && len(v) >= 1:
			t = matrix{a: v[0], d: v[0]}
			if len(v) > 1 {
				t.d = v[1]
			}
		case name == "rotate" && len(v) >= 1:
			r := v[0] * math.Pi / 180
			cos, sin := math.Cos(r), math.Sin(r)
			t = matrix{a: cos, b: sin, c: -sin, d: cos}
			if len(v) >= 3 {
				t = matrix{a: 1, d: 1, e: v[1], f: v[2]}.mul(t).mul(matrix{a: 1, d: 1, e: -v[1], f: -v[2]})
			}
		case name == "matrix" && len(v) == 6:
			t = matrix{v[0], v[1], v[2], v[3], v[4], v[5]}
		default:
			continue
		}
		m = m.mul(t)
	}
	return m
}

// numbers reads the numbers of a list separated by commas and/or spaces.
func numbers(s string) []float64 {
	var out []float64
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		if v, err := strconv.ParseFloat(strings.TrimSuffix(f, "px"), 64); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// style is the inherited presentation state.
type style struct {
	fill, stroke               string
	strokeWidth                float64
	opacity                    float64 // the product of the ancestors' and own opacity
	fillOpacity, strokeOpacity float64
	fontSize                   float64
	fontWeight                 string
	fontStyle                  string
	anchor                     string
	dash                       []float64
}

func (s style) with(n *svgNode) style {
	if v, ok := n.attrs["fill"]; ok {
		s.fill = v
	}
	if v, ok := n.attrs["stroke"]; ok {
		s.stroke = v
	}
	if v := numbers(n.attr("stroke-width")); len(v) == 1 {
		s.strokeWidth = v[0]
	}
	if v := numbers(n.attr("opacity")); len(v) == 1 {
		s.opacity *= v[0]
	}
	if v := numbers(n.attr("fill-opacity")); len(v) == 1 {
		s.fillOpacity = v[0]
	}
	if v := numbers(n.attr("stroke-opacity")); len(v) == 1 {
		s.strokeOpacity = v[0]
	}
	if v := numbers(n.attr("font-size")); len(v) == 1 {
		s.fontSize = v[0]
	}
	if v, ok := n.attrs["font-weight"]; ok {
		s.fontWeight = v
	}
	if v, ok := n.attrs["font-style"]; ok {
		s.fontStyle = v
	}
	if v, ok := n.attrs["text-anchor"]; ok {
		s.anchor = v
	}
	if v, ok := n.attrs["stroke-dasharray"]; ok {
		s.dash = numbers(v)
	}
	return s
}

// svgCanvas draws an SVG tree onto a PDF page.
type svgCanvas struct {
	pdf       *fpdf.Fpdf
	fonts     *fontSet
	gradients map[string]*svgNode
}

// drawSVG draws the chart svg with its top-left corner at (x, y) on the
// current page, scaled by k (PDF points per SVG unit).
func drawSVG(p *fpdf.Fpdf, fonts *fontSet, root *svgNode, x, y, k float64) {
	c := &svgCanvas{pdf: p, fonts: fonts, gradients: map[string]*svgNode{}}
	c.collectGradients(root)
	base := matrix{a: k, d: k, e: x, f: y}
	if vb := numbers(root.attr("viewBox")); len(vb) == 4 {
		base = base.mul(matrix{a: 1, d: 1, e: -vb[0], f: -vb[1]})
	}
	st := style{fill: "black", stroke: "none", strokeWidth: 1, opacity: 1, fillOpacity: 1, strokeOpacity: 1, fontSize: 16}
	c.draw(root, base, st)
	p.SetAlpha(1, "Normal")
	p.SetDashPattern(nil, 0)
}

func (c *svgCanvas) collectGradients(n *svgNode) {
	if n.name == "linearGradient" && n.attr("id") != "" {
		c.gradients[n.attr("id")] = n
	}
	for _, ch := range n.children {
		c.collectGradients(ch)
	}
}

func (c *svgCanvas) draw(n *svgNode, m matrix, st style) {
	if n.attr("display") == "none" || n.attr("visibility") == "hidden" {
		return
	}
	if t, ok := n.attrs["transform"]; ok {
		m = m.mul(parseTransform(t))
	}
	st = st.with(n)
	switch n.name {
	case "svg", "g", "a":
		for _, ch := range n.children {
			c.draw(ch, m, st)
		}
	case "path":
		c.shape(pathSegments(n.attr("d")), m, st)
	case "rect":
		v := attrNums(n, "x", "y", "width", "height")
		if v[2] > 0 && v[3] > 0 {
			c.shape(rectSegments(v[0], v[1], v[2], v[3]), m, st)
		}
	case "line":
		v := attrNums(n, "x1", "y1", "x2", "y2")
		st.fill = "none"
		c.shape([]segment{{op: 'M', pts: []float64{v[0], v[1]}}, {op: 'L', pts: []float64{v[2], v[3]}}}, m, st)
	case "circle":
		v := attrNums(n, "cx", "cy", "r")
		c.shape(ellipseSegments(v[0], v[1], v[2], v[2]), m, st)
	case "ellipse":
		v := attrNums(n, "cx", "cy", "rx", "ry")
		c.shape(ellipseSegments(v[0], v[1], v[2], v[3]), m, st)
	case "text":
		c.text(n, m, st)
	}
}

func attrNums(n *svgNode, names ...string) []float64 {
	out := make([]float64, len(names))
	for i, k := range names {
		if v := numbers(n.attr(k)); len(v) == 1 {
			out[i] = v[0]
		}
	}
	return out
}

// shape fills then strokes segs as st says.
func (c *svgCanvas) shape(segs []segment, m matrix, st style) {
	if len(segs) == 0 {
		return
	}
	if grad := c.gradientOf(st.fill); grad != nil {
		c.gradientFill(segs, m, st, grad)
	} else if r, g, b, ok := parseColor(st.fill); ok {
		c.pdf.SetFillColor(r, g, b)
		c.pdf.SetAlpha(clamp01(st.opacity*st.fillOpacity), "Normal")
		c.path(segs, m)
		c.pdf.DrawPath("F")
	}
	if r, g, b, ok := parseColor(st.stroke); ok && st.strokeWidth > 0 {
		c.pdf.SetDrawColor(r, g, b)
		c.pdf.SetAlpha(clamp01(st.opacity*st.strokeOpacity), "Normal")
		c.pdf.SetLineWidth(st.strokeWidth * m.scale())
		c.pdf.SetLineCapStyle("butt")
		c.pdf.SetLineJoinStyle("miter")
		if len(st.dash) > 0 {
			d := make([]float64, len(st.dash))
			for i, v := range st.dash {
				d[i] = v * m.scale()
			}
			c.pdf.SetDashPattern(d, 0)
		}
		c.path(segs, m)
		c.pdf.DrawPath("D")
		if len(st.dash) > 0 {
			c.pdf.SetDashPattern(nil, 0)
		}
	}
}

// path adds segs, transformed by m, as the current PDF path.
func (c *svgCanvas) path(segs []segment, m matrix) {
	for _, s := range segs {
		switch s.op {
		case 'M':
			c.pdf.MoveTo(m.apply(s.pts[0], s.pts[1]))
		case 'L':
			c.pdf.LineTo(m.apply(s.pts[0], s.pts[1]))
		case 'C':
			x1, y1 := m.apply(s.pts[0], s.pts[1])
			x2, y2 := m.apply(s.pts[2], s.pts[3])
			x3, y3 := m.apply(s.pts[4], s.pts[5])
			c.pdf.CurveBezierCubicTo(x1, y1, x2, y2, x3, y3)
		case 'Z':
			c.pdf.ClosePath()
		}
	}
}

// text draws a <text> element (its own text and any <tspan>s', on one
// line) at its origin, rotated with its transform.
func (c *svgCanvas) text(n *svgNode, m matrix, st style) {
	s := strings.Join(strings.Fields(collectText(n)), " ")
	r, g, b, ok := parseColor(st.fill)
	if s == "" || !ok {
		return
	}
	v := attrNums(n, "x", "y", "dx", "dy")
	x, y := m.apply(v[0]+v[2], v[1]+v[3])
	size := st.fontSize * m.scale()
	bold := st.fontWeight == "bold" || st.fontWeight == "bolder" || (len(st.fontWeight) == 3 && st.fontWeight >= "600")
	italic := st.fontStyle == "italic" || st.fontStyle == "oblique"
	s = c.fonts.chart(c.pdf, s, bold, italic, size)
	w := c.pdf.GetStringWidth(s)
	switch st.anchor {
	case "middle":
		x -= w / 2
	case "end":
		x -= w
	}
	c.pdf.SetTextColor(r, g, b)
	c.pdf.SetAlpha(clamp01(st.opacity*st.fillOpacity), "Normal")
	angle := math.Atan2(m.b, m.a) * 180 / math.Pi
	if math.Abs(angle) > 0.01 {
		ox, oy := m.apply(v[0]+v[2], v[1]+v[3])
		c.pdf.TransformBegin()
		c.pdf.TransformRotate(-angle, ox, oy)
		c.pdf.Text(x, y, s)
		c.pdf.TransformEnd()
	} else {
		c.pdf.Text(x, y, s)
	}
	c.pdf.SetTextColor(0, 0, 0)
}

func collectText(n *svgNode) string {
	s := n.text
	for _, ch := range n.children {
		if ch.name == "tspan" {
			s += " " + collectText(ch)
		}
	}
	return s
}
