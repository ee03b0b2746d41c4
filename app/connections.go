package app

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/remote"
	_ "github.com/loupeapp/loupe/data/remote/mysql"  // registers the MySQL/MariaDB connector
	_ "github.com/loupeapp/loupe/data/remote/pg"     // registers the PostgreSQL connector
	_ "github.com/loupeapp/loupe/data/remote/sqlite" // registers the SQLite connector
)

// Error codes of database connections, one per remote.Problem (a bad
// profile is CodeInvalid). The "db_" prefix keeps them apart from the
// transport's own "unreachable" (the Loupe backend itself cannot be
// reached).
const (
	CodeDBUnreachable     = "db_unreachable"      // nothing answers at host:port
	CodeDBAuth            = "db_auth"             // the server refused the user or password
	CodeDBUnknownDatabase = "db_unknown_database" // the server has no such database
	CodeDBNoAccess        = "db_no_access"        // the user may not use the database
	CodeDBTLS             = "db_tls"              // TLS required, unsupported, or unverified
	CodeDBLost            = "db_lost"             // the connection dropped while in use
	CodeDBNoFile          = "db_no_file"          // the SQLite file is missing or not a database
)

// Connection is a saved database connection as the sidebar lists it. It
// never holds the password: HasPassword says whether one is stored.
type Connection struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"` // postgres, mysql, sqlite
	Host        string `json:"host,omitempty"`
	Port        int    `json:"port,omitempty"`
	Database    string `json:"database,omitempty"`
	User        string `json:"user,omitempty"`
	TLS         string `json:"tls,omitempty"` // disable, prefer, require, verify-full
	Path        string `json:"path,omitempty"`
	URL         string `json:"url"` // without the password
	HasPassword bool   `json:"hasPassword"`
	// Warning says the password is kept somewhere weaker than the OS
	// keychain (a private file), and how to change that.
	Warning string `json:"warning,omitempty"`
	// Role says, when the last test or use found it, that the connection's
	// role can do more than read, with the SQL of a read-only role.
	Role *remote.RoleWarning `json:"role,omitempty"`
}

// ConnectionInput is a connection being added or edited: either the
// fields, or a URL (postgres://user:pw@host:port/db, mysql://…,
// sqlite:///path/file.db) that gives them.
type ConnectionInput struct {
	Name string `json:"name"`
	// Previous is the name the connection had when it is being edited
	// (renamed or not); "" for a new one.
	Previous string `json:"previous,omitempty"`
	Kind     string `json:"kind,omitempty"`
	Host     string `json:"host,omitempty"`
	Port     int    `json:"port,omitempty"`
	Database string `json:"database,omitempty"`
	User     string `json:"user,omitempty"`
	TLS      string `json:"tls,omitempty"`
	Path     string `json:"path,omitempty"`
	URL      string `json:"url,omitempty"`
	// Password: absent (null) keeps the stored one, "" forgets it,
	// anything else replaces it. A password in URL counts as given.
	Password *string `json:"password,omitempty"`
}

// ConnectionCheck is what a successful connection test found.
type ConnectionCheck struct {
	Name      string  `json:"name"`
	Dialect   string  `json:"dialect"` // PostgreSQL, MySQL, MariaDB, SQLite
	Version   string  `json:"version"`
	Database  string  `json:"database"`
	Tables    int     `json:"tables"` // tables and views
	ElapsedMS float64 `json:"elapsedMs"`
	// Role is set when the role connected as can do more than read
	// (superuser, server-file roles, FILE, write grants): the window shows
	// it with the SQL of a read-only role.
	Role *remote.RoleWarning `json:"role,omitempty"`
}

func (a *App) connectionDTO(ps *remote.Store, p remote.Profile) (c Connection, err error) {
	c = Connection{Name: p.Name, Kind: string(p.Kind), Host: p.Host, Port: p.Port, Database: p.Database,
		User: p.User, TLS: string(p.TLS), Path: p.Path, URL: p.URL()}
	c.HasPassword, c.Warning, c.Role, err = a.s.Conns.Stored(ps, p)
	return c, err
}

