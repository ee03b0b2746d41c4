package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/remote/remotetest"
)

func server(t testing.TB) map[string]string { return remotetest.Servers(t, "mysql") }

func roProfile(t testing.TB, env map[string]string) (remote.Profile, string) {
	return remotetest.MySQLProfile(t, env, "RO", env["LOUPE_MYSQL_DATABASE"])
}

// connect opens a plain database/sql pool, bypassing Loupe.
func connect(env map[string]string, role string) (*sql.DB, error) {
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Passwd = env["LOUPE_MYSQL_"+role+"_USER"], env["LOUPE_MYSQL_"+role+"_PASSWORD"]
	cfg.Net, cfg.Addr, cfg.DBName = "tcp", env["LOUPE_MYSQL_HOST"]+":"+env["LOUPE_MYSQL_PORT"], env["LOUPE_MYSQL_DATABASE"]
	c, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

func TestContract(t *testing.T) {
	env := server(t)
	p, pw := roProfile(t, env)
	admin, err := connect(env, "ADMIN")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	remotetest.Run(t, remotetest.Harness{
		Profile:  p,
		Password: pw,
		Ident:    remotetest.Pascal,
		Comments: true,
		Slow:     func(marker string) string { return "SELECT SLEEP(120) AS " + marker },
		Running: func(ctx context.Context, marker string) (bool, error) {
			var n int
			err := admin.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query' AND ID <> CONNECTION_ID() AND INFO LIKE CONCAT('%', ?, '%')", marker).Scan(&n)
			return n > 0, err
		},
		Unchecked: func(ctx context.Context, s remote.Source, text string) error {
			return s.(*Source).unchecked(ctx, text)
		},
		RawWrite: func(ctx context.Context, text string) error {
			db, err := connect(env, "RO")
			if err != nil {
				return fmt.Errorf("connect as the read-only role: %w", err)
			}
			defer db.Close()
			_, err = db.ExecContext(ctx, text)
			return err
		},
		Restart:   func(t *testing.T) { remotetest.Restart(t, "mysql") },
		Exclusive: func(t *testing.T) func() { return remotetest.Exclusive(t, "mysql") },
	})
}

// TestReadOnlyTransaction proves the read-only transaction alone stops a
// write, for a user the server would let write.
func TestReadOnlyTransaction(t *testing.T) {
	env := server(t)
	p, _ := roProfile(t, env)
	p.User = env["LOUPE_MYSQL_ADMIN_USER"]
	s, err := Open(context.Background(), p, env["LOUPE_MYSQL_ADMIN_PASSWORD"])
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.unchecked(context.Background(), "DELETE FROM Track WHERE TrackId = 1")
	if !errors.Is(err, guard.ErrRefused) {
		t.Fatalf("want the server's read-only refusal, got %v", err)
	}
	t.Logf("%v", err)
	res, err := s.Query(context.Background(), "SELECT count(*) FROM Track WHERE TrackId = 1", query.Limits{})
	if err != nil || res.Rows[0][0] != int64(1) {
		t.Fatalf("track 1: %v %v", res, err)
	}
}

// TestValues checks how MariaDB's types reach the result.
func TestValues(t *testing.T) {
	env := server(t)
	p, pw := roProfile(t, env)
	s, err := Open(context.Background(), p, pw)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Query(context.Background(), `SELECT CAST(1.5 AS DECIMAL(5,2)) AS n, CAST('2024-01-02' AS DATE) AS d,
  CAST('2024-01-02 03:04:05' AS DATETIME) AS ts, 18446744073709551615 AS big, CAST(b'101' AS UNSIGNED) AS bits, 'x' AS s,
  NULL AS nothing, 2.5e0 AS f, CAST('12:30:00' AS TIME) AS tod, X'DEAD' AS bin, -7 AS neg`, query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{1.5, "2024-01-02", "2024-01-02 03:04:05", "18446744073709551615", int64(5), "x", nil, 2.5, "12:30:00", `\xdead`, int64(-7)}
	got := res.Rows[0]
	for i := range want {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) || fmt.Sprintf("%T", got[i]) != fmt.Sprintf("%T", want[i]) {
			t.Errorf("%s (%s): got %#v, want %#v", res.Columns[i].Name, res.Columns[i].Type, got[i], want[i])
		}
	}
}

// TestContainment: issue 16's backtick-quoted LOAD_FILE and friends, run
// as an administrator with ALL PRIVILEGES (FILE included), are refused
// before they reach the server, and that role gets the privilege warning
// the read-only one does not.
func TestContainment(t *testing.T) {
	env := server(t)
	ro, roPW := roProfile(t, env)
	admin := ro
	admin.User = env["LOUPE_MYSQL_ADMIN_USER"]
	attacks := []struct{ text, name string }{
		{"SELECT `LOAD_FILE`('/etc/passwd')", "load_file"},
		{"SELECT `load_file` /* c */ ('/etc/passwd')", "load_file"},
		{"SELECT LOAD_FILE -- c\n('/etc/passwd')", "load_file"},
		{"SELECT `Chinook`.`LOAD_FILE`('/etc/passwd')", "load_file"},
		{"SELECT `GET_LOCK`('loupe', 1)", "get_lock"},
		{"SELECT `sys_exec`('id')", "sys_exec"},
		// The server ends a -- comment at a control character as at a
		// space: DEL (0x7f) too. Read as code, the quote after it hid the
		// call in a string.
		{"SELECT 1 AS a --\x7f '\n, LOAD_FILE('/etc/passwd') AS f -- '", "load_file"},
		{"SELECT 1 AS a --\x7f'\n, LOAD_FILE('/etc/passwd') AS f -- '", "load_file"},
	}
	c := remotetest.Containment{Admin: admin, AdminPassword: env["LOUPE_MYSQL_ADMIN_PASSWORD"], ReadOnly: ro, ReadOnlyPass: roPW,
		Leaks: []string{"root:", "726f6f743a"}, Risk: "FILE"} // LOAD_FILE returns bytes, shown in hex
	for _, a := range attacks {
		c.Attacks, c.Named = append(c.Attacks, a.text), append(c.Named, a.name)
	}
	remotetest.RunContainment(t, c)
}

// TestLexicalModePinned: the session of every query reads quotes and
// backslashes the way remote.Check does, whatever the server's sql_mode.
func TestLexicalModePinned(t *testing.T) {
	env := server(t)
	admin, err := connect(env, "ADMIN")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for mode, want := range map[string]string{
		"ANSI_QUOTES":                      "",
		"ANSI_QUOTES,NO_BACKSLASH_ESCAPES": "",
		"REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,NO_BACKSLASH_ESCAPES,STRICT_TRANS_TABLES": "REAL_AS_FLOAT,PIPES_AS_CONCAT,IGNORE_SPACE,STRICT_TRANS_TABLES",
		"STRICT_TRANS_TABLES,NO_BACKSLASH_ESCAPES,NO_ENGINE_SUBSTITUTION":                                 "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION",
		"STRICT_ALL_TABLES": "STRICT_ALL_TABLES",
	} {
		var got string
		if err := admin.QueryRowContext(context.Background(), "SELECT "+lexicalMode("?"), mode).Scan(&got); err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %q", mode, got, err, want)
		}
	}
	p, pw := roProfile(t, env)
	s, err := Open(context.Background(), p, pw)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Query(context.Background(), "SELECT @@SESSION.sql_mode AS m", query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if m := fmt.Sprint(res.Rows[0][0]); strings.Contains(m, "ANSI_QUOTES") || strings.Contains(m, "NO_BACKSLASH_ESCAPES") {
		t.Errorf("session sql_mode %s", m)
	}
}
