package pg

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"testing"

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
