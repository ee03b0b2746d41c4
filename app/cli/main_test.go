package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/data/workspace"
)

// TestMain gives every test of the package a workspace and config folder
// of its own: a command a test runs without --workspace (or a child process
// it starts) reaches these, never the user's own store and settings.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "loupe-cli-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cli tests: make a home:", err)
		os.Exit(2)
	}
	// Only Loupe's own variables: HOME and XDG_* stay, so the go builds
	// some tests run keep their cache and module folders.
	os.Setenv(workspace.EnvDir, filepath.Join(home, "workspace"))
	os.Setenv(config.EnvDir, filepath.Join(home, "config"))
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}
