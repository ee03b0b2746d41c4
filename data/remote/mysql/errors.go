package mysql

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
)

// Server error numbers Loupe tells apart.
const (
	errAccessDenied     = 1045 // bad user or password
	errDBAccessDenied   = 1044 // the user may not use the database
	errUnknownDB        = 1049
	errInterrupted      = 1317 // KILL QUERY
	errReadOnlyTx       = 1792 // cannot execute statement in a READ ONLY transaction
	errMySQLTimeout     = 3024 // max_execution_time exceeded
	errMariaDBTimeout   = 1969 // max_statement_time exceeded
	errServerShutdown   = 1053
	errConnectionKilled = 1927 // MariaDB: the connection was killed
	errTooManyConns     = 1040
	errSecureTransport  = 3159 // MySQL: require_secure_transport
)

// connectError turns a failure to connect into a *remote.ConnError.
func connectError(p remote.Profile, err error) error {
	target := p.Target()
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case errAccessDenied:
			return &remote.ConnError{Problem: remote.BadPassword, Target: target, Err: err,
				Msg:  "the server refused the password for user " + p.User,
				Hint: "check the user name and password (and that the user may connect from this host); store a new password with: loupe connect add " + p.Name + " … --password-stdin"}
		case errUnknownDB:
			return &remote.ConnError{Problem: remote.UnknownDatabase, Target: target, Err: err,
				Msg:  "the server has no database called " + p.Database,
				Hint: "check the database name (SHOW DATABASES lists them); names are case-sensitive on Linux servers"}
		case errDBAccessDenied:
			// MySQL does not tell a missing database from a forbidden one.
			return &remote.ConnError{Problem: remote.UnknownDatabase, Target: target, Err: err,
				Msg:  "the server has no database called " + p.Database + " that user " + p.User + " may use",
				Hint: "check the database name (SHOW DATABASES lists the ones you may use; names are case-sensitive on Linux servers), or ask the administrator to GRANT SELECT, SHOW VIEW ON " + p.Database + ".* TO the user"}
		case errSecureTransport:
			return &remote.ConnError{Problem: remote.TLSProblem, Target: target, Err: err,
				Msg: "the server only accepts encrypted connections", Hint: "use --tls require (or verify-full with a trusted certificate)"}
		case errTooManyConns:
			return &remote.ConnError{Problem: remote.Unreachable, Target: target, Err: err,
				Msg: "the server has no free connections", Hint: "try again later, or ask the administrator to raise max_connections"}
		}
	}
	var ce *tls.CertificateVerificationError
	var he x509.HostnameError
	var ua x509.UnknownAuthorityError
	switch {
	case errors.Is(err, gomysql.ErrNoTLS):
		return &remote.ConnError{Problem: remote.TLSProblem, Target: target, Err: err,
			Msg:  "the server does not support TLS, but the connection requires it",
			Hint: "use --tls prefer or disable on a trusted network, or configure TLS on the server"}
	case errors.As(err, &ce), errors.As(err, &he), errors.As(err, &ua), strings.Contains(err.Error(), "x509:"), strings.Contains(err.Error(), "tls:"):
		return &remote.ConnError{Problem: remote.TLSProblem, Target: target, Err: err,
			Msg:  "the server's TLS certificate could not be verified",
			Hint: "verify-full needs a certificate this machine trusts, issued for the host name you gave; use --tls require to encrypt without verifying"}
	case isNetwork(err):
		return remote.UnreachableError(target, err)
	}
	return &remote.ConnError{Problem: remote.Unreachable, Target: target, Msg: "cannot connect to the database", Hint: "check the connection settings", Err: err}
}

// queryError classifies an error met while running a query. ctx is the
// caller's context, qctx the query's own; killed says KILL QUERY was sent.
func (s *Source) queryError(ctx, qctx context.Context, err error, timeout time.Duration, killed bool) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case errMySQLTimeout, errMariaDBTimeout:
			return &query.TimeoutError{Limit: timeout}
		case errInterrupted:
			if qctx.Err() != nil {
				return &query.TimeoutError{Limit: timeout}
			}
			return err
		case errReadOnlyTx:
			return &guard.RefusedError{Reason: "the server refused it: " + me.Message + "; Loupe only reads data"}
		case errServerShutdown, errConnectionKilled:
			return remote.LostError(s.profile.Target(), err)
		case errAccessDenied, errUnknownDB, errDBAccessDenied:
			return connectError(s.profile, err)
		}
		return err
	}
	if killed && errors.Is(qctx.Err(), context.DeadlineExceeded) {
		return &query.TimeoutError{Limit: timeout}
	}
	if badConn(err) || isNetwork(err) {
		return remote.LostError(s.profile.Target(), err)
	}
	return err
}

// badConn reports errors that mean the connection is gone.
func badConn(err error) bool {
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, gomysql.ErrInvalidConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "invalid connection")
}

func isNetwork(err error) bool {
	var ne net.Error
	var oe *net.OpError
	var de *net.DNSError
	return errors.As(err, &ne) || errors.As(err, &oe) || errors.As(err, &de) ||
		strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "no such host")
}
