package pg

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/remote/remotetest"
)

// server starts (or reuses) the loopback PostgreSQL and returns its settings.
func server(t testing.TB) map[string]string { return remotetest.Servers(t, "pg") }

func roProfile(t testing.TB, env map[string]string, db string) (remote.Profile, string) {
	port, err := strconv.Atoi(env["LOUPE_PG_PORT"])
	if err != nil {
		t.Fatalf("port: %v", err)
	}
	return remote.Profile{Name: "chinook-pg", Kind: remote.Postgres, Host: env["LOUPE_PG_HOST"], Port: port,
		Database: db, User: env["LOUPE_PG_RO_USER"], TLS: remote.TLSPrefer}, env["LOUPE_PG_RO_PASSWORD"]
}

// connect opens a plain pgx connection, bypassing Loupe.
func connect(ctx context.Context, env map[string]string, role, db string) (*pgx.Conn, error) {
	u := &url.URL{Scheme: "postgres", User: url.UserPassword(env["LOUPE_PG_"+role+"_USER"], env["LOUPE_PG_"+role+"_PASSWORD"]),
		Host: env["LOUPE_PG_HOST"] + ":" + env["LOUPE_PG_PORT"], Path: "/" + db, RawQuery: "sslmode=disable"}
	return pgx.Connect(ctx, u.String())
}

func TestContract(t *testing.T) {
	env := server(t)
	p, pw := roProfile(t, env, env["LOUPE_PG_DATABASE"])
	remotetest.Run(t, remotetest.Harness{
		Profile:  p,
		Password: pw,
		Ident:    func(n string) string { return n },
		Comments: true,
		TLS:      true,
		Slow:     func(marker string) string { return "SELECT pg_sleep(120) AS " + marker },
		Running: func(ctx context.Context, marker string) (bool, error) {
			c, err := connect(ctx, env, "ADMIN", "postgres")
			if err != nil {
				return false, err
			}
			defer c.Close(ctx)
			var n int
			err = c.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE '%' || $1 || '%'", marker).Scan(&n)
			return n > 0, err
		},
		Unchecked: func(ctx context.Context, s remote.Source, text string) error {
			return s.(*Source).unchecked(ctx, text)
		},
		RawWrite: func(ctx context.Context, text string) error {
			c, err := connect(ctx, env, "RO", env["LOUPE_PG_DATABASE"])
			if err != nil {
				return fmt.Errorf("connect as the read-only role: %w", err)
			}
			defer c.Close(ctx)
			_, err = c.Exec(ctx, text)
			return err
		},
		Restart:   func(t *testing.T) { remotetest.Restart(t, "pg") },
		Exclusive: func(t *testing.T) func() { return remotetest.Exclusive(t, "pg") },
	})
}

// TestReadOnlyTransaction proves the read-only transaction alone stops a
// write, for a user the server would let write.
func TestReadOnlyTransaction(t *testing.T) {
	env := server(t)
	p, _ := roProfile(t, env, env["LOUPE_PG_DATABASE"])
	p.User = env["LOUPE_PG_ADMIN_USER"]
	s, err := Open(context.Background(), p, env["LOUPE_PG_ADMIN_PASSWORD"])
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, text := range []string{"DELETE FROM track WHERE track_id = 1", "CREATE TEMP TABLE loupe_t AS SELECT 1"} {
		err = s.unchecked(context.Background(), text)
		if err == nil {
			t.Fatalf("%s ran", text)
		}
		t.Logf("%s: %v", text, err)
	}
	err = s.unchecked(context.Background(), "DELETE FROM track WHERE track_id = 1")
	if !errors.Is(err, guard.ErrRefused) {
		t.Fatalf("want the server's read-only refusal, got %v", err)
	}
	res, err := s.Query(context.Background(), "SELECT count(*) FROM track WHERE track_id = 1", query.Limits{})
	if err != nil || res.Rows[0][0] != int64(1) {
		t.Fatalf("track 1: %v %v", res, err)
	}
}

