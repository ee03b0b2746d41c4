package pdf

import (
	"math"
	"strconv"
)

// segment is one step of a path in absolute coordinates: M and L take a
// point, C two control points and the end point, Z none. Every SVG path
// command reduces to these (quadratic curves and arcs become cubics).
type segment struct {
	op  byte
	pts []float64
}

func rectSegments(x, y, w, h float64) []segment {
	return []segment{
		{op: 'M', pts: []float64{x, y}}, {op: 'L', pts: []float64{x + w, y}},
		{op: 'L', pts: []float64{x + w, y + h}}, {op: 'L', pts: []float64{x, y + h}}, {op: 'Z'},
	}
}

func ellipseSegments(cx, cy, rx, ry float64) []segment {
	if rx <= 0 || ry <= 0 {
		return nil
	}
	segs := []segment{{op: 'M', pts: []float64{cx + rx, cy}}}
	segs = append(segs, arcSegments(cx+rx, cy, rx, ry, 0, false, true, cx-rx, cy)...)
	segs = append(segs, arcSegments(cx-rx, cy, rx, ry, 0, false, true, cx+rx, cy)...)
	return append(segs, segment{op: 'Z'})
}

// pathTokens splits path data into commands and numbers.
type pathTokens struct {
	s string
	i int
}

// skipSeparators moves past the whitespace and commas between an SVG
// path's commands and numbers.
func (t *pathTokens) skipSeparators() {
	for t.i < len(t.s) && (t.s[t.i] == ' ' || t.s[t.i] == ',' || t.s[t.i] == '\n' || t.s[t.i] == '\t' || t.s[t.i] == '\r') {
		t.i++
	}
}

// command returns the next command letter, if one is next.
func (t *pathTokens) command() (byte, bool) {
	t.skipSeparators()
	if t.i < len(t.s) {
		c := t.s[t.i]
		if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') && c != 'e' && c != 'E' {
			t.i++
			return c, true
		}
	}
	return 0, false
}

// number reads the next number; ok is false at a command or the end.
func (t *pathTokens) number() (float64, bool) {
	t.skipSeparators()
	start := t.i
	if t.i < len(t.s) && (t.s[t.i] == '-' || t.s[t.i] == '+') {
		t.i++
	}
	dot, digits := false, false
	for t.i < len(t.s) {
		c := t.s[t.i]
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c == '.' && !dot:
			dot = true
		case (c == 'e' || c == 'E') && digits:
			t.i++
			if t.i < len(t.s) && (t.s[t.i] == '-' || t.s[t.i] == '+') {
				t.i++
			}
			continue
		default:
			goto done
		}
		t.i++
	}
done:
	if !digits {
		t.i = start
		return 0, false
	}
	v, err := strconv.ParseFloat(t.s[start:t.i], 64)
	return v, err == nil
}

// flag reads an arc flag, which may be written without a separator.
func (t *pathTokens) flag() (bool, bool) {
	t.skipSeparators()
	if t.i < len(t.s) && (t.s[t.i] == '0' || t.s[t.i] == '1') {
		t.i++
		return t.s[t.i-1] == '1', true
	}
	return false, false
}

// pathSegments parses SVG path data. Malformed data ends the path where
// it goes wrong: what was read so far is drawn.
func pathSegments(d string) []segment {
	t := &pathTokens{s: d}
	var segs []segment
	var cx, cy, sx, sy float64 // current point, subpath start
	var lcx, lcy float64       // last control point (for S and T)
	var last byte              // last command, upper case
	cmd := byte(0)
	for {
		if c, ok := t.command(); ok {
			cmd = c
		} else if cmd == 0 || t.i >= len(t.s) {
			return segs
		}
		rel := cmd >= 'a'
		up := cmd &^ 0x20
		ox, oy := 0.0, 0.0
		if rel {
			ox, oy = cx, cy
		}
		nums := func(n int) ([]float64, bool) {
			v := make([]float64, n)
			for i := range v {
				x, ok := t.number()
				if !ok {
					return nil, false
				}
				v[i] = x
			}
			return v, true
		}
		switch up {
		case 'Z':
			segs = append(segs, segment{op: 'Z'})
			cx, cy = sx, sy
			last = 'Z'
			cmd = 0
			continue
		case 'M', 'L', 'T':
			v, ok := nums(2)
			if !ok {
				return segs
			}
			x, y := v[0]+ox, v[1]+oy
			switch up {
			case 'M':
				segs = append(segs, segment{op: 'M', pts: []float64{x, y}})
				sx, sy = x, y
				if rel {
					cmd = 'l'
				} else {
					cmd = 'L'
				}
			case 'L':
				segs = append(segs, segment{op: 'L', pts: []float64{x, y}})
			case 'T':
				qx, qy := cx, cy
				if last == 'Q' || last == 'T' {
					qx, qy = 2*cx-lcx, 2*cy-lcy
				}
				segs = append(segs, quad(cx, cy, qx, qy, x, y))
				lcx, lcy = qx, qy
			}
			cx, cy = x, y
		case 'H':
			v, ok := nums(1)
			if !ok {
				return segs
			}
			cx = v[0] + ox
			segs = append(segs, segment{op: 'L', pts: []float64{cx, cy}})
		case 'V':
			v, ok := nums(1)
			if !ok {
				return segs
			}
			cy = v[0] + oy
			segs = append(segs, segment{op: 'L', pts: []float64{cx, cy}})
		case 'C':
			v, ok := nums(6)
			if !ok {
				return segs
			}
			segs = append(segs, segment{op: 'C', pts: []float64{v[0] + ox, v[1] + oy, v[2] + ox, v[3] + oy, v[4] + ox, v[5] + oy}})
			lcx, lcy = v[2]+ox, v[3]+oy
			cx, cy = v[4]+ox, v[5]+oy
		case 'S':
			v, ok := nums(4)
			if !ok {
				return segs
			}
			x1, y1 := cx, cy
			if last == 'C' || last == 'S' {
				x1, y1 = 2*cx-lcx, 2*cy-lcy
			}
			segs = append(segs, segment{op: 'C', pts: []float64{x1, y1, v[0] + ox, v[1] + oy, v[2] + ox, v[3] + oy}})
			lcx, lcy = v[0]+ox, v[1]+oy
			cx, cy = v[2]+ox, v[3]+oy
		case 'Q':
			v, ok := nums(4)
			if !ok {
				return segs
			}
			segs = append(segs, quad(cx, cy, v[0]+ox, v[1]+oy, v[2]+ox, v[3]+oy))
			lcx, lcy = v[0]+ox, v[1]+oy
			cx, cy = v[2]+ox, v[3]+oy
		case 'A':
			v, ok := nums(3)
			if !ok {
				return segs
			}
			large, ok1 := t.flag()
			sweep, ok2 := t.flag()
			end, ok3 := nums(2)
			if !ok1 || !ok2 || !ok3 {
				return segs
			}
			x, y := end[0]+ox, end[1]+oy
			segs = append(segs, arcSegments(cx, cy, v[0], v[1], v[2], large, sweep, x, y)...)
			cx, cy = x, y
		default:
			return segs // an unknown command: stop here
		}
		last = up
	}
}

