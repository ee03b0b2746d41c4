package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/remote"
	_ "github.com/loupeapp/loupe/data/remote/mysql"  // registers the MySQL/MariaDB connector
	_ "github.com/loupeapp/loupe/data/remote/pg"     // registers the PostgreSQL connector
	_ "github.com/loupeapp/loupe/data/remote/sqlite" // registers the SQLite connector
	"github.com/loupeapp/loupe/data/workspace"
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

// connectTimeout bounds a connection test: connecting, pinging and
// reading the schema.
const connectTimeout = 30 * time.Second

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

// connectionsFile is the profiles file in the config folder, shared with
// `loupe connect` (see remote.DefaultStorePath).
const connectionsFile = "connections.json"

// profiles is the store of saved connections in the app's config folder.
func (a *App) profiles() (*remote.Store, error) {
	dir, err := a.configDir()
	if err != nil {
		return nil, wrap(err)
	}
	return a.remotes.store(filepath.Join(dir, connectionsFile)), nil
}

// profile returns the saved connection name, or a not_found Error.
func (a *App) profile(name string) (remote.Profile, error) {
	ps, err := a.profiles()
	if err != nil {
		return remote.Profile{}, err
	}
	p, err := ps.Get(name)
	if errors.Is(err, remote.ErrNoProfile) {
		return p, &Error{Code: CodeNotFound, Message: fmt.Sprintf("No connection is called %q.", name),
			Hint: "It may have been removed or renamed; the sidebar lists the connections.", Err: err}
	}
	return p, wrap(err)
}

// password returns the stored password of the connection name, "" when
// none is stored.
func (a *App) password(name string) (string, error) {
	pw, _, err := a.opts.Keychain.Get(name)
	if errors.Is(err, ErrNoSecret) {
		return "", nil
	}
	if err != nil {
		return "", connKeychainError(err)
	}
	return pw, nil
}

// saved returns the connection name's profile and its stored password
// ("" for SQLite files and when none is stored).
func (a *App) saved(name string) (remote.Profile, string, error) {
	p, err := a.profile(name)
	if err != nil || p.Kind == remote.SQLite {
		return p, "", err
	}
	pw, err := a.password(p.Name)
	return p, pw, err
}

func (a *App) connectionDTO(ps *remote.Store, p remote.Profile) (Connection, error) {
	c := Connection{Name: p.Name, Kind: string(p.Kind), Host: p.Host, Port: p.Port, Database: p.Database,
		User: p.User, TLS: string(p.TLS), Path: p.Path, URL: p.URL()}
	if p.Kind != remote.SQLite {
		_, warning, err := a.opts.Keychain.Get(p.Name)
		c.HasPassword, c.Warning = err == nil, warning
	}
	role, err := ps.Role(p.Name)
	if err != nil {
		return c, wrap(err)
	}
	c.Role = role
	return c, nil
}

