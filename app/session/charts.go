package session

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"strings"
)

// maxChartBytes caps a saved chart image; a chart is a few hundred KB.
const maxChartBytes = 64 << 20

// pngMagic starts every PNG file.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// ChartImage decodes and checks a chart image the window sent: format
// "png" with data in base64 (or a data: URL), or "svg" with data the SVG
// text. Anything else, or too large, is CodeInvalid.
func ChartImage(format, data string) ([]byte, error) {
	if len(data) > maxChartBytes*4/3+64 {
		return nil, NewError(CodeInvalid, "The chart image is too large to save.", "Export a smaller chart, or save it as SVG.")
	}
	switch format {
	case "png":
		if _, b64, ok := strings.Cut(data, ";base64,"); ok && strings.HasPrefix(data, "data:") {
			data = b64
		}
		img, err := base64.StdEncoding.DecodeString(data)
		if err != nil || !bytes.HasPrefix(img, pngMagic) {
			return nil, NewError(CodeInvalid, "The chart image is not a PNG.", "Draw the chart again, then save it.")
		}
		return img, nil
	case "svg":
		if !strings.Contains(data[:min(len(data), 4096)], "<svg") {
			return nil, NewError(CodeInvalid, "The chart image is not an SVG.", "Draw the chart again, then save it.")
		}
		return []byte(data), nil
	}
	return nil, NewError(CodeInvalid, "A chart is saved as png or svg, not "+format+".", "")
}

var unsafeName = regexp.MustCompile(`[^\p{L}\p{N}]+`)

// ChartFileName makes a file name from a chart's title: words joined by
// dashes, at most 60 characters; "chart" when nothing is left.
func ChartFileName(title string) string {
	n := strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if r := []rune(n); len(r) > 60 {
		n = strings.TrimRight(string(r[:60]), "-")
	}
	if n == "" {
		return "chart"
	}
	return n
}
