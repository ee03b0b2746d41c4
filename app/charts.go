package app

import (
	"path/filepath"

	"github.com/loupeapp/loupe/app/session"
)

// SaveChart saves a chart image the frontend rendered, through the native
// save dialog, and returns the path written, or null when the user
// canceled. format is "png", with data the image in base64 (a data: URL
// is accepted too), or "svg", with data the SVG text. name is the
// suggested file name, without extension. (In a browser there is no
// dialog: the frontend downloads the image itself.)
func (a *App) SaveChart(name, format, data string) (*string, error) {
	img, err := session.ChartImage(format, data)
	if err != nil {
		return nil, err
	}
	filter := FileFilter{Name: "PNG images", Pattern: "*.png"}
	if format == "svg" {
		filter = FileFilter{Name: "SVG images", Pattern: "*.svg"}
	}
	path, err := a.opts.Dialogs.SaveFile(DialogOptions{Title: "Save the chart", DefaultName: session.ChartFileName(name) + "." + format,
		Filters: []FileFilter{filter}})
	if err != nil || path == "" {
		return nil, wrap(err)
	}
	if filepath.Ext(path) == "" {
		path += "." + format
	}
	if err := session.WriteBytesAtomic(path, 0o644, img); err != nil {
		return nil, fileError(path, "cannot write the chart", err)
	}
	return &path, nil
}