// ListConnections returns the saved connections, by name, without their
// passwords.
func (a *App) ListConnections() ([]Connection, error) {
	ps, err := a.s.Conns.Profiles()
	if err != nil {
		return nil, err
	}
	list, err := ps.List()
	if err != nil {
		return nil, wrap(err)
	}
	out := make([]Connection, len(list))
	for i, p := range list {
		if out[i], err = a.connectionDTO(ps, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// profileOf reads in into a checked profile (session.Checked) and the
// password it gives, if any.
func profileOf(in ConnectionInput) (remote.Profile, *string, error) {
	p := remote.Profile{Name: strings.TrimSpace(in.Name), Kind: remote.Kind(in.Kind), Host: strings.TrimSpace(in.Host), Port: in.Port,
		Database: strings.TrimSpace(in.Database), User: strings.TrimSpace(in.User), TLS: remote.TLSMode(in.TLS),
		Path: strings.TrimSpace(in.Path)}
	p, pw, err := session.Checked(p, in.URL, in.Password)
	return p, pw, connError(err)
}

// SaveConnection saves a connection, replacing the one it edits, and
// returns it as saved. Renamed, it keeps its conversations (they name
// the new name) and the notes on its tables. The password goes to the OS keychain (or, where
// there is none, a private file, which Warning says); it never comes back.
// Saving does not test the connection: TestConnectionInput does.
func (a *App) SaveConnection(in ConnectionInput) (*Connection, error) {
	p, pw, err := profileOf(in)
	if err != nil {
		return nil, err
	}
	p, ps, warning, err := a.s.SaveAndRead(p, pw, strings.TrimSpace(in.Previous))
	if err != nil {
		return nil, connError(err)
	}
	c, err := a.connectionDTO(ps, p)
	if err != nil {
		return nil, err
	}
	if warning != "" {
		c.Warning = warning
	}
	return &c, nil
}

// RemoveConnection forgets a connection, its password and the notes on
// its tables. Conversations about it stay; asking in them says the
// connection is gone.
func (a *App) RemoveConnection(name string) error { return a.s.Conns.Remove(name) }

// TestConnection connects to a saved connection, checks that it answers
// and reads its schema. A failure is an Error whose code says which
// (db_unreachable, db_auth, db_unknown_database, db_no_access, db_tls,
// db_no_file) with what to do in its hint.
func (a *App) TestConnection(name string) (*ConnectionCheck, error) {
	p, pw, err := a.s.Conns.Saved(name)
	if err != nil {
		return nil, err
	}
	return a.testProfile(p, pw, true)
}

// TestConnectionInput tests a connection before it is saved (the add and
// edit dialog), as TestConnection does. Without a password in the input,
// the one stored for the connection it edits is used.
func (a *App) TestConnectionInput(in ConnectionInput) (*ConnectionCheck, error) {
	p, pw, err := profileOf(in)
	if err != nil {
		return nil, err
	}
	password, err := a.s.Conns.TestPassword(p, pw, strings.TrimSpace(in.Previous))
	if err != nil {
		return nil, err
	}
	return a.testProfile(p, password, false)
}

// testProfile tests p (session.Connections.Test).
func (a *App) testProfile(p remote.Profile, password string, saved bool) (*ConnectionCheck, error) {
	t, err := a.s.Conns.Test(a.life, p, password, saved)
	if err != nil {
		return nil, connError(err)
	}
	return &ConnectionCheck{Name: p.Name, Dialect: t.Dialect.Name, Version: t.Dialect.Version, Database: t.Schema.Database,
		Tables: len(t.Schema.Tables), ElapsedMS: float64(t.Elapsed.Microseconds()) / 1000, Role: t.Role}, nil
}

// connError shapes the errors of data/remote for the frontend: a
// *remote.ConnError becomes its problem's code with its message and hint;
// anything else goes through AsError.
func connError(err error) error {
	if err == nil {
		return nil
	}
	var ce *remote.ConnError
	if !errors.As(err, &ce) {
		if errors.Is(err, context.DeadlineExceeded) {
			return &Error{Code: CodeDBUnreachable, Message: "The database did not answer within " + session.ConnectTimeout.String() + ".",
				Hint: "Check the host name and port, that the server is running, and that no firewall or VPN blocks it.", Err: err}
		}
		return AsError(err)
	}
	code := map[remote.Problem]string{
		remote.Unreachable:     CodeDBUnreachable,
		remote.BadPassword:     CodeDBAuth,
		remote.UnknownDatabase: CodeDBUnknownDatabase,
		remote.NoAccess:        CodeDBNoAccess,
		remote.TLSProblem:      CodeDBTLS,
		remote.ConnectionLost:  CodeDBLost,
		remote.NoFile:          CodeDBNoFile,
		remote.BadProfile:      CodeInvalid,
	}[ce.Problem]
	if code == "" {
		code = CodeInternal
	}
	msg := upperFirst(forWindow(ce.Msg))
	if ce.Target != "" {
		msg += " (" + ce.Target + ")"
	}
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	hint := upperFirst(windowHint(ce.Problem, ce.Hint))
	if hint != "" && !strings.HasSuffix(hint, ".") {
		hint += "."
	}
	return &Error{Code: code, Message: msg, Hint: hint, Err: err}
}

var (
	flagNote = regexp.MustCompile(`\s*\(--[a-z-]+\)`)
	tlsFlag  = regexp.MustCompile(`--tls ([a-z-]+)`)
)

// forWindow rewords data/remote's messages, written for the command line,
// for the connection dialog: "(--host)" goes, "--tls require" becomes
// "TLS mode require".
func forWindow(s string) string {
	return tlsFlag.ReplaceAllString(flagNote.ReplaceAllString(s, ""), "TLS mode $1")
}

// windowHint is forWindow for a hint, whose clauses telling what to type
// at the command line give way to what to do in the window.
func windowHint(p remote.Problem, hint string) string {
	var kept []string
	for _, part := range strings.Split(forWindow(hint), "; ") {
		if !strings.Contains(part, "loupe connect") {
			kept = append(kept, part)
		}
	}
	h := strings.TrimSuffix(strings.Join(kept, "; "), ".")
	if p == remote.BadPassword {
		h += "; edit the connection to type the password again"
	}
	return h
}
