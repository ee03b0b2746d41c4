package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/workspace"
)

// ConnectionsFile is the profiles file in the config folder, shared with
// `loupe connect` (see remote.DefaultStorePath).
const ConnectionsFile = "connections.json"

// ConnectTimeout bounds a connection test: connecting, pinging and
// reading the schema.
const ConnectTimeout = 30 * time.Second

// Profiles is the store of saved connections in the config folder, one
// per process so that its writes are serialized.
func (c *Connections) Profiles() (*remote.Store, error) {
	dir, err := c.ConfigDir()
	if err != nil {
		return nil, Wrap(err)
	}
	path := filepath.Join(dir, ConnectionsFile)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.store == nil || c.store.Path() != path {
		c.store = remote.NewStore(path)
	}
	return c.store, nil
}

// Profile returns the saved connection name, or CodeNotFound.
func (c *Connections) Profile(name string) (remote.Profile, error) {
	ps, err := c.Profiles()
	if err != nil {
		return remote.Profile{}, err
	}
	p, err := ps.Get(name)
	if errors.Is(err, remote.ErrNoProfile) {
		return p, &Error{Code: CodeNotFound, Message: fmt.Sprintf("No connection is called %q.", name),
			Hint: "It may have been removed or renamed; the sidebar lists the connections.", Err: err}
	}
	return p, Wrap(err)
}

// Password returns the stored password of the connection name, "" when
// none is stored.
func (c *Connections) Password(name string) (string, error) {
	pw, _, err := c.Keychain.Get(name)
	if errors.Is(err, config.ErrNoSecret) {
		return "", nil
	}
	if err != nil {
		return "", KeychainError(err)
	}
	return pw, nil
}

// Saved returns the connection name's profile and its stored password
// ("" for SQLite files and when none is stored).
func (c *Connections) Saved(name string) (remote.Profile, string, error) {
	p, err := c.Profile(name)
	if err != nil || p.Kind == remote.SQLite {
		return p, "", err
	}
	pw, err := c.Password(p.Name)
	return p, pw, err
}

// Checked reads a connection being added or edited into a checked
// profile (defaults filled in) and the password it gives, if any: the
// fields of p, or the URL (postgres://user:pw@host:port/db, mysql://…,
// sqlite:///path/file.db) that gives them all.
func Checked(p remote.Profile, url string, pw *string) (remote.Profile, *string, error) {
	if u := strings.TrimSpace(url); u != "" {
		q, fromURL, err := remote.ParseURL(p.Name, u)
		if err != nil {
			return p, nil, err
		}
		p = q
		if fromURL != "" {
			pw = &fromURL
		}
	}
	if p.Name == config.APIKeyName {
		return p, nil, NewError(CodeInvalid, fmt.Sprintf("%q is reserved for the model's API key.", p.Name), "Choose another name.")
	}
	p, err := p.Normalize()
	if err != nil {
		return p, nil, err
	}
	if p.Kind == remote.SQLite {
		pw = nil
	}
	return p, pw, nil
}

// SaveConnection saves the profile p, replacing prev, the name of the
// connection it edits ("" for a new one), and returns where its password
// went when that is weaker than the OS keychain. pw nil keeps the stored
// password (a renamed connection keeps its own), "" forgets it. Renamed,
// the connection keeps its conversations, its imports (refreshing them
// still runs their query there) and the notes on its tables. Saving does
// not test the connection; a role warning the last test of exactly p
// found is kept with it.
func (s *Session) SaveConnection(p remote.Profile, pw *string, prev string) (string, error) {
	c := s.Conns
	ps, err := c.Profiles()
	if err != nil {
		return "", err
	}
	if prev != p.Name {
		if _, err := ps.Get(p.Name); err == nil {
			return "", NewError(CodeInvalid, fmt.Sprintf("A connection called %q already exists.", p.Name),
				"Choose another name, or edit that connection.")
		}
	}
	if pw == nil && prev != "" && prev != p.Name && p.Kind != remote.SQLite {
		if old, err := c.Password(prev); err != nil {
			return "", err
		} else if old != "" {
			pw = &old
		}
	}
	warning := ""
	switch {
	case p.Kind == remote.SQLite:
		err = c.Keychain.Delete(p.Name)
	case pw == nil:
	case *pw == "":
		err = c.Keychain.Delete(p.Name)
	default:
		warning, err = c.Keychain.Set(p.Name, *pw)
	}
	if err != nil {
		return "", KeychainError(err)
	}
	if p, err = ps.Put(p); err != nil {
		return "", err
	}
	if prev != "" && prev != p.Name {
		if err := s.rename(ps, prev, p.Name); err != nil {
			return "", err
		}
	}
	c.Pool.Evict(p.Name)
	if w, ok := c.lastTested(p); ok {
		if err := ps.SetRole(p.Name, w); err != nil {
			return "", Wrap(err)
		}
	}
	return warning, nil
}

