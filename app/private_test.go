package app_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupeapp/loupe/app"
)

// groupOrOther lists every path under root whose mode lets anyone but its
// owner in.
func groupOrOther(t *testing.T, root string) []string {
	t.Helper()
	var open []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			open = append(open, fi.Mode().String()+" "+p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return open
}

// used creates, through the app, everything a workspace holds: datasets,
// a conversation with an answer (the store), a note, the schema index,
// settings and the recent list; and exports a CSV.
func used(t *testing.T, e *env) {
	t.Helper()
	e.load(t)
	chat := e.chat(t)
	e.answered(t, chat, "Which region has the most orders?")
	if err := e.app.SetDatasetNote("orders", "one row per order", nil); err != nil {
		t.Fatal(err)
	}
	res, err := e.app.RunSQL("SELECT region, count(*) AS n FROM orders GROUP BY region")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.app.ExportCSV(res.Ref); err != nil {
		t.Fatal(err)
	}
}

// TestNewWorkspaceIsPrivate: a workspace and config folder Loupe creates
// have no group or other bits anywhere, while it is open and after it
// closes; the CSV the user exports keeps ordinary modes.
func TestNewWorkspaceIsPrivate(t *testing.T) {
	base := t.TempDir()
	ws, cfg := filepath.Join(base, "ws"), filepath.Join(base, "cfg")
	e := newEnv(t, setup{turns: answerTurns(), wsDir: ws, config: cfg})
	used(t, e)
	for _, root := range []string{ws, cfg} {
		for _, p := range groupOrOther(t, root) {
			t.Errorf("open: not private: %s", p)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "chats.db")); err != nil {
		t.Fatalf("the conversation store is not where the test looks: %v", err)
	}
	exported, _ := filepath.Glob(filepath.Join(e.saveDir, "*.csv"))
	if len(exported) != 1 {
		t.Fatalf("exports %v", exported)
	}
	if fi, err := os.Stat(exported[0]); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the export is %v (%v), want 0644: it is the user's file", fi.Mode(), err)
	}
	e.app.Shutdown(context.Background())
	for _, root := range []string{ws, cfg} {
		for _, p := range groupOrOther(t, root) {
			t.Errorf("closed: not private: %s", p)
		}
	}
}

// TestOldWorkspaceIsTightenedOnOpen: a workspace and config folder left
// 0755/0644 by an older Loupe are made private when the app opens them,
// and still work.
func TestOldWorkspaceIsTightenedOnOpen(t *testing.T) {
	base := t.TempDir()
	ws, cfg := filepath.Join(base, "ws"), filepath.Join(base, "cfg")
	e := newEnv(t, setup{turns: answerTurns(), wsDir: ws, config: cfg})
	used(t, e)
	e.app.Shutdown(context.Background())
	loosened := 0
	for _, root := range []string{ws, cfg} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			m := fs.FileMode(0o644)
			if d.IsDir() {
				m = 0o755
			}
			loosened++
			return os.Chmod(p, m)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := len(groupOrOther(t, ws)) + len(groupOrOther(t, cfg)); n != loosened || n < 8 {
		t.Fatalf("%d of %d entries loosened", n, loosened)
	}

	a := app.New(app.Options{WorkspaceDir: ws, ConfigDir: cfg, Keychain: app.NewMemoryKeychain()})
	defer a.Shutdown(context.Background())
	ds, err := a.ListDatasets()
	if err != nil || len(ds) != 2 {
		t.Fatalf("datasets after reopening: %v %v", ds, err)
	}
	chats, err := a.ListChats()
	if err != nil || len(chats) != 1 {
		t.Fatalf("conversations after reopening: %v %v", chats, err)
	}
	for _, root := range []string{ws, cfg} {
		for _, p := range groupOrOther(t, root) {
			t.Errorf("reopened: not private: %s", p)
		}
	}
}
