package pdf

import (
	"embed"
	"strings"
	"unicode"

	"github.com/go-pdf/fpdf"
)

// fonts holds DejaVu Sans (fonts/LICENSE.txt): embedded in every PDF,
// subset to the glyphs used, it covers Latin, Greek and Cyrillic with
// their accents. It has no CJK glyphs; such characters are replaced when
// written (see fontSet.clean).
//
//go:embed fonts/DejaVuSans.ttf fonts/DejaVuSans-Bold.ttf fonts/DejaVuSans-Oblique.ttf fonts/DejaVuSansMono.ttf
var fontFiles embed.FS

const (
	sans = "dejavu"
	mono = "dejavumono"
)

// fontSet registers the fonts on a document and knows which runes they draw.
type fontSet struct {
	toCP1252 func(string) string
}

func newFontSet(p *fpdf.Fpdf) *fontSet {
	for _, f := range []struct{ family, style, file string }{
		{sans, "", "DejaVuSans.ttf"}, {sans, "B", "DejaVuSans-Bold.ttf"},
		{sans, "I", "DejaVuSans-Oblique.ttf"}, {sans, "BI", "DejaVuSans-Bold.ttf"},
		{mono, "", "DejaVuSansMono.ttf"},
	} {
		b, err := fontFiles.ReadFile("fonts/" + f.file)
		if err != nil {
			p.SetError(err)
			continue
		}
		p.AddUTF8FontFromBytes(f.family, f.style, b)
	}
	return &fontSet{toCP1252: p.UnicodeTranslatorFromDescriptor("")}
}

// replacement stands for a character no embedded font can draw.
const replacement = '□'

// clean replaces the runes DejaVu Sans cannot draw (CJK among them) with
// a white square, so that the reader sees something is missing instead of
// a blank, and drops control characters.
func (fs *fontSet) clean(s string) string {
	if isSimple(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return ' '
		case unicode.IsControl(r):
			return -1
		case r < 0x2E80: // DejaVu's coverage ends before CJK radicals; below it gaps are rare and drawn as its own .notdef
			return r
		case r >= 0xFB00 && r <= 0xFFFD && !(r >= 0xFF00 && r <= 0xFFEF):
			return r
		}
		return replacement
	}, s)
}

// cp1252High are the characters Windows-1252 puts at 0x80–0x9F.
const cp1252High = "€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ"

// inCP1252 reports whether every character of s has a Windows-1252 code,
// which the PDF core fonts are written in.
func inCP1252(s string) bool {
	for _, r := range s {
		if (r < 0x20 || r > 0x7e) && (r < 0xa0 || r > 0xff) && !strings.ContainsRune(cp1252High, r) {
			return false
		}
	}
	return true
}

func isSimple(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] < 0x20 {
			return false
		}
	}
	return true
}

// chart selects the font for a chart's label and returns the text to
// write: Helvetica (a PDF core font) when the text fits its Windows-1252
// encoding, because Vega measured it with Helvetica's widths and laid the
// chart out for them; DejaVu Sans otherwise.
func (fs *fontSet) chart(p *fpdf.Fpdf, s string, bold, italic bool, size float64) string {
	style := ""
	if bold {
		style += "B"
	}
	if italic {
		style += "I"
	}
	if inCP1252(s) {
		p.SetFont("Helvetica", style, size)
		return fs.toCP1252(s)
	}
	p.SetFont(sans, style, size)
	return fs.clean(s)
}