// quad is the quadratic Bézier from (x0,y0) via (qx,qy) to (x,y) as a cubic.
func quad(x0, y0, qx, qy, x, y float64) segment {
	return segment{op: 'C', pts: []float64{
		x0 + 2.0/3*(qx-x0), y0 + 2.0/3*(qy-y0),
		x + 2.0/3*(qx-x), y + 2.0/3*(qy-y), x, y,
	}}
}

// arcSegments converts an SVG elliptical arc (endpoint form) to cubic
// Béziers of at most a quarter turn each (SVG 1.1 implementation notes F.6).
func arcSegments(x1, y1, rx, ry, phiDeg float64, large, sweep bool, x2, y2 float64) []segment {
	if x1 == x2 && y1 == y2 {
		return nil
	}
	rx, ry = math.Abs(rx), math.Abs(ry)
	if rx == 0 || ry == 0 {
		return []segment{{op: 'L', pts: []float64{x2, y2}}}
	}
	phi := phiDeg * math.Pi / 180
	cos, sin := math.Cos(phi), math.Sin(phi)
	dx, dy := (x1-x2)/2, (y1-y2)/2
	x1p, y1p := cos*dx+sin*dy, -sin*dx+cos*dy
	if l := x1p*x1p/(rx*rx) + y1p*y1p/(ry*ry); l > 1 {
		rx, ry = rx*math.Sqrt(l), ry*math.Sqrt(l)
	}
	num := rx*rx*ry*ry - rx*rx*y1p*y1p - ry*ry*x1p*x1p
	den := rx*rx*y1p*y1p + ry*ry*x1p*x1p
	co := math.Sqrt(math.Max(0, num/den))
	if large == sweep {
		co = -co
	}
	cxp, cyp := co*rx*y1p/ry, -co*ry*x1p/rx
	cx := cos*cxp - sin*cyp + (x1+x2)/2
	cy := sin*cxp + cos*cyp + (y1+y2)/2
	angle := func(ux, uy, vx, vy float64) float64 {
		return math.Atan2(ux*vy-uy*vx, ux*vx+uy*vy)
	}
	t1 := angle(1, 0, (x1p-cxp)/rx, (y1p-cyp)/ry)
	dt := angle((x1p-cxp)/rx, (y1p-cyp)/ry, (-x1p-cxp)/rx, (-y1p-cyp)/ry)
	if !sweep && dt > 0 {
		dt -= 2 * math.Pi
	} else if sweep && dt < 0 {
		dt += 2 * math.Pi
	}
	n := int(math.Ceil(math.Abs(dt) / (math.Pi / 2)))
	step := dt / float64(n)
	k := 4.0 / 3 * math.Tan(step/4)
	point := func(t float64) (float64, float64, float64, float64) { // point and derivative
		ex, ey := rx*math.Cos(t), ry*math.Sin(t)
		dx, dy := -rx*math.Sin(t), ry*math.Cos(t)
		return cos*ex - sin*ey + cx, sin*ex + cos*ey + cy, cos*dx - sin*dy, sin*dx + cos*dy
	}
	segs := make([]segment, 0, n)
	for i := range n {
		a, b := t1+float64(i)*step, t1+float64(i+1)*step
		ax, ay, adx, ady := point(a)
		bx, by, bdx, bdy := point(b)
		if i == n-1 {
			bx, by = x2, y2
		}
		segs = append(segs, segment{op: 'C', pts: []float64{ax + k*adx, ay + k*ady, bx - k*bdx, by - k*bdy, bx, by}})
	}
	return segs
}
