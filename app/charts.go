package app

import (
	"bytes"
	"encoding/base64"
	"path/filepath"
	"regexp"
	"strings"
)

// maxChartBytes caps a saved chart image; a chart is a few hundred KB.
const maxChartBytes = 64 << 20

// pngMagic starts every PNG file.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// SaveChart saves a chart image the frontend rendered, through the native
// save dialog, and returns the path written, or null when the user
// canceled. format is "png", with data the image in base64 (a data: URL
// is accepted too), or "svg", with data the SVG text. name is the
// suggested file name, without extension. (In a browser there is no
// dialog: the frontend downloads the image itself.)
func (a *App) SaveChart(name, format, data string) (*string, error) {
	img, err := chartBytes(format, data)
	if err != nil {
		return nil, err
	}
	filter := FileFilter{Name: "PNG images", Pattern: "*.png"}
	if format == "svg" {
		filter = FileFilter{Name: "SVG images", Pattern: "*.svg"}
	}
	path, err := a.opts.Dialogs.SaveFile(DialogOptions{Title: "Save the chart", DefaultName: chartFileName(name) + "." + format,
		Filters: []FileFilter{filter}})
	if err != nil || path == "" {
		return nil, wrap(err)
	}
	if filepath.Ext(path) == "" {
		path += "." + format
	}
	if err := writeBytesAtomic(path, 0o644, img); err != nil {
		return nil, fileError(path, "cannot write the chart", err)
	}
	return &path, nil
}

// chartBytes decodes and checks a chart image the frontend sent.
func chartBytes(format, data string) ([]byte, error) {
	if len(data) > maxChartBytes*4/3+64 {
		return nil, newError(CodeInvalid, "The chart image is too large to save.", "Export a smaller chart, or save it as SVG.")
	}
	switch format {
	case "png":
		if _, b64, ok := strings.Cut(data, ";base64,"); ok && strings.HasPrefix(data, "data:") {
			data = b64
		}
		img, err := base64.StdEncoding.DecodeString(data)
		if err != nil || !bytes.HasPrefix(img, pngMagic) {
			return nil, newError(CodeInvalid, "The chart image is not a PNG.", "Draw the chart again, then save it.")
		}
		return img, nil
	case "svg":
		if !strings.Contains(data[:min(len(data), 4096)], "<svg") {
			return nil, newError(CodeInvalid, "The chart image is not an SVG.", "Draw the chart again, then save it.")
		}
		return []byte(data), nil
	}
	return nil, newError(CodeInvalid, "A chart is saved as png or svg, not "+format+".", "")
}

var unsafeName = regexp.MustCompile(`[^\p{L}\p{N}]+`)

// chartFileName makes a file name from a chart's title: words joined by
// dashes, at most 60 characters; "chart" when nothing is left.
func chartFileName(title string) string {
	n := strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if r := []rune(n); len(r) > 60 {
		n = strings.TrimRight(string(r[:60]), "-")
	}
	if n == "" {
		return "chart"
	}
	return n
}