// rename moves what the connection from had to to, its new name: its
// conversations, its imports, its notes; then forgets from.
func (s *Session) rename(ps *remote.Store, from, to string) error {
	st, err := s.Chats.Store()
	if err != nil {
		return err
	}
	if _, err := st.MoveWorkspace(s.Life, remote.Label(from), remote.Label(to)); err != nil {
		return Wrap(fmt.Errorf("keep the conversations of %s after its rename: %w", from, err))
	}
	err = s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error { return MoveImports(ctx, ws, from, to) })
	if err != nil {
		return Wrap(err)
	}
	if err := ps.MoveNotes(from, to); err != nil {
		return Wrap(fmt.Errorf("keep the notes on the tables of %s after its rename: %w", from, err))
	}
	if err := ps.Remove(from); err != nil && !errors.Is(err, remote.ErrNoProfile) {
		return Wrap(err)
	}
	_ = s.Conns.Keychain.Delete(from)
	s.Conns.Pool.Evict(from)
	return nil
}

// Remove forgets the connection name, its password and the notes on its
// tables. Conversations about it stay; asking in them says it is gone.
func (c *Connections) Remove(name string) error {
	ps, err := c.Profiles()
	if err != nil {
		return err
	}
	if err := ps.Remove(name); err != nil {
		if errors.Is(err, remote.ErrNoProfile) {
			_, err = c.Profile(name)
		}
		return Wrap(err)
	}
	c.Pool.Evict(name)
	if err := c.Keychain.Delete(name); err != nil {
		return KeychainError(err)
	}
	return nil
}

// Test connects with p and password within ConnectTimeout, checks that
// the database answers and reads its schema. saved says p is the saved
// connection of its name, whose role warning is then kept; otherwise (a
// profile being edited) the warning is remembered for saving exactly p
// next.
func (c *Connections) Test(ctx context.Context, p remote.Profile, password string, saved bool) (*remote.Tested, error) {
	ctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	t, err := remote.Test(ctx, p, password)
	if err != nil {
		return nil, err
	}
	if !saved {
		c.tested(p, t.Role)
		return t, nil
	}
	ps, err := c.Profiles()
	if err != nil {
		return nil, err
	}
	if err := ps.SetRole(p.Name, t.Role); err != nil {
		return nil, Wrap(err)
	}
	return t, nil
}

// tested remembers the role warning the connection dialog's test of p found.
func (c *Connections) tested(p remote.Profile, w *remote.RoleWarning) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastRole.profile, c.lastRole.warning, c.lastRole.set = p, w, true
}

// lastTested returns the role warning of the last test of exactly p.
func (c *Connections) lastTested(p remote.Profile) (*remote.RoleWarning, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.lastRole.set || c.lastRole.profile != p {
		return nil, false
	}
	return c.lastRole.warning, true
}

// KeychainError is a keychain failure while keeping a database password.
func KeychainError(err error) *Error {
	return &Error{Code: CodeKeychain, Message: "The password cannot be stored: " + err.Error(),
		Hint: "Unlock or install a keychain (on Linux: GNOME Keyring or KWallet, through the Secret Service), " +
			"or set LOUPE_SECRET_<NAME> in the environment Loupe starts from.", Err: err}
}
