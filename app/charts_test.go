package app_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/app"
)

func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{R: 59, G: 91, B: 219, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSaveChartWritesTheImageWhereTheDialogSays(t *testing.T) {
	e := newEnv(t, setup{})
	pic := pngBytes(t)
	b64 := base64.StdEncoding.EncodeToString(pic)
	const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>`
	for _, tc := range []struct {
		name, title, format, data string
		file                      string
		want                      []byte
		code                      string
	}{
		{name: "png as base64", title: "Orders by region", format: "png", data: b64, file: "orders-by-region.png", want: pic},
		{name: "png as a data URL", title: "Revenue: 2024 vs 2023!", format: "png", data: "data:image/png;base64," + b64, file: "revenue-2024-vs-2023.png", want: pic},
		{name: "svg text", title: "Städte", format: "svg", data: svg, file: "städte.svg", want: []byte(svg)},
		{name: "no title", title: "  ", format: "svg", data: svg, file: "chart.svg", want: []byte(svg)},
		{name: "not a png", title: "x", format: "png", data: base64.StdEncoding.EncodeToString([]byte("GIF89a")), code: app.CodeInvalid},
		{name: "not base64", title: "x", format: "png", data: "%%%", code: app.CodeInvalid},
		{name: "not an svg", title: "x", format: "svg", data: "<html></html>", code: app.CodeInvalid},
		{name: "unknown format", title: "x", format: "pdf", data: b64, code: app.CodeInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, err := e.app.SaveChart(tc.title, tc.format, tc.data)
			if tc.code != "" {
				if codeOf(t, err) != tc.code || path != nil {
					t.Fatalf("got path %v, error %v; want code %s", path, err, tc.code)
				}
				return
			}
			if err != nil || path == nil {
				t.Fatalf("path %v, error %v", path, err)
			}
			if *path != filepath.Join(e.saveDir, tc.file) {
				t.Errorf("saved to %s, want %s", *path, filepath.Join(e.saveDir, tc.file))
			}
			got, err := os.ReadFile(*path)
			if err != nil || !bytes.Equal(got, tc.want) {
				t.Errorf("file holds %d bytes (%v), want %d", len(got), err, len(tc.want))
			}
		})
	}
}

func TestSaveChartCanceledWritesNothing(t *testing.T) {
	a := app.New(app.Options{WorkspaceDir: t.TempDir(), ConfigDir: t.TempDir(), Keychain: app.NewMemoryKeychain(),
		Dialogs: app.SaveInto{}, Getenv: func(string) string { return "" }})
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	path, err := a.SaveChart("Orders", "png", base64.StdEncoding.EncodeToString(pngBytes(t)))
	if err != nil || path != nil {
		t.Fatalf("canceled dialog: path %v, error %v", path, err)
	}
}

// ChartRendered puts the page's render time in the app's log, where
// make smoke reads it; values no page measures are refused.
func TestChartRenderedIsLogged(t *testing.T) {
	var buf bytes.Buffer
	a := app.New(app.Options{WorkspaceDir: t.TempDir(), ConfigDir: t.TempDir(), Keychain: app.NewMemoryKeychain(),
		Logger: slog.New(slog.NewTextHandler(&buf, nil)), Getenv: func(string) string { return "" }})
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	if err := a.ChartRendered(10000, "canvas", 231.6); err != nil {
		t.Fatal(err)
	}
	if want := `msg="chart rendered" subsystem=app rows=10000 renderer=canvas ms=231`; !strings.Contains(buf.String(), want) {
		t.Errorf("log %q, want a line with %q", buf.String(), want)
	}
	for _, bad := range []struct {
		rows     int
		renderer string
		ms       float64
	}{{-1, "svg", 1}, {10, "webgl", 1}, {10, "svg", -1}, {10, "svg", math.NaN()}, {10, "svg", math.Inf(1)}} {
		if err := a.ChartRendered(bad.rows, bad.renderer, bad.ms); codeOf(t, err) != app.CodeInvalid {
			t.Errorf("ChartRendered(%d, %q, %v) = %v, want code %s", bad.rows, bad.renderer, bad.ms, err, app.CodeInvalid)
		}
	}
}
