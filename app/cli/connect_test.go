package cli

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/remote/remotetest"
)

// connectEnv points the profile store and the secret file at fresh
// folders and keeps the test away from the OS keychain.
func connectEnv(t *testing.T) (cfgDir, dataDir string) {
	cfgDir, dataDir = t.TempDir(), t.TempDir()
	t.Setenv("LOUPE_CONFIG_DIR", cfgDir)
	t.Setenv("XDG_DATA_HOME", dataDir)
	t.Setenv("LOUPE_KEYRING_OFF", "1")
	return cfgDir, dataDir
}

func TestConnectSQLite(t *testing.T) {
	connectEnv(t)
	file, err := filepath.Abs("../../data/remote/sqlite/testdata/Chinook_Sqlite.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "", "connect", "add", "music", "--path", file, "--json")
	if code != ExitOK {
		t.Fatalf("add: %d %s", code, errs)
	}
	var res connectResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.OK || res.Tables != 11 || res.Dialect != "SQLite" {
		t.Fatalf("add result %+v %v", res, err)
	}
	code, out, _ = run(t, "", "connect", "list")
	if code != ExitOK || !strings.Contains(out, "music") || !strings.Contains(out, "sqlite://") {
		t.Fatalf("list: %d %q", code, out)
	}
	code, out, errs = run(t, "", "connect", "test", "music")
	if code != ExitOK || !strings.HasPrefix(out, "ok: music — SQLite") {
		t.Fatalf("test: %d %q %s", code, out, errs)
	}
	code, _, _ = run(t, "", "connect", "remove", "music")
	if code != ExitOK {
		t.Fatalf("remove: %d", code)
	}
	code, _, errs = run(t, "", "connect", "test", "music")
	if code != ExitError || !strings.Contains(errs, "no such connection") {
		t.Fatalf("test after remove: %d %s", code, errs)
	}
	code, _, errs = run(t, "", "connect", "add", "gone", "--path", file+".missing")
	if code != ExitError || !strings.Contains(errs, "no such file") || !strings.Contains(errs, "not saved") {
		t.Fatalf("missing file: %d %s", code, errs)
	}
}

func TestConnectPostgres(t *testing.T) {
	cfgDir, dataDir := connectEnv(t)
	env := remotetest.Servers(t, "pg")
	url := "postgres://" + env["LOUPE_PG_RO_USER"] + "@" + env["LOUPE_PG_HOST"] + ":" + env["LOUPE_PG_PORT"] + "/" + env["LOUPE_PG_DATABASE"]
	pw := env["LOUPE_PG_RO_PASSWORD"]

	code, out, errs := run(t, pw+"\n", "connect", "add", "chinook", "--url", url, "--password-stdin", "--json")
	if code != ExitOK {
		t.Fatalf("add: %d %s", code, errs)
	}
	var res connectResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.OK || res.Tables != 11 || res.Password != "file" || res.Dialect != "PostgreSQL" {
		t.Fatalf("add result %+v %v", res, err)
	}
	if !strings.Contains(errs, "warning: no OS keychain") {
		t.Fatalf("no fallback warning: %q", errs)
	}
	// The password is in the 0600 secrets file, never in the settings.
	settings, _ := os.ReadFile(filepath.Join(cfgDir, "connections.json"))
	if strings.Contains(string(settings), pw) || !strings.Contains(string(settings), `"host": "127.0.0.1"`) {
		t.Fatalf("settings file:\n%s", settings)
	}
	secrets := filepath.Join(dataDir, "loupe", "secrets.json")
	info, err := os.Stat(secrets)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("secrets file: %v %v", info, err)
	}
	code, out, errs = run(t, "", "connect", "test", "chinook", "--json")
	if code != ExitOK || !strings.Contains(out, `"ok":true`) {
		t.Fatalf("test: %d %s %s", code, out, errs)
	}

	// A wrong password is not saved unless asked, and says what is wrong.
	code, _, errs = run(t, "wrong\n", "connect", "add", "bad", "--url", url, "--password-stdin")
	if code != ExitError || !strings.Contains(errs, "refused the password for user loupe_ro") || !strings.Contains(errs, "not saved") {
		t.Fatalf("wrong password: %d %s", code, errs)
	}
	code, _, errs = run(t, "wrong\n", "connect", "add", "bad", "--url", url, "--password-stdin", "--no-test")
	if code != ExitOK {
		t.Fatalf("add --no-test: %d %s", code, errs)
	}
	code, out, _ = run(t, "", "connect", "test", "bad", "--json")
	if code != ExitError || !strings.Contains(out, `"problem":"bad_password"`) || !strings.Contains(out, `"hint":`) {
		t.Fatalf("test bad: %d %s", code, out)
	}
	// The environment overrides the stored password.
	t.Setenv("LOUPE_SECRET_BAD", pw)
	code, out, _ = run(t, "", "connect", "test", "bad", "--json")
	if code != ExitOK || !strings.Contains(out, `"password":"env"`) {
		t.Fatalf("test with env password: %d %s", code, out)
	}
}

func TestConnectRefusals(t *testing.T) {
	connectEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"add", "x", "--url", "postgres://u:secret@h/d"}, ExitUsage, "the URL holds a password"},
		{[]string{"add", "x", "--kind", "postgres", "--database", "d", "--user", "u"}, ExitError, "--host"},
		{[]string{"add", "x", "--kind", "oracle"}, ExitError, "kind"},
		{[]string{"add", "x", "--kind", "mysql", "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--database", "d", "--user", "u"}, ExitError, "cannot reach the database server"},
		{[]string{"add", "x", "--kind", "postgres", "--host", "h", "--database", "d", "--user", "u", "--tls", "sometimes"}, ExitError, "TLS mode"},
		{[]string{"frobnicate"}, ExitUsage, "unknown subcommand"},
		{[]string{"test"}, ExitUsage, "give one connection name"},
	} {
		code, _, errs := run(t, "", append([]string{"connect"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	code, out, _ := run(t, "", "connect", "list", "--json")
	if code != ExitOK || strings.TrimSpace(out) != "[]" {
		t.Fatalf("nothing should be saved: %d %s", code, out)
	}
}
