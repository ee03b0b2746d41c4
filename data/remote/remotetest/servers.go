// Package remotetest is the contract every remote connector passes (Run),
// and the helpers that start the test servers (Servers).
package remotetest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	serversMu sync.Mutex
	started   = map[string]map[string]string{}
)

// Servers starts (or reuses) the loopback test server named by which —
// "pg" or "mysql" — with scripts/dbservers.sh and returns the variables it
// prints (LOUPE_PG_PORT, LOUPE_MYSQL_RO_PASSWORD, …). The server is not
// restarted by another package's test until t ends (see Exclusive).
func Servers(t testing.TB, which string) map[string]string {
	t.Helper()
	serversMu.Lock()
	env, ok := started[which]
	if !ok {
		var err error
		env, err = dbservers("start", which)
		if err != nil {
			serversMu.Unlock()
			t.Fatalf("start test database servers: %v", err)
		}
		started[which] = env
	}
	serversMu.Unlock()
	hold(t, env["LOUPE_DBSERVERS_DIR"], which)
	return env
}

// Restart restarts one server ("pg" or "mysql"), dropping every
// connection. Take Exclusive first.
func Restart(t testing.TB, which string) {
	t.Helper()
	if _, err := dbservers("restart", which); err != nil {
		t.Fatalf("restart %s: %v", which, err)
	}
}

func dbservers(cmd, which string) (map[string]string, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	c := exec.Command("bash", filepath.Join(root, "scripts", "dbservers.sh"), cmd, which)
	c.Dir = root
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("scripts/dbservers.sh %s %s: %v\n%s", cmd, which, err, errb.String())
	}
	env := map[string]string{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	return env, nil
}

// RepoRoot is the folder holding go.mod, found from the working directory up.
func RepoRoot() (string, error) {
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

// Pascal turns a Chinook name in snake_case into the PascalCase the MySQL
// and SQLite editions use: invoice_line → InvoiceLine, album_id → AlbumId.
func Pascal(name string) string {
	parts := strings.Split(name, "_")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "")
}
