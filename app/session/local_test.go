package session_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// The workspace opens on first use, once for concurrent callers; a change
// to its datasets reaches OnChange; after Close it is not opened again.
func TestLocalOpensOnceAndClosesForGood(t *testing.T) {
	life, stop := context.WithCancel(context.Background())
	defer stop()
	cfg := t.TempDir()
	if err := os.Chmod(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	l := session.NewLocal(life, t.TempDir(), func() (string, error) { return cfg, nil }, slog.Default())
	var changed []catalog.Summary
	l.OnChange = func(_ context.Context, ss []catalog.Summary) { changed = ss }

	if l.Retrieval() != nil {
		t.Fatal("a retrieval before the workspace opened")
	}
	opened := make(chan *workspace.Workspace, 2)
	for range 2 {
		go func() {
			ws, err := l.Open(life)
			if err != nil {
				t.Error(err)
			}
			opened <- ws
		}()
	}
	if a, b := <-opened, <-opened; a == nil || a != b {
		t.Fatalf("two opens gave %p and %p, want one workspace", a, b)
	}
	if l.Retrieval() == nil {
		t.Error("no retrieval once open")
	}
	if fi, err := os.Stat(cfg); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("config folder not made private: %v %v", fi.Mode(), err)
	}

	csv := filepath.Join(t.TempDir(), "sales.csv")
	if err := os.WriteFile(csv, []byte("region,amount\nnorth,3\nsouth,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := l.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		if _, err := ws.Loader.Load(ctx, csv, load.Options{}); err != nil {
			return err
		}
		l.Changed(ctx, ws)
		return nil
	})
	if err != nil || len(changed) != 1 || changed[0].Name != "sales" {
		t.Fatalf("after a load OnChange heard %+v (%v)", changed, err)
	}

	l.Close()
	err = l.Use(func(context.Context, *workspace.Workspace) error { return nil })
	var e *session.Error
	if !errors.As(err, &e) || e.Code != session.CodeCanceled {
		t.Fatalf("Use after Close: %v, want code canceled", err)
	}
}
