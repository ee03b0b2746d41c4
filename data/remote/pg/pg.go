// Package pg connects Loupe to PostgreSQL through pgx. Every query runs in
// a READ ONLY transaction with SET LOCAL statement_timeout, on the extended
// protocol (which refuses several statements in one text), and cancelling
// its context sends PostgreSQL a cancel request, so the server stops the
// query rather than just the client.
package pg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
)

func init() {
	remote.Register(remote.Postgres, func(ctx context.Context, p remote.Profile, password string) (remote.Source, error) {
		return Open(ctx, p, password)
	})
}

// Tips is the advice the agent's prompt gives for PostgreSQL SQL.
const Tips = `PostgreSQL: quote identifiers with double quotes only when they have capitals or spaces ("Name"); strings take single quotes. ` +
	`Use ILIKE for case-insensitive matching, date_trunc('month', ts) and EXTRACT(YEAR FROM d) for periods, d::date or CAST for types, ` +
	`count(*) FILTER (WHERE …) for conditional counts, string_agg(x, ', ') to join text, and LIMIT n. ` +
	`Integer division truncates: write x::numeric / y. Qualify a table with its schema when it is not in public.`

// cancelGrace is how long after the server's own statement timeout the
// client gives up and sends a cancel request itself.
const cancelGrace = 2 * time.Second

// Source is a connected PostgreSQL database. It is safe for concurrent use.
type Source struct {
	pool    *pgxpool.Pool
	profile remote.Profile
	dialect remote.Dialect
	log     *slog.Logger
}

var _ remote.Source = (*Source)(nil)

// Open connects to the database p describes and checks the connection.
// Errors are *remote.ConnError with the problem and what to do.
func Open(ctx context.Context, p remote.Profile, password string) (*Source, error) {
	p, err := p.Normalize()
	if err != nil {
		return nil, err
	}
	cfg, err := poolConfig(p, password)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, connectError(p, err)
	}
	s := &Source{pool: pool, profile: p, log: slog.Default().With("subsystem", "remote.pg", "source", p.Name)}
	var version string
	if err := pool.QueryRow(ctx, "SHOW server_version").Scan(&version); err != nil {
		pool.Close()
		return nil, connectError(p, err)
	}
	s.dialect = remote.Dialect{Kind: remote.Postgres, Name: "PostgreSQL", Version: version, Tips: Tips}
	return s, nil
}

func poolConfig(p remote.Profile, password string) (*pgxpool.Config, error) {
	u := &url.URL{Scheme: "postgres", User: url.User(p.User), Host: p.Target(), Path: "/" + p.Database}
	q := url.Values{}
	q.Set("sslmode", string(p.TLS))
	q.Set("connect_timeout", "10")
	q.Set("application_name", "loupe")
	u.RawQuery = q.Encode()
	cfg, err := pgxpool.ParseConfig(u.String())
	if err != nil {
		return nil, remote.ProfileError("connection %s: %v", p.Name, err)
	}
	cfg.ConnConfig.Password = password
	// remote.Check reads '…' with doubled quotes only, as PostgreSQL does
	// with standard_conforming_strings on (the default). A role or server
	// set off would read '\'' , pg_read_file(…) -- ' as a call the check
	// took for one string: every session is started with it on.
	cfg.ConnConfig.RuntimeParams["standard_conforming_strings"] = "on"
	cfg.MaxConns = 4
	cfg.MinConns = 0
	cfg.MaxConnIdleTime = 5 * time.Minute
	// On cancel, ask the server to stop the query (a cancel request on a
	// second connection); only if it has not answered 3 s later is the
	// socket's deadline set, which drops the connection.
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 3 * time.Second}
	}
	return cfg, nil
}

// Dialect implements remote.Source.
func (s *Source) Dialect() remote.Dialect { return s.dialect }

// Ping implements remote.Source.
func (s *Source) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return connectError(s.profile, err)
	}
	return nil
}

// Close implements remote.Source.
func (s *Source) Close() error {
	s.pool.Close()
	return nil
}

// Query implements remote.Source.
func (s *Source) Query(ctx context.Context, text string, lim query.Limits) (*query.Result, error) {
	return remote.Collect(ctx, s, text, lim)
}

// Stream implements remote.Source.
func (s *Source) Stream(ctx context.Context, text string, timeout time.Duration, v remote.Visitor) error {
	sql, err := remote.Check(remote.Postgres, text)
	if err != nil {
		return err
	}
	return s.run(ctx, sql, timeout, v)
}

// run executes sql, already checked, in a read-only transaction.
func (s *Source) run(ctx context.Context, sql string, timeout time.Duration, v remote.Visitor) error {
	if timeout <= 0 {
		timeout = query.Defaults.Timeout
	}
	// The server's statement_timeout stops the query first; the context
	// deadline is the backstop that sends a cancel request itself.
	qctx, cancel := context.WithTimeout(ctx, timeout+cancelGrace)
	defer cancel()
	stopped := false
	err := s.inReadOnlyTx(qctx, timeout, func(tx pgx.Tx) error {
		rows, err := tx.Query(qctx, sql, pgx.QueryExecModeExec)
		if err != nil {
			return err
		}
		defer rows.Close()
		fields := rows.FieldDescriptions()
		cols := make([]query.Column, len(fields))
		types := tx.Conn().TypeMap()
		for i, f := range fields {
			cols[i] = query.Column{Name: f.Name, Type: typeName(types, f.DataTypeOID)}
		}
		if v.Columns != nil {
			if err := v.Columns(cols); err != nil {
				return err
			}
		}
		row := make([]any, len(cols))
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				return err
			}
			for i, x := range vals {
				row[i] = normalize(x, cols[i].Type)
			}
			if err := v.Row(row); err != nil {
				if errors.Is(err, remote.ErrStop) {
					stopped = true
					cancel() // a cancel request stops the server's work
					return nil
				}
				return err
			}
		}
		return rows.Err()
	})
	if stopped {
		return nil
	}
	if err != nil {
		return s.queryError(ctx, qctx, err, timeout)
	}
	return nil
}

// inReadOnlyTx runs fn in a READ ONLY transaction whose statements stop
// after timeout on the server.
func (s *Source) inReadOnlyTx(ctx context.Context, timeout time.Duration, fn func(tx pgx.Tx) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	// The rollback must run even when ctx is done; a broken connection
	// fails it at once.
	defer func() {
		rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer rcancel()
		_ = tx.Rollback(rctx)
	}()
	ms := strconv.FormatInt(max(timeout.Milliseconds(), 1), 10)
	if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = "+ms); err != nil {
		return err
	}
	return fn(tx)
}

// unchecked runs text without Loupe's statement check, still inside the
// read-only transaction. It exists for tests that prove the server itself
// refuses writes; nothing else may call it.
func (s *Source) unchecked(ctx context.Context, text string) error {
	return s.run(ctx, text, 10*time.Second, remote.Visitor{Row: func([]any) error { return nil }})
}

func (s *Source) String() string { return fmt.Sprintf("postgres source %s", s.profile.Name) }
