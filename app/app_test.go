package app_test

import (
	"testing"
	"time"

	"github.com/loupeapp/loupe/app"
)

// The window must be usable at once: New does no I/O and Warm only starts
// the workspace and the status check in the background.
func TestWarmDoesNotBlock(t *testing.T) {
	rec := newRecorder()
	start := time.Now()
	a := app.New(app.Options{WorkspaceDir: t.TempDir(), ConfigDir: t.TempDir(), Keychain: app.NewMemoryKeychain(),
		Emit: rec.emit, Getenv: func(string) string { return "" }, DockerHost: "unix://" + t.TempDir() + "/none.sock"})
	app.Warm(a)
	if took := time.Since(start); took > 50*time.Millisecond {
		t.Errorf("New and Warm took %s; they must not wait for the workspace or the model", took)
	}
	defer a.Shutdown(t.Context())
	// The background work happened: the status was pushed, and the
	// workspace answers.
	deadline := time.Now().Add(10 * time.Second)
	for len(rec.of(app.EventStatusChanged)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no status:changed after Warm")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ds, err := a.ListDatasets(); err != nil || len(ds) != 0 {
		t.Errorf("datasets %v %v", ds, err)
	}
	if v, err := a.Version(); err != nil || v == "" {
		t.Errorf("version %q %v", v, err)
	}
}