// ListConnections returns the saved connections, by name, without their
// passwords.
func (a *App) ListConnections() ([]Connection, error) {
	ps, err := a.profiles()
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

// profileOf reads in into a checked profile (defaults filled in) and the
// password it gives, if any.
func profileOf(in ConnectionInput) (remote.Profile, *string, error) {
	name := strings.TrimSpace(in.Name)
	p := remote.Profile{Name: name, Kind: remote.Kind(in.Kind), Host: strings.TrimSpace(in.Host), Port: in.Port,
		Database: strings.TrimSpace(in.Database), User: strings.TrimSpace(in.User), TLS: remote.TLSMode(in.TLS),
		Path: strings.TrimSpace(in.Path)}
	pw := in.Password
	if u := strings.TrimSpace(in.URL); u != "" {
		q, fromURL, err := remote.ParseURL(name, u)
		if err != nil {
			return p, nil, connError(err)
		}
		p = q
		if fromURL != "" {
			pw = &fromURL
		}
	}
	if p.Name == apiKeyName {
		return p, nil, newError(CodeInvalid, fmt.Sprintf("%q is reserved for the model's API key.", p.Name), "Choose another name.")
	}
	p, err := p.Normalize()
	if err != nil {
		return p, nil, connError(err)
	}
	if p.Kind == remote.SQLite {
		pw = nil
	}
	return p, pw, nil
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
	ps, err := a.profiles()
	if err != nil {
		return nil, err
	}
	prev := strings.TrimSpace(in.Previous)
	if prev != p.Name {
		if _, err := ps.Get(p.Name); err == nil {
			return nil, newError(CodeInvalid, fmt.Sprintf("A connection called %q already exists.", p.Name),
				"Choose another name, or edit that connection.")
		}
	}
	// A renamed connection keeps its password unless a new one is given.
	if pw == nil && prev != "" && prev != p.Name && p.Kind != remote.SQLite {
		if old, err := a.password(prev); err != nil {
			return nil, err
		} else if old != "" {
			pw = &old
		}
	}
	warning := ""
	switch {
	case p.Kind == remote.SQLite:
		err = a.opts.Keychain.Delete(p.Name)
	case pw == nil:
	case *pw == "":
		err = a.opts.Keychain.Delete(p.Name)
	default:
		warning, err = a.opts.Keychain.Set(p.Name, *pw)
	}
	if err != nil {
		return nil, connKeychainError(err)
	}
	if p, err = ps.Put(p); err != nil {
		return nil, connError(err)
	}
	if prev != "" && prev != p.Name {
		if err := a.moveChats(prev, p.Name); err != nil {
			return nil, err
		}
		if err := a.moveImports(prev, p.Name); err != nil {
			return nil, err
		}
		if err := ps.MoveNotes(prev, p.Name); err != nil {
			return nil, wrap(fmt.Errorf("keep the notes on the tables of %s after its rename: %w", prev, err))
		}
		if err := ps.Remove(prev); err != nil && !errors.Is(err, remote.ErrNoProfile) {
			return nil, wrap(err)
		}
		_ = a.opts.Keychain.Delete(prev)
		a.remotes.Evict(prev)
	}
	a.remotes.Evict(p.Name)
	if w, ok := a.remotes.lastTested(p); ok {
		if err := ps.SetRole(p.Name, w); err != nil {
			return nil, wrap(err)
		}
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

// moveChats makes the conversations about the connection from be about
// to, its new name, so that they keep asking the same database.
func (a *App) moveChats(from, to string) error {
	st, err := a.chatStore()
	if err != nil {
		return err
	}
	if _, err := st.MoveWorkspace(a.life, remote.Label(from), remote.Label(to)); err != nil {
		return wrap(fmt.Errorf("keep the conversations of %s after its rename: %w", from, err))
	}
	return nil
}

// moveImports makes the datasets imported from the connection from name
// to, its new name, so that refreshing them still runs their query there.
func (a *App) moveImports(from, to string) error {
	err := a.withWorkspace(func(ctx context.Context, ws *workspace.Workspace) error {
		return session.MoveImports(ctx, ws, from, to)
	})
	return wrap(err)
}

// RemoveConnection forgets a connection, its password and the notes on
// its tables. Conversations about it stay; asking in them says the
// connection is gone.
func (a *App) RemoveConnection(name string) error {
	ps, err := a.profiles()
	if err != nil {
		return err
	}
	if err := ps.Remove(name); err != nil {
		if errors.Is(err, remote.ErrNoProfile) {
			_, err = a.profile(name)
		}
		return wrap(err)
	}
	a.remotes.Evict(name)
	if err := a.opts.Keychain.Delete(name); err != nil {
		return connKeychainError(err)
	}
	return nil
}

// TestConnection connects to a saved connection, checks that it answers
// and reads its schema. A failure is an Error whose code says which
// (db_unreachable, db_auth, db_unknown_database, db_no_access, db_tls,
// db_no_file) with what to do in its hint.
func (a *App) TestConnection(name string) (*ConnectionCheck, error) {
	p, pw, err := a.saved(name)
	if err != nil {
		return nil, err
	}
	chk, err := testProfile(a.life, p, pw)
	if err != nil {
		return nil, err
	}
	ps, err := a.profiles()
	if err != nil {
		return nil, err
	}
	if err := ps.SetRole(p.Name, chk.Role); err != nil {
		return nil, wrap(err)
	}
	return chk, nil
}

// TestConnectionInput tests a connection before it is saved (the add and
// edit dialog), as TestConnection does. Without a password in the input,
// the one stored for the connection it edits is used.
func (a *App) TestConnectionInput(in ConnectionInput) (*ConnectionCheck, error) {
	p, pw, err := profileOf(in)
	if err != nil {
		return nil, err
	}
	password := ""
	switch {
	case pw != nil:
		password = *pw
	case p.Kind != remote.SQLite:
		stored := strings.TrimSpace(in.Previous)
		if stored == "" {
			stored = p.Name
		}
		if password, err = a.password(stored); err != nil {
			return nil, err
		}
	}
	chk, err := testProfile(a.life, p, password)
	if err != nil {
		return nil, err
	}
	// Saving this very profile next keeps the role warning found here.
	a.remotes.tested(p, chk.Role)
	return chk, nil
}

// testProfile runs remote.Test on p within connectTimeout.
func testProfile(ctx context.Context, p remote.Profile, password string) (*ConnectionCheck, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	t, err := remote.Test(ctx, p, password)
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
			return &Error{Code: CodeDBUnreachable, Message: "The database did not answer within " + connectTimeout.String() + ".",
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

// connKeychainError is a keychain failure while keeping a database
// password.
func connKeychainError(err error) *Error {
	return &Error{Code: CodeKeychain, Message: "The password cannot be stored: " + err.Error(),
		Hint: "Unlock or install a keychain (on Linux: GNOME Keyring or KWallet, through the Secret Service), " +
			"or set LOUPE_SECRET_<NAME> in the environment Loupe starts from.", Err: err}
}
