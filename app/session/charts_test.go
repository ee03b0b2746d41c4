package session

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestChartImage(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), "rest"...)
	b64 := base64.StdEncoding.EncodeToString(png)
	tests := []struct {
		name, format, data string
		want               string // the bytes, or "" for a CodeInvalid error
	}{
		{"png", "png", b64, string(png)},
		{"png as a data URL", "png", "data:image/png;base64," + b64, string(png)},
		{"not a png", "png", base64.StdEncoding.EncodeToString([]byte("GIF89a")), ""},
		{"not base64", "png", "!!!", ""},
		{"svg", "svg", `<svg xmlns="http://www.w3.org/2000/svg"></svg>`, `<svg xmlns="http://www.w3.org/2000/svg"></svg>`},
		{"not an svg", "svg", "<html></html>", ""},
		{"unknown format", "gif", b64, ""},
		{"too large", "svg", "<svg>" + strings.Repeat("x", maxChartBytes*4/3+64), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ChartImage(tt.format, tt.data)
			if tt.want == "" {
				var e *Error
				if !errors.As(err, &e) || e.Code != CodeInvalid {
					t.Fatalf("ChartImage = %q, %v; want a %s error", got, err, CodeInvalid)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("ChartImage = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestChartFileName(t *testing.T) {
	for title, want := range map[string]string{
		"Sales by Region (2024)":  "sales-by-region-2024",
		"Größe / Ümsatz":          "größe-ümsatz",
		"???":                     "chart",
		strings.Repeat("ab ", 40): strings.TrimRight(strings.Repeat("ab-", 20), "-"),
	} {
		if got := ChartFileName(title); got != want {
			t.Errorf("ChartFileName(%q) = %q, want %q", title, got, want)
		}
	}
}
