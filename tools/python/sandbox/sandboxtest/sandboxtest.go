// Package sandboxtest gives tests a real Docker daemon and a real sandbox
// image: the daemon is the private one scripts/sandbox-image.sh starts (or
// reuses), and the image is built once by Loupe's own offline recipe and
// then cached in the daemon's data root, keyed by the recipe's hash.
package sandboxtest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loupeapp/loupe/tools/python/sandbox"
)

// EnvImage names an existing image to test instead of building one.
const EnvImage = "LOUPE_SANDBOX_TEST_IMAGE"

// EnvHost names a running daemon to test against instead of the private
// one (e.g. Docker Desktop on a developer's machine, where the script
// cannot start dockerd).
const EnvHost = "LOUPE_SANDBOX_TEST_DOCKER_HOST"

var (
	mu      sync.Mutex
	env     map[string]string
	imageOK string
)

// Docker starts (or reuses) the private daemon and returns its address
// (unix://…/docker.sock), or returns $LOUPE_SANDBOX_TEST_DOCKER_HOST.
func Docker(t testing.TB) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if env == nil && os.Getenv(EnvHost) != "" {
		dir := filepath.Join(os.TempDir(), "loupe-sandbox-test") // for the image lock
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		env = map[string]string{"DOCKER_HOST": os.Getenv(EnvHost), "LOUPE_DOCKER_DIR": dir}
	}
	if env == nil {
		e, err := script("start")
		if err != nil {
			t.Fatalf("start the test Docker daemon: %v", err)
		}
		env = e
	}
	return env["DOCKER_HOST"]
}

// Image returns the daemon's address and the name of a sandbox image
// built from this Loupe's offline recipe, building it first if the daemon
// has none (about 7 minutes; once per recipe change). Test binaries of
// several packages take turns through a lock file.
func Image(t testing.TB) (host, image string) {
	t.Helper()
	host = Docker(t)
	if img := os.Getenv(EnvImage); img != "" {
		return host, img
	}
	image = "loupe-sandbox:test-" + sandbox.RecipeHash(sandbox.KindOffline)
	mu.Lock()
	defer mu.Unlock()
	if imageOK == image {
		return host, image
	}
	unlock, err := lockFile(filepath.Join(env["LOUPE_DOCKER_DIR"], ".image-lock"))
	if err != nil {
		t.Fatalf("lock the test image: %v", err)
	}
	defer unlock()
	sb, err := sandbox.New(sandbox.Config{Host: host, Image: image})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	ctx := context.Background()
	if st := sb.Check(ctx); !st.OK {
		t.Logf("building the sandbox test image %s with the offline recipe (about 7 minutes, cached afterwards)", image)
		last := time.Now()
		res, err := sb.Build(ctx, sandbox.BuildOptions{Offline: true}, func(p sandbox.Progress) {
			if time.Since(last) > 30*time.Second {
				last = time.Now()
				t.Logf("build %d/%d %.0f%%: %s", p.Step, p.Steps, p.Fraction*100, p.Line)
			}
		})
		if err != nil {
			t.Fatalf("build the sandbox test image: %v", err)
		}
		t.Logf("built %s in %s: %d MB, %s", image, res.Elapsed.Round(time.Second), res.Size>>20, res.Versions)
	}
	imageOK = image
	return host, image
}

func script(cmd string) (map[string]string, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	c := exec.Command("bash", filepath.Join(root, "scripts", "sandbox-image.sh"), cmd)
	c.Dir = root
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("scripts/sandbox-image.sh %s: %v\n%s", cmd, err, errb.String())
	}
	vars := map[string]string{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			vars[k] = v
		}
	}
	if vars["DOCKER_HOST"] == "" {
		return nil, fmt.Errorf("scripts/sandbox-image.sh %s printed no DOCKER_HOST:\n%s", cmd, out.String())
	}
	return vars, nil
}

// repoRoot is the folder holding go.mod, from the working directory up.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// lockFile takes an exclusive lock on path, waiting for it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
