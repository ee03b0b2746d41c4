// Command windowbase is the baseline of the window benchmark
// (scripts/window-bench.sh): an empty Wails v2 window with Loupe's window
// options and nothing else, so that Loupe's start time and memory can be
// read against what WebKitGTK and Wails cost on the same machine.
package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

//go:embed page
var page embed.FS

func main() {
	dist, err := fs.Sub(page, "page")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	started := time.Now()
	err = wails.Run(&options.App{
		Title: "Loupe", Width: 1280, Height: 800,
		AssetServer:      &assetserver.Options{Assets: dist},
		BackgroundColour: options.NewRGB(0xf6, 0xf7, 0xf9),
		// The same line Loupe logs, read the same way.
		OnDomReady: func(context.Context) {
			slog.Info("window ready", "subsystem", "app", "since_main", time.Since(started).Round(time.Millisecond), "unix_ms", time.Now().UnixMilli())
		},
		Linux: &linux.Options{WebviewGpuPolicy: linux.WebviewGpuPolicyNever},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
