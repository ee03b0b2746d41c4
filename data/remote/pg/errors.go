package pg

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
)

// connectError turns a failure to connect into a *remote.ConnError that
// says what went wrong and what to do.
func connectError(p remote.Profile, err error) error {
	target := p.Target()
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "28P01":
			return &remote.ConnError{Problem: remote.BadPassword, Target: target, Err: err,
				Msg:  "the server refused the password for user " + p.User,
				Hint: "check the user name and password; store a new password with: loupe connect add " + p.Name + " … --password-stdin"}
		case pe.Code == "3D000":
			return &remote.ConnError{Problem: remote.UnknownDatabase, Target: target, Err: err,
				Msg:  "the server has no database called " + p.Database,
				Hint: "check the database name (psql's \\l lists them) and its capitals"}
		case pe.Code == "28000" && strings.Contains(pe.Message, "no encryption"):
			return &remote.ConnError{Problem: remote.TLSProblem, Target: target, Err: err,
				Msg:  "the server only accepts encrypted connections",
				Hint: "use --tls require (or verify-full with a trusted certificate)"}
		case pe.Code == "28000" || pe.Code == "42501":
			return &remote.ConnError{Problem: remote.NoAccess, Target: target, Err: err,
				Msg:  "the server does not let user " + p.User + " connect to " + p.Database,
				Hint: "ask the database administrator to GRANT CONNECT on the database and allow this host in pg_hba.conf"}
		case pe.Code == "53300":
			return &remote.ConnError{Problem: remote.Unreachable, Target: target, Err: err,
				Msg: "the server has no free connections", Hint: "try again later, or ask the administrator to raise max_connections"}
		}
	}
	msg := err.Error()
	var ce *tls.CertificateVerificationError
	var he x509.HostnameError
	var ua x509.UnknownAuthorityError
	var re *tls.RecordHeaderError
	switch {
	case strings.Contains(msg, "server refused TLS connection"):
		return &remote.ConnError{Problem: remote.TLSProblem, Target: target, Err: err,
			Msg:  "the server does not support TLS, but the connection requires it",
			Hint: "use --tls prefer or disable on a trusted network, or enable ssl on the server"}
	case errors.As(err, &ce), errors.As(err, &he), errors.As(err, &ua), errors.As(err, &re), strings.Contains(msg, "x509:"), strings.Contains(msg, "tls:"):
		return &remote.ConnError{Problem: remote.TLSProblem, Target: target, Err: err,
			Msg:  "the server's TLS certificate could not be verified",
			Hint: "verify-full needs a certificate this machine trusts, issued for the host name you gave; use --tls require to encrypt without verifying"}
	case isNetwork(err):
		return remote.UnreachableError(target, err)
	}
	return &remote.ConnError{Problem: remote.Unreachable, Target: target, Msg: "cannot connect to the database", Hint: "check the connection settings", Err: err}
}

// queryError classifies an error met while running a query. ctx is the
// caller's context, qctx the query's own.
func (s *Source) queryError(ctx, qctx context.Context, err error, timeout time.Duration) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "57014" && strings.Contains(pe.Message, "statement timeout"):
			return &query.TimeoutError{Limit: timeout}
		case pe.Code == "57014" && qctx.Err() != nil:
			return &query.TimeoutError{Limit: timeout}
		case pe.Code == "25006":
			return &guard.RefusedError{Reason: "the server refused it: " + pe.Message + "; Loupe only reads data"}
		case strings.HasPrefix(pe.Code, "08"), pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03":
			return remote.LostError(s.profile.Target(), err)
		case pe.Code == "28P01", pe.Code == "3D000", pe.Code == "28000":
			return connectError(s.profile, err)
		}
		return err
	}
	if errors.Is(qctx.Err(), context.DeadlineExceeded) {
		return &query.TimeoutError{Limit: timeout}
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return connectError(s.profile, err)
	}
	if isNetwork(err) || strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "unexpected EOF") {
		return remote.LostError(s.profile.Target(), err)
	}
	return err
}

func isNetwork(err error) bool {
	var ne net.Error
	var oe *net.OpError
	var de *net.DNSError
	return errors.As(err, &ne) || errors.As(err, &oe) || errors.As(err, &de) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "no such host")
}