// TestTLSRequireEncrypts checks that --tls require really encrypts.
func TestTLSRequireEncrypts(t *testing.T) {
	env := server(t)
	for _, c := range []struct {
		mode remote.TLSMode
		want bool
	}{{remote.TLSRequire, true}, {remote.TLSPrefer, true}, {remote.TLSDisable, false}} {
		p, pw := roProfile(t, env, env["LOUPE_PG_DATABASE"])
		p.TLS = c.mode
		s, err := Open(context.Background(), p, pw)
		if err != nil {
			t.Fatalf("%s: %v", c.mode, err)
		}
		res, err := s.Query(context.Background(), "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", query.Limits{})
		s.Close()
		if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != c.want {
			t.Fatalf("%s: ssl = %v, %v; want %v", c.mode, res, err, c.want)
		}
	}
}

// TestValues checks how PostgreSQL's types reach the result.
func TestValues(t *testing.T) {
	env := server(t)
	p, pw := roProfile(t, env, env["LOUPE_PG_DATABASE"])
	s, err := Open(context.Background(), p, pw)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Query(context.Background(), `SELECT 1.5::numeric AS n, interval '1 year 2 mons 3 days 04:05:06.5' AS i,
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, '{"a": [1, "x"]}'::jsonb AS j, ARRAY[1, 2] AS a,
  '2024-01-02 03:04:05+00'::timestamptz AT TIME ZONE 'UTC' AS ts, '2024-01-02'::date AS d, true AS b,
  '\xdead'::bytea AS bin, 'NaN'::float8 AS nan, 9223372036854775807::int8 AS big, NULL::text AS nothing,
  '12:30:00'::time AS tod, 'x'::varchar(3) AS v`, query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{1.5, "1 year 2 mons 3 days 04:05:06.5", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		map[string]any{"a": []any{1.0, "x"}}, []any{int64(1), int64(2)}, "2024-01-02 03:04:05", "2024-01-02", true,
		`\xdead`, "NaN", int64(9223372036854775807), nil, "12:30:00", "x"}
	got := res.Rows[0]
	for i := range want {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) || fmt.Sprintf("%T", got[i]) != fmt.Sprintf("%T", want[i]) {
			t.Errorf("%s (%s): got %#v, want %#v", res.Columns[i].Name, res.Columns[i].Type, got[i], want[i])
		}
	}
	if res.Columns[0].Type != "NUMERIC" || res.Columns[6].Type != "DATE" || res.Columns[13].Type != "VARCHAR" {
		t.Errorf("types: %+v", res.Columns)
	}
}

