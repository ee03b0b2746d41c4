package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/tools/python/sandbox"
	"github.com/loupeapp/loupe/tools/python/sandbox/sandboxtest"
)

// newSandbox returns a sandbox on the test daemon and image with limits
// (zero fields take the defaults).
func newSandbox(t testing.TB, limits sandbox.Limits) *sandbox.Sandbox {
	t.Helper()
	host, image := sandboxtest.Image(t)
	sb, err := sandbox.New(sandbox.Config{Host: host, Image: image, Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// newSession returns a session whose inputs folder holds files (name →
// content); it is closed when t ends.
func newSession(t testing.TB, sb *sandbox.Sandbox, files map[string]string) *sandbox.Session {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	se := sb.NewSession(dir)
	t.Cleanup(func() { se.Close(context.Background()) })
	return se
}

// run runs code and fails t on a sandbox error.
func run(t testing.TB, se *sandbox.Session, code string) *sandbox.Outcome {
	t.Helper()
	out, err := se.Run(context.Background(), code)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return out
}

// mustSucceed fails t unless out exited 0.
func mustSucceed(t testing.TB, out *sandbox.Outcome) {
	t.Helper()
	if out.ExitCode != 0 || out.Stopped != "" {
		t.Fatalf("exit %d stopped %q\nstdout: %s\nstderr: %s", out.ExitCode, out.Stopped, out.Stdout, out.Stderr)
	}
}

// stdout is the whole stdout of a run that printed little.
func stdout(out *sandbox.Outcome) string { return strings.TrimSpace(out.Stdout.String()) }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
