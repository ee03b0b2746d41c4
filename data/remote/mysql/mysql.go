// Package mysql connects Loupe to MySQL and MariaDB through
// go-sql-driver/mysql. Every query runs on a session set to READ ONLY
// transactions, inside START TRANSACTION READ ONLY, with the server's own
// statement time limit (max_execution_time on MySQL, max_statement_time on
// MariaDB). Cancelling its context sends KILL QUERY for the session from a
// second connection, so the server stops the query and the connection
// stays usable.
package mysql

import (
	"context"
	"crypto/tls"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
)

func init() {
	remote.Register(remote.MySQL, func(ctx context.Context, p remote.Profile, password string) (remote.Source, error) {
		return Open(ctx, p, password)
	})
}

// Tips is the advice the agent's prompt gives for MySQL and MariaDB SQL.
const Tips = "MySQL/MariaDB: quote identifiers with backticks (`Order`), strings with single quotes; table names are case-sensitive on Linux servers. " +
	"Use LIMIT n, DATE_FORMAT(d, '%Y-%m') and YEAR(d) for periods, IFNULL(x, 0), GROUP_CONCAT(x SEPARATOR ', '), and CONCAT(a, b) to join text (|| means OR). " +
	"There is no FULL OUTER JOIN (UNION a LEFT and a RIGHT JOIN) and no FILTER clause (SUM(CASE WHEN … THEN 1 ELSE 0 END)). " +
	"Comparisons of text ignore case under the default collation."

// killGrace is how long after a cancel the query may take to stop before
// the connection is dropped instead; killRetry how often KILL QUERY is
// repeated meanwhile (it misses a statement not yet started).
const (
	killGrace = 5 * time.Second
	killRetry = 500 * time.Millisecond
)

// Source is a connected MySQL or MariaDB database. It is safe for
// concurrent use.
type Source struct {
	db      *sql.DB
	killer  *sql.DB // a pool of its own, so a cancel never waits for a busy one
	profile remote.Profile
	dialect remote.Dialect
	mariadb bool
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
	cfg := gomysql.NewConfig()
	cfg.User = p.User
	cfg.Passwd = password
	cfg.Net = "tcp"
	cfg.Addr = p.Target()
	cfg.DBName = p.Database
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.Timeout = 10 * time.Second
	cfg.MultiStatements = false
	switch p.TLS {
	case remote.TLSPrefer:
		cfg.TLS = &tls.Config{InsecureSkipVerify: true}
		cfg.AllowFallbackToPlaintext = true
	case remote.TLSRequire:
		cfg.TLS = &tls.Config{InsecureSkipVerify: true}
	case remote.TLSVerifyFull:
		cfg.TLS = &tls.Config{ServerName: p.Host}
	}
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, remote.ProfileError("connection %s: %v", p.Name, err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(6)
	db.SetMaxIdleConns(3)
	db.SetConnMaxIdleTime(5 * time.Minute)
	killer := sql.OpenDB(conn)
	killer.SetMaxOpenConns(2)
	killer.SetMaxIdleConns(1)
	killer.SetConnMaxIdleTime(time.Minute)
	s := &Source{db: db, killer: killer, profile: p, log: slog.Default().With("subsystem", "remote.mysql", "source", p.Name)}
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		db.Close()
		killer.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, connectError(p, err)
	}
	s.mariadb = strings.Contains(strings.ToLower(version), "mariadb")
	name := "MySQL"
	if s.mariadb {
		name = "MariaDB"
	}
	s.dialect = remote.Dialect{Kind: remote.MySQL, Name: name, Version: version, Tips: Tips}
	return s, nil
}

func init() {
	// The driver logs dropped connections itself; Loupe reports them as errors.
	_ = gomysql.SetLogger(gomysql.Logger(nopLogger{}))
}

type nopLogger struct{}

func (nopLogger) Print(...any) {}

// Dialect implements remote.Source.
func (s *Source) Dialect() remote.Dialect { return s.dialect }

// Ping implements remote.Source.
func (s *Source) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return connectError(s.profile, err)
	}
	return nil
}

// Close implements remote.Source.
func (s *Source) Close() error {
	_ = s.killer.Close()
	return s.db.Close()
}

// Query implements remote.Source.
func (s *Source) Query(ctx context.Context, text string, lim query.Limits) (*query.Result, error) {
	return remote.Collect(ctx, s, text, lim)
}

// Stream implements remote.Source.
func (s *Source) Stream(ctx context.Context, text string, timeout time.Duration, v remote.Visitor) error {
	stmt, err := remote.Check(remote.MySQL, text)
	if err != nil {
		return err
	}
	return s.run(ctx, stmt, timeout, v)
}

// session is one pooled connection set up for a read-only query.
type session struct {
	conn *sql.Conn
	id   int64
}

