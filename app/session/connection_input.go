package session

import (
	"github.com/loupeapp/loupe/data/remote"
)

// TestPassword is the password to test p, a connection being added or
// edited, with: pw when the input gave one; else, but for SQLite, the one
// stored for the connection it edits (previous, or p's own name when new).
func (c *Connections) TestPassword(p remote.Profile, pw *string, previous string) (string, error) {
	switch {
	case pw != nil:
		return *pw, nil
	case p.Kind != remote.SQLite:
		if previous == "" {
			previous = p.Name
		}
		return c.Password(previous)
	}
	return "", nil
}

// SaveAndRead saves p (SaveConnection) and reads it back as saved, with
// the profile store and the warning about where its password went.
func (s *Session) SaveAndRead(p remote.Profile, pw *string, previous string) (remote.Profile, *remote.Store, string, error) {
	warning, err := s.SaveConnection(p, pw, previous)
	if err != nil {
		return p, nil, "", err
	}
	ps, err := s.Conns.Profiles()
	if err != nil {
		return p, nil, "", err
	}
	p, err = ps.Get(p.Name)
	return p, ps, warning, Wrap(err)
}

// Stored is what is kept beside the saved connection p in ps: whether a
// password is stored for it (never for SQLite) with the warning when that
// is weaker than the OS keychain, and the role warning of its last test.
func (c *Connections) Stored(ps *remote.Store, p remote.Profile) (hasPassword bool, warning string, role *remote.RoleWarning, err error) {
	if p.Kind != remote.SQLite {
		_, w, err := c.Keychain.Get(p.Name)
		hasPassword, warning = err == nil, w
	}
	role, err = ps.Role(p.Name)
	return hasPassword, warning, role, Wrap(err)
}
