package pdf

import (
	"math"
	"strconv"
	"strings"
)

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }

// namedColors are the CSS colour keywords Vega's default theme and common
// specs use; others fall back to grey rather than vanish.
var namedColors = map[string][3]int{
	"black": {0, 0, 0}, "white": {255, 255, 255}, "red": {255, 0, 0}, "green": {0, 128, 0}, "blue": {0, 0, 255},
	"gray": {128, 128, 128}, "grey": {128, 128, 128}, "lightgray": {211, 211, 211}, "lightgrey": {211, 211, 211},
	"darkgray": {169, 169, 169}, "darkgrey": {169, 169, 169}, "orange": {255, 165, 0}, "steelblue": {70, 130, 180},
	"yellow": {255, 255, 0}, "purple": {128, 0, 128}, "brown": {165, 42, 42}, "pink": {255, 192, 203},
	"teal": {0, 128, 128}, "navy": {0, 0, 128}, "silver": {192, 192, 192}, "firebrick": {178, 34, 34},
	"darkblue": {0, 0, 139}, "darkgreen": {0, 100, 0}, "darkred": {139, 0, 0}, "gold": {255, 215, 0},
}

// parseColor reads #rgb, #rrggbb, rgb()/rgba() and colour names; "none",
// "transparent", "" and url() are not colours.
func parseColor(s string) (r, g, b int, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case s == "" || s == "none" || s == "transparent" || strings.HasPrefix(s, "url("):
		return 0, 0, 0, false
	case strings.HasPrefix(s, "#") && len(s) == 4:
		v, err := strconv.ParseUint(s[1:], 16, 16)
		if err != nil {
			return 0, 0, 0, false
		}
		return int(v>>8&0xf) * 17, int(v>>4&0xf) * 17, int(v&0xf) * 17, true
	case strings.HasPrefix(s, "#") && len(s) == 7:
		v, err := strconv.ParseUint(s[1:], 16, 32)
		if err != nil {
			return 0, 0, 0, false
		}
		return int(v >> 16 & 0xff), int(v >> 8 & 0xff), int(v & 0xff), true
	case strings.HasPrefix(s, "rgb"):
		open, end := strings.IndexByte(s, '('), strings.IndexByte(s, ')')
		if open < 0 || end < open {
			return 0, 0, 0, false
		}
		v := numbers(strings.ReplaceAll(s[open+1:end], "%", ""))
		if len(v) < 3 {
			return 0, 0, 0, false
		}
		return int(v[0]), int(v[1]), int(v[2]), true
	}
	if c, ok := namedColors[s]; ok {
		return c[0], c[1], c[2], true
	}
	return 128, 128, 128, true
}
