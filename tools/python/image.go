package python

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	goimage "image"
	_ "image/jpeg" // DecodeConfig of JPEG figures
	_ "image/png"  // DecodeConfig of PNG figures
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/loupeapp/loupe/tools/python/sandbox"
)

// image is a figure the run saved, ready to inline in a chart.
type image struct {
	name          string
	mediaType     string
	data          []byte
	width, height int // pixels; 0 when unknown
}

// asImage recognises PNG, JPEG and SVG files by content, not by name.
func asImage(f sandbox.File) (image, bool) {
	switch strings.ToLower(path.Ext(f.Name)) {
	case ".png", ".jpg", ".jpeg":
		cfg, format, err := goimage.DecodeConfig(bytes.NewReader(f.Data))
		if err != nil {
			return image{}, false
		}
		mt := "image/png"
		if format == "jpeg" {
			mt = "image/jpeg"
		}
		return image{name: f.Name, mediaType: mt, data: f.Data, width: cfg.Width, height: cfg.Height}, true
	case ".svg":
		head := f.Data[:min(len(f.Data), 4096)]
		if !bytes.Contains(head, []byte("<svg")) {
			return image{}, false
		}
		w, h := svgSize(head)
		return image{name: f.Name, mediaType: "image/svg+xml", data: f.Data, width: w, height: h}, true
	}
	return image{}, false
}

var (
	svgWidth  = regexp.MustCompile(`<svg[^>]*?\swidth="([0-9.]+)(pt|px)?"`)
	svgHeight = regexp.MustCompile(`<svg[^>]*?\sheight="([0-9.]+)(pt|px)?"`)
)

// svgSize reads an SVG's size in pixels (matplotlib writes points).
func svgSize(b []byte) (int, int) {
	px := func(m [][]byte) int {
		if m == nil {
			return 0
		}
		v, err := strconv.ParseFloat(string(m[1]), 64)
		if err != nil {
			return 0
		}
		if string(m[2]) == "pt" {
			v *= 4.0 / 3
		}
		return int(v + 0.5)
	}
	return px(svgWidth.FindSubmatch(b)), px(svgHeight.FindSubmatch(b))
}

// maxChartWidth is the widest an image is drawn; bigger ones are scaled
// down keeping their shape.
const maxChartWidth = 800

// imageSpec is a Vega-Lite chart showing the images one above the other,
// each inlined as a data URL in an image mark: charts carry their data
// inline, so the figure travels with the trace, the chat and the report.
func imageSpec(title string, imgs []image) ([]byte, error) {
	views := make([]map[string]any, len(imgs))
	for i, img := range imgs {
		w, h := img.width, img.height
		if w <= 0 || h <= 0 {
			w, h = 640, 480
		}
		if w > maxChartWidth {
			h = h * maxChartWidth / w
			w = maxChartWidth
		}
		url := "data:" + img.mediaType + ";base64," + base64.StdEncoding.EncodeToString(img.data)
		views[i] = map[string]any{
			"width": w, "height": h,
			"data":     map[string]any{"values": []map[string]string{{"url": url, "name": img.name}}},
			"mark":     map[string]any{"type": "image", "width": w, "height": h},
			"encoding": map[string]any{"url": map[string]string{"field": "url", "type": "nominal"}, "x": map[string]any{"value": w / 2}, "y": map[string]any{"value": h / 2}},
		}
	}
	spec := map[string]any{
		"$schema": "https://vega.github.io/schema/vega-lite/v6.json",
		"title":   title,
		"config":  map[string]any{"view": map[string]any{"stroke": nil}},
	}
	if len(views) == 1 {
		for k, v := range views[0] {
			spec[k] = v
		}
	} else {
		spec["vconcat"] = views
	}
	return json.Marshal(spec)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("run_python: encode the run's detail: " + err.Error()) // plain structs only
	}
	return b
}