// begin takes a connection, sets its session to read-only transactions
// with the server's time limit, and starts a read-only transaction. A
// connection the server closed since it was pooled is replaced once.
func (s *Source) begin(ctx context.Context, timeout time.Duration) (*session, error) {
	var limit string
	if s.mariadb {
		limit = "SET SESSION max_statement_time = " + strconv.FormatFloat(timeout.Seconds(), 'f', 3, 64)
	} else {
		limit = "SET SESSION max_execution_time = " + strconv.FormatInt(max(timeout.Milliseconds(), 1), 10)
	}
	limit += ", SESSION sql_mode = " + lexicalMode("@@SESSION.sql_mode")
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		var conn *sql.Conn
		conn, err = s.db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		ss := &session{conn: conn}
		err = conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&ss.id)
		for _, q := range []string{"SET SESSION TRANSACTION READ ONLY", limit, "START TRANSACTION READ ONLY"} {
			if err != nil {
				break
			}
			_, err = conn.ExecContext(ctx, q)
		}
		if err == nil {
			return ss, nil
		}
		// Drop the connection rather than return it to the pool.
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		_ = conn.Close()
		if !badConn(err) {
			break
		}
	}
	return nil, err
}

// end rolls back and returns the connection to the pool.
func (ss *session) end() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := ss.conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		_ = ss.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	_ = ss.conn.Close()
}

// run executes stmt, already checked, on a read-only session.
func (s *Source) run(ctx context.Context, stmt string, timeout time.Duration, v remote.Visitor) error {
	if timeout <= 0 {
		timeout = query.Defaults.Timeout
	}
	qctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ss, err := s.begin(qctx, timeout)
	if err != nil {
		return s.queryError(ctx, qctx, err, timeout, false)
	}
	defer ss.end()
	// The driver's own context is cancelled only killGrace after qctx, so
	// that the server, told by KILL QUERY, stops the statement and the
	// connection survives; the driver drops it only if the kill fails.
	dctx, dcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer dcancel()
	var killed atomic.Bool
	finished := make(chan struct{})
	watcher := make(chan struct{})
	go func() {
		defer close(watcher)
		select {
		case <-finished:
			return
		case <-qctx.Done():
		}
		killed.Store(true)
		deadline := time.NewTimer(killGrace)
		defer deadline.Stop()
		tick := time.NewTicker(killRetry)
		defer tick.Stop()
		for {
			s.kill(ss.id)
			select {
			case <-finished:
				return
			case <-deadline.C:
				dcancel()
				return
			case <-tick.C:
			}
		}
	}()
	err = s.stream(dctx, ss.conn, stmt, v, cancel)
	close(finished)
	<-watcher
	if errors.Is(err, remote.ErrStop) {
		return nil
	}
	if err == nil && killed.Load() && ctx.Err() == nil && qctx.Err() == context.DeadlineExceeded {
		// SLEEP() and a few others return normally when killed.
		return &query.TimeoutError{Limit: timeout}
	}
	if err == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return s.queryError(ctx, qctx, err, timeout, killed.Load())
	}
	return nil
}

// kill asks the server to stop the statement running on session id.
func (s *Source) kill(id int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := s.killer.ExecContext(ctx, "KILL QUERY "+strconv.FormatInt(id, 10)); err != nil {
		s.log.Debug("kill query", "id", id, "err", err)
	}
}

// stream runs stmt on conn and hands its rows to v. stop is called when v
// returns ErrStop, to end the statement on the server; the ErrStop is
// returned.
func (s *Source) stream(ctx context.Context, conn *sql.Conn, stmt string, v remote.Visitor, stop func()) error {
	rows, err := conn.QueryContext(ctx, stmt)
	if err != nil {
		return err
	}
	defer rows.Close()
	// KILL QUERY, so that closing the rows need not read the rest (stop)
	return remote.Stream(rows, func(ct *sql.ColumnType) string { return ct.DatabaseTypeName() }, normalize, v, stop)
}

// unchecked runs text without Loupe's statement check, still in the
// read-only session. It exists for tests that prove the server itself
// refuses writes; nothing else may call it.
func (s *Source) unchecked(ctx context.Context, text string) error {
	return s.run(ctx, text, 10*time.Second, remote.Visitor{Row: func([]any) error { return nil }})
}

func (s *Source) String() string { return fmt.Sprintf("mysql source %s", s.profile.Name) }

// lexicalMode is the SQL expression of the mode mode with ANSI_QUOTES and
// NO_BACKSLASH_ESCAPES taken out. remote.Check reads "…" as a string and
// a backslash as an escape, as MySQL does by default; a server set to
// either mode would read 'a\', LOAD_FILE(…) -- ' or "a\", LOAD_FILE(…)
// -- " as a call the check took for a string. Every query's session is
// pinned to the check's reading.
func lexicalMode(mode string) string {
	return "TRIM(BOTH ',' FROM REPLACE(REPLACE(CONCAT(',', " + mode + ", ','), ',ANSI_QUOTES,', ','), ',NO_BACKSLASH_ESCAPES,', ','))"
}
