package vega

import (
	"strconv"
	"unicode"
)

// Text measurement without a canvas. Vega's own fallback guesses every
// character at 0.8 em, which overestimates Latin text by ~40% and leaves
// wide gaps beside axis labels and legends. Instead the engine measures with
// Helvetica's advance widths (Arial has the same), which is what most
// viewers substitute for "sans-serif"; DejaVu Sans, the Linux default, is
// ~8% wider, which Vega's label padding absorbs.

// helvetica and helveticaBold are advance widths in 1/1000 em for ASCII
// 32..126 (Adobe's core-font metrics).
var helvetica = [95]uint16{
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space … /
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0 … ?
	1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @ … O
	667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P … _
	333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // ` … o
	556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p … ~
}

var helveticaBold = [95]uint16{
	278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
	975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
	667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
	333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
	611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
}

// textWidth returns the width in px of s set in size px Helvetica; weight is
// Vega's fontWeight ("bold", "600", "" …).
func textWidth(s string, size float64, weight string) float64 {
	table := &helvetica
	if isBold(weight) {
		table = &helveticaBold
	}
	var units float64
	for _, r := range s {
		switch {
		case r >= 32 && r <= 126:
			units += float64(table[r-32])
		case isWide(r):
			units += 1000
		case unicode.Is(unicode.Mn, r): // combining marks take no space
		case unicode.IsUpper(r):
			units += 690
		default:
			units += 556
		}
	}
	return units * size / 1000
}

func isBold(weight string) bool {
	switch weight {
	case "bold", "bolder":
		return true
	}
	n, err := strconv.Atoi(weight)
	return err == nil && n >= 600
}

// isWide reports whether r is usually set full-width (CJK, Hangul, kana,
// full-width forms).
func isWide(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hangul, unicode.Hiragana, unicode.Katakana) ||
		(r >= 0xFF01 && r <= 0xFF60) || (r >= 0x3000 && r <= 0x303F)
}

// metricsJS makes Vega measure text with textWidth (installed as
// __loupeTextWidth). Vega calls textMetrics.width for bounds, label overlap
// and truncation; with a limit the text is cut to fit, so its width is at
// most the limit.
const metricsJS = `
vega.textMetrics.width = function (item, text) {
  var t = text == null ? '' : String(text).trim();
  var size = item.fontSize != null ? +item.fontSize || 0 : 11;
  if (size <= 0 || !t) return 0;
  var w = __loupeTextWidth(t, size, item.fontWeight == null ? '' : String(item.fontWeight));
  return item.limit > 0 ? Math.min(w, +item.limit) : w;
};
`