// TestTimeoutWhileCounting: when the time limit ends a query that is only
// being counted past the caps, the rows kept are still returned.
func TestTimeoutWhileCounting(t *testing.T) {
	env := server(t)
	p, pw := roProfile(t, env, env["LOUPE_PG_DATABASE"])
	s, err := Open(context.Background(), p, pw)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Query(context.Background(), "SELECT g, pg_sleep(0.0005) FROM generate_series(1, 1000000) g",
		query.Limits{MaxRows: 10, Timeout: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 10 || !res.Truncated || res.RowCount <= 10 || res.RowCount >= 1000000 {
		t.Fatalf("%d rows, truncated %v, row count %d", len(res.Rows), res.Truncated, res.RowCount)
	}
	t.Logf("counted %d rows before the limit", res.RowCount)
}

// TestContainment: issue 16's quoted function names, run as the superuser
// postgres, are refused before they reach the server, and the superuser
// gets the privilege warning the read-only role does not.
func TestContainment(t *testing.T) {
	env := server(t)
	ro, roPW := roProfile(t, env, env["LOUPE_PG_DATABASE"])
	admin := ro
	admin.User = env["LOUPE_PG_ADMIN_USER"]
	attacks := []struct{ text, name string }{
		{`SELECT "pg_read_file"('/etc/passwd')`, "pg_read_file"},
		{`SELECT pg_catalog."pg_read_file"('/etc/passwd')`, "pg_read_file"},
		{`SELECT pg_catalog . "pg_read_file" /* c */ ('/etc/passwd')`, "pg_read_file"},
		{`SELECT U&"pg\005fread\005ffile"('/etc/passwd')`, "pg_read_file"},
		{`SELECT "pg_read_binary_file"('/etc/passwd')`, "pg_read_binary_file"},
		{`SELECT ('/etc/passwd'::text).pg_read_file`, "pg_read_file"}, // functional notation: x.f is f(x)
		{`SELECT ((('/etc/passwd'::text).lo_import)).lo_get`, "lo_import"},
		{`SELECT * FROM "pg_ls_dir"('.')`, "pg_ls_dir"},
		{`SELECT "pg_stat_file"('/etc/passwd')`, "pg_stat_file"},
		{`SELECT "query_to_xml"('SELECT pg_read_file(''/etc/passwd'')', true, false, '')`, "query_to_xml"},
		{`SELECT * FROM "ts_stat"('SELECT to_tsvector(pg_read_file(''/etc/passwd''))')`, "ts_stat"},
		{`SELECT "lo_import"('/etc/passwd')`, "lo_import"},
		{`SELECT * FROM "pg_hba_file_rules"`, "pg_hba_file_rules"},
		{`SELECT "pg_advisory_lock"(16)`, "pg_advisory_lock"},
		{`SELECT "set_config"('statement_timeout', '0', false)`, "set_config"},
		// They ran in the read-only transaction: the first advances the
		// server's OID counter, the others assign a transaction id.
		{`SELECT pg_nextoid('pg_class', 'oid', 'pg_class_oid_index')`, "pg_nextoid"},
		{`SELECT txid_current()`, "txid_current"},
		{`SELECT pg_current_xact_id()`, "pg_current_xact_id"},
	}
	c := remotetest.Containment{Admin: admin, AdminPassword: env["LOUPE_PG_ADMIN_PASSWORD"], ReadOnly: ro, ReadOnlyPass: roPW,
		Leaks: []string{"root:"}, Risk: "superuser"}
	for _, a := range attacks {
		c.Attacks, c.Named = append(c.Attacks, a.text), append(c.Named, a.name)
	}
	remotetest.RunContainment(t, c)
}

// TestStandardStringsPinned: a role whose settings turn
// standard_conforming_strings off still gets sessions that read quotes as
// remote.Check does: the text below stays one string (with the setting
// off, the server reads its backslash and quote as an escaped quote, ends
// the string early and runs the call).
func TestStandardStringsPinned(t *testing.T) {
	env := server(t)
	ctx := context.Background()
	admin, err := connect(ctx, env, "ADMIN", env["LOUPE_PG_DATABASE"])
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	const role, pw = "loupe_scs_off", "loupe-scs-pw"
	for _, q := range []string{
		"DROP ROLE IF EXISTS " + role,
		"CREATE ROLE " + role + " LOGIN SUPERUSER PASSWORD '" + pw + "'",
		"ALTER ROLE " + role + " SET standard_conforming_strings = off",
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
	p, _ := roProfile(t, env, env["LOUPE_PG_DATABASE"])
	p.User = role
	s, err := Open(ctx, p, pw)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Query(ctx, `SELECT '\'' , pg_read_file($$/etc/passwd$$) -- '`, query.Limits{})
	if err != nil {
		t.Fatal(err) // one string to the check and, with the setting pinned, to the server
	}
	if got := fmt.Sprint(res.Rows); got != `[[\' , pg_read_file($$/etc/passwd$$) -- ]]` {
		t.Errorf("the server read it differently (read /etc/passwd: %v)", strings.Contains(got, "root:"))
	}
	res, err = s.Query(ctx, "SHOW standard_conforming_strings", query.Limits{})
	if err != nil || fmt.Sprint(res.Rows) != "[[on]]" {
		t.Errorf("standard_conforming_strings: %v %v", res, err)
	}
}
