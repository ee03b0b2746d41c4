package remotetest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Test binaries of several packages share one server. Tests hold a shared
// lock on a file beside it while they use it; a test that restarts the
// server takes the lock exclusively first, so it never pulls the server
// from under another package's test.
var (
	useMu    sync.Mutex
	useFiles = map[string]*os.File{}
	useCount = map[string]int{}
)

func useFile(dir, which string) (*os.File, error) {
	if f, ok := useFiles[which]; ok {
		return f, nil
	}
	f, err := os.OpenFile(filepath.Join(dir, ".use-"+which), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	useFiles[which] = f
	return f, nil
}

// hold takes the shared lock on server which for the rest of t.
func hold(t testing.TB, dir, which string) {
	t.Helper()
	useMu.Lock()
	defer useMu.Unlock()
	f, err := useFile(dir, which)
	if err != nil {
		t.Fatalf("lock %s: %v", which, err)
	}
	if useCount[which] == 0 {
		if err := lockShared(f); err != nil {
			t.Fatalf("lock %s: %v", which, err)
		}
	}
	useCount[which]++
	t.Cleanup(func() {
		useMu.Lock()
		defer useMu.Unlock()
		useCount[which]--
		if useCount[which] == 0 {
			_ = unlock(f)
		}
	})
}

// Exclusive waits until no other test binary uses server which ("pg" or
// "mysql") and keeps it so until release is called. Call it before
// anything that restarts the server.
func Exclusive(t testing.TB, which string) (release func()) {
	t.Helper()
	env := Servers(t, which)
	useMu.Lock()
	f, err := useFile(env["LOUPE_DBSERVERS_DIR"], which)
	useMu.Unlock()
	if err != nil {
		t.Fatalf("lock %s: %v", which, err)
	}
	if err := lockExclusive(f); err != nil {
		t.Fatalf("lock %s: %v", which, err)
	}
	return func() {
		useMu.Lock()
		defer useMu.Unlock()
		if useCount[which] > 0 {
			_ = lockShared(f)
		} else {
			_ = unlock(f)
		}
	}
}
