package cli

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/remote/remotetest"
)

// TestConnectContainment is issue 16 §3 end to end through `loupe connect`:
// connected as an administrator who can read server files, `connect add`
// warns with the read-only role's SQL, and `connect import` refuses every
// quoted, qualified or commented file-reading function before it reaches
// the server, so /etc/passwd never appears; the read-only role gets no
// warning.
func TestConnectContainment(t *testing.T) {
	for _, c := range []struct {
		server, scheme, prefix string
		risk                   string
		attacks                map[string]string // statement → the function the refusal names
	}{
		{"pg", "postgres", "LOUPE_PG_", "superuser", map[string]string{
			`SELECT "pg_read_file"('/etc/passwd') AS f`:                                           "pg_read_file",
			`SELECT pg_catalog."pg_read_file"('/etc/passwd') AS f`:                                "pg_read_file",
			"SELECT pg_catalog . \"pg_read_file\" -- c\n ('/etc/passwd') AS f":                    "pg_read_file",
			`SELECT "pg_ls_dir"('.') AS f`:                                                        "pg_ls_dir",
			`SELECT U&"pg\005fread\005ffile"('/etc/passwd') AS f`:                                 "pg_read_file",
			`SELECT "query_to_xml"('SELECT pg_read_file(''/etc/passwd'')', true, false, '') AS f`: "query_to_xml",
			`SELECT "pg_read_binary_file"('/etc/passwd') AS f`:                                    "pg_read_binary_file",
		}},
		{"mysql", "mysql", "LOUPE_MYSQL_", "FILE", map[string]string{
			"SELECT `LOAD_FILE`('/etc/passwd') AS f":          "load_file",
			"SELECT `load_file` /* c */ ('/etc/passwd') AS f": "load_file",
			"SELECT LOAD_FILE # c\n('/etc/passwd') AS f":      "load_file",
			"SELECT CAST(`LOAD_FILE`('/etc/passwd') AS CHAR)": "load_file",
		}},
	} {
		t.Run(c.server, func(t *testing.T) {
			connectEnv(t)
			env := remotetest.Servers(t, c.server)
			target := env[c.prefix+"HOST"] + ":" + env[c.prefix+"PORT"] + "/" + env[c.prefix+"DATABASE"]
			admin := c.scheme + "://" + url.PathEscape(env[c.prefix+"ADMIN_USER"]) + "@" + target
			ro := c.scheme + "://" + url.PathEscape(env[c.prefix+"RO_USER"]) + "@" + target

			code, out, errs := run(t, env[c.prefix+"ADMIN_PASSWORD"]+"\n", "connect", "add", "admin", "--url", admin, "--password-stdin", "--json")
			if code != ExitOK {
				t.Fatalf("add admin: %d %s", code, errs)
			}
			var res connectResult
			if err := json.Unmarshal([]byte(out), &res); err != nil || res.Role == nil || !strings.Contains(strings.Join(res.Role.Risks, " "), c.risk) {
				t.Fatalf("add admin: no role warning saying %s: %+v %v", c.risk, res.Role, err)
			}
			for _, w := range []string{"warning: The role", c.risk, "create a read-only role", "loupe_ro"} {
				if !strings.Contains(errs, w) {
					t.Errorf("add admin: the warning does not say %q:\n%s", w, errs)
				}
			}
			code, _, errs = run(t, "", "connect", "test", "admin")
			if code != ExitOK || !strings.Contains(errs, "warning: The role") {
				t.Errorf("test admin: %d, no warning: %s", code, errs)
			}

			ws := t.TempDir()
			for text, fn := range c.attacks {
				code, out, errs := run(t, "", "connect", "import", "admin", "--as", "leak", "--workspace", ws, text)
				if code != ExitRefused || !strings.Contains(errs, fn+"()") || !strings.Contains(errs, "does not allow") {
					t.Errorf("%s: exit %d, %s; want a refusal naming %s()", text, code, errs, fn)
				}
				if strings.Contains(out+errs, "root:") {
					t.Errorf("%s: /etc/passwd leaked:\n%s%s", text, out, errs)
				}
			}
			code, out, _ = run(t, "", "sql", "--workspace", ws, "--json", "SELECT * FROM leak")
			if code == ExitOK || strings.Contains(out, "root:") {
				t.Errorf("the workspace got a leak table: %d %s", code, out)
			}

			code, out, errs = run(t, env[c.prefix+"RO_PASSWORD"]+"\n", "connect", "add", "ro", "--url", ro, "--password-stdin", "--json")
			if code != ExitOK || strings.Contains(out, `"role"`) || strings.Contains(errs, "warning: The role") {
				t.Errorf("add read-only: %d %s %s", code, out, errs)
			}
		})
	}
}
