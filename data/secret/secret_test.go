package secret

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zalando/go-keyring"
)

// fakeRing is an in-memory keychain; broken makes every call fail the way
// go-keyring fails without a Secret Service.
type fakeRing struct {
	m      map[string]string
	broken bool
}

var errNoService = errors.New("The name org.freedesktop.secrets was not provided by any .service files")

func (r *fakeRing) Get(service, name string) (string, error) {
	if r.broken {
		return "", errNoService
	}
	v, ok := r.m[service+"/"+name]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}

func (r *fakeRing) Set(service, name, secret string) error {
	if r.broken {
		return errNoService
	}
	r.m[service+"/"+name] = secret
	return nil
}

func (r *fakeRing) Delete(service, name string) error {
	if r.broken {
		return errNoService
	}
	if _, ok := r.m[service+"/"+name]; !ok {
		return keyring.ErrNotFound
	}
	delete(r.m, service+"/"+name)
	return nil
}

func noEnv(string) string { return "" }

func TestKeychainFirst(t *testing.T) {
	ring := &fakeRing{m: map[string]string{}}
	path := filepath.Join(t.TempDir(), "loupe", "secrets.json")
	k := NewWith(ring, path, noEnv)
	where, err := k.Set("prod", "s3cret")
	if err != nil || where != Keychain {
		t.Fatalf("set: %v %v", where, err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the file was written although the keychain works: %v", err)
	}
	v, where, err := k.Get("prod")
	if v != "s3cret" || where != Keychain || err != nil {
		t.Fatalf("get: %q %v %v", v, where, err)
	}
	if err := k.Delete("prod"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := k.Get("prod"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

func TestFileFallback(t *testing.T) {
	ring := &fakeRing{broken: true}
	dir := t.TempDir()
	path := filepath.Join(dir, "loupe", "secrets.json")
	k := NewWith(ring, path, noEnv)
	where, err := k.Set("prod", "s3cret")
	if err != nil || where != File {
		t.Fatalf("set: %v %v", where, err)
	}
	if w := k.WarningFor("prod"); !strings.Contains(w, path) || !strings.Contains(w, "LOUPE_SECRET_PROD") {
		t.Fatalf("the warning does not name the file and the variable: %s", w)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("file mode: %v %v", info, err)
	}
	if d, _ := os.Stat(filepath.Dir(path)); d.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v", d.Mode().Perm())
	}
	if _, err := k.Set("other", "x"); err != nil {
		t.Fatal(err)
	}
	v, where, err := k.Get("prod")
	if v != "s3cret" || where != File || err != nil {
		t.Fatalf("get: %q %v %v", v, where, err)
	}
	// No stray temporary files are left beside it.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("folder holds %d entries", len(entries))
	}
	if err := k.Delete("prod"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := k.Get("prod"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if v, _, _ := k.Get("other"); v != "x" {
		t.Fatalf("other secret lost: %q", v)
	}
	// A file others can read is refused rather than trusted.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := k.Get("other"); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable file: %v", err)
	}
}

func TestEnvOverride(t *testing.T) {
	ring := &fakeRing{m: map[string]string{}}
	k := NewWith(ring, filepath.Join(t.TempDir(), "s.json"), func(n string) string {
		if n == "LOUPE_SECRET_PROD_DB" {
			return "from-env"
		}
		return ""
	})
	if _, err := k.Set("prod-db", "from-ring"); err != nil {
		t.Fatal(err)
	}
	v, where, err := k.Get("prod-db")
	if v != "from-env" || where != Env || err != nil {
		t.Fatalf("get: %q %v %v", v, where, err)
	}
	if EnvName("prod.db-2") != "LOUPE_SECRET_PROD_DB_2" {
		t.Fatalf("EnvName: %s", EnvName("prod.db-2"))
	}
}

// slowRing is a keychain that never answers until released, like a
// Secret Service waiting on an unlock prompt nobody sees.
type slowRing struct {
	release chan struct{}
	calls   atomic.Int32
}

func (r *slowRing) wait() error {
	r.calls.Add(1)
	<-r.release
	return errNoService
}

func (r *slowRing) Get(string, string) (string, error) { return "", r.wait() }
func (r *slowRing) Set(string, string, string) error   { return r.wait() }
func (r *slowRing) Delete(string, string) error        { return r.wait() }

func TestHungKeychainTimesOut(t *testing.T) {
	const timeout = 100 * time.Millisecond
	cases := []struct {
		name string
		// op runs against a keeper whose keychain hangs and whose file
		// already holds "kept"; it checks the outcome.
		op func(t *testing.T, k *Keeper)
	}{
		{"get from the file", func(t *testing.T, k *Keeper) {
			v, where, err := k.Get("kept")
			if v != "in-file" || where != File || err != nil {
				t.Fatalf("get: %q %v %v", v, where, err)
			}
		}},
		{"get missing says the keychain hung, not that nothing is stored", func(t *testing.T, k *Keeper) {
			_, _, err := k.Get("prod-db")
			if !errors.Is(err, ErrTimeout) || errors.Is(err, ErrNotFound) {
				t.Fatalf("get: %v", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "LOUPE_SECRET_PROD_DB") || !strings.Contains(msg, EnvDisable) {
				t.Fatalf("the error does not say how to get past the keychain: %s", msg)
			}
		}},
		{"set falls back to the file", func(t *testing.T, k *Keeper) {
			where, err := k.Set("prod", "s3cret")
			if where != File || err != nil {
				t.Fatalf("set: %v %v", where, err)
			}
			if v, _, err := k.Get("prod"); v != "s3cret" || err != nil {
				t.Fatalf("get after set: %q %v", v, err)
			}
		}},
		{"delete removes the file's copy and says the keychain's may remain", func(t *testing.T, k *Keeper) {
			err := k.Delete("kept")
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("delete: %v", err)
			}
			if _, err := k.file.get("kept"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("the file still holds it: %v", err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ring := &slowRing{release: make(chan struct{})}
			t.Cleanup(func() { close(ring.release) })
			k := NewWith(ring, filepath.Join(t.TempDir(), "secrets.json"), noEnv)
			k.SetTimeout(timeout)
			if err := k.file.set("kept", "in-file"); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			c.op(t, k)
			// One wait at most: after the first timeout the keychain is
			// left alone.
			if el := time.Since(start); el < timeout || el > timeout+time.Second {
				t.Fatalf("took %v; want one timeout of %v", el, timeout)
			}
			before := ring.calls.Load()
			start = time.Now()
			if _, _, err := k.Get("kept"); err != nil && !errors.Is(err, ErrTimeout) {
				t.Fatalf("second get: %v", err)
			}
			if el := time.Since(start); el > timeout/2 || ring.calls.Load() != before {
				t.Fatalf("the second call waited %v on the hung keychain (%d calls)", el, ring.calls.Load()-before)
			}
		})
	}
}

// A keychain that answers in time is still used, with the default timeout.
func TestTimeoutLeavesAWorkingKeychainAlone(t *testing.T) {
	k := NewWith(&fakeRing{m: map[string]string{}}, filepath.Join(t.TempDir(), "s.json"), noEnv)
	if k.timeout != DefaultTimeout {
		t.Fatalf("timeout %v", k.timeout)
	}
	if where, err := k.Set("prod", "x"); where != Keychain || err != nil {
		t.Fatalf("set: %v %v", where, err)
	}
	if k.hung.Load() {
		t.Fatal("a keychain that answered is marked hung")
	}
}
