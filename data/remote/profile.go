package remote

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// TLSMode says whether and how a connection is encrypted.
type TLSMode string

// TLS modes, in PostgreSQL's sense of the words.
const (
	TLSDisable    TLSMode = "disable"     // never encrypt
	TLSPrefer     TLSMode = "prefer"      // encrypt when the server offers it, without verifying it
	TLSRequire    TLSMode = "require"     // always encrypt, without verifying the certificate
	TLSVerifyFull TLSMode = "verify-full" // encrypt and verify the certificate and host name
)

// TLSModes lists the modes, for help texts and validation.
var TLSModes = []TLSMode{TLSDisable, TLSPrefer, TLSRequire, TLSVerifyFull}

// Profile is a saved connection. It never holds a password: that lives in
// the OS keychain (data/secret) under the profile's name.
type Profile struct {
	Name     string  `json:"name"`
	Kind     Kind    `json:"kind"`
	Host     string  `json:"host,omitempty"`
	Port     int     `json:"port,omitempty"`
	Database string  `json:"database,omitempty"`
	User     string  `json:"user,omitempty"`
	TLS      TLSMode `json:"tls,omitempty"`
	Path     string  `json:"path,omitempty"` // SQLite file, absolute
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// DefaultPort is the usual port of kind, or 0.
func DefaultPort(k Kind) int {
	switch k {
	case Postgres:
		return 5432
	case MySQL:
		return 3306
	}
	return 0
}

// Normalize fills defaults (port, TLS mode, absolute SQLite path) and
// checks the profile, returning a *ConnError with Problem BadProfile that
// says which field to fix.
func (p Profile) Normalize() (Profile, error) {
	if !nameRE.MatchString(p.Name) {
		return p, ProfileError("the connection name %q is not valid: use letters, digits, '.', '_' or '-' (at most 64)", p.Name)
	}
	switch p.Kind {
	case Postgres, MySQL:
		if p.Host == "" {
			return p, ProfileError("connection %s: give the server's host name (--host)", p.Name)
		}
		if p.Port == 0 {
			p.Port = DefaultPort(p.Kind)
		}
		if p.Port < 1 || p.Port > 65535 {
			return p, ProfileError("connection %s: port %d is not a TCP port (1–65535)", p.Name, p.Port)
		}
		if p.Database == "" {
			return p, ProfileError("connection %s: give the database name (--database)", p.Name)
		}
		if p.User == "" {
			return p, ProfileError("connection %s: give the user name (--user)", p.Name)
		}
		if p.TLS == "" {
			p.TLS = TLSPrefer
		}
		ok := false
		for _, m := range TLSModes {
			ok = ok || m == p.TLS
		}
		if !ok {
			return p, ProfileError("connection %s: TLS mode %q is not one of disable, prefer, require, verify-full", p.Name, p.TLS)
		}
		p.Path = ""
	case SQLite:
		if p.Path == "" {
			return p, ProfileError("connection %s: give the SQLite file (--path)", p.Name)
		}
		abs, err := filepath.Abs(p.Path)
		if err != nil {
			return p, ProfileError("connection %s: the path %q is not valid", p.Name, p.Path)
		}
		p = Profile{Name: p.Name, Kind: SQLite, Path: abs}
	default:
		return p, ProfileError("connection %s: kind %q is not one of postgres, mysql, sqlite", p.Name, p.Kind)
	}
	return p, nil
}

// Target is host:port, or the SQLite file.
func (p Profile) Target() string {
	if p.Kind == SQLite {
		return p.Path
	}
	return net.JoinHostPort(p.Host, strconv.Itoa(p.Port))
}

// URL is the profile as a connection URL without a password, for display
// and for the catalog's record of where an imported table came from.
func (p Profile) URL() string {
	if p.Kind == SQLite {
		return (&url.URL{Scheme: "sqlite", Path: filepath.ToSlash(p.Path)}).String()
	}
	u := &url.URL{Scheme: string(p.Kind), User: url.User(p.User), Host: p.Target(), Path: "/" + p.Database}
	if p.TLS != "" {
		u.RawQuery = "tls=" + string(p.TLS)
	}
	return u.String()
}

// ParseURL reads a connection URL — postgres://user:pw@host:port/db,
// mysql://…, sqlite:///path/to/file.db or a plain path ending in .db,
// .sqlite or .sqlite3 — into a profile called name, and returns the
// password it held separately ("" when none). The TLS mode comes from
// sslmode= or tls= (PostgreSQL's words, or MySQL's true, false,
// preferred, skip-verify).
func ParseURL(name, raw string) (Profile, string, error) {
	if !strings.Contains(raw, "://") {
		switch strings.ToLower(filepath.Ext(raw)) {
		case ".db", ".sqlite", ".sqlite3", ".db3":
			return Profile{Name: name, Kind: SQLite, Path: raw}, "", nil
		}
		return Profile{}, "", ProfileError("%q is not a connection URL: write postgres://user@host:port/database, mysql://user@host:port/database or sqlite:///path/file.db", raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Profile{}, "", ProfileError("the connection URL does not parse: %v", err)
	}
	p := Profile{Name: name}
	switch strings.ToLower(u.Scheme) {
	case "postgres", "postgresql":
		p.Kind = Postgres
	case "mysql", "mariadb":
		p.Kind = MySQL
	case "sqlite", "sqlite3", "file":
		p.Kind = SQLite
		p.Path = u.Path
		if u.Host != "" && u.Host != "localhost" {
			p.Path = u.Host + u.Path // sqlite://relative/file.db
		}
		return p, "", nil
	default:
		return Profile{}, "", ProfileError("unknown URL scheme %q: use postgres, mysql or sqlite", u.Scheme)
	}
	p.Host = u.Hostname()
	if ps := u.Port(); ps != "" {
		n, err := strconv.Atoi(ps)
		if err != nil {
			return Profile{}, "", ProfileError("port %q in the URL is not a number", ps)
		}
		p.Port = n
	}
	p.Database = strings.TrimPrefix(u.Path, "/")
	pw := ""
	if u.User != nil {
		p.User = u.User.Username()
		pw, _ = u.User.Password()
	}
	q := u.Query()
	mode := q.Get("sslmode")
	if mode == "" {
		mode = q.Get("tls")
	}
	if mode != "" {
		m, err := tlsFromWord(mode)
		if err != nil {
			return Profile{}, "", err
		}
		p.TLS = m
	}
	return p, pw, nil
}

func tlsFromWord(w string) (TLSMode, error) {
	switch strings.ToLower(w) {
	case "disable", "false", "disabled":
		return TLSDisable, nil
	case "allow", "prefer", "preferred":
		return TLSPrefer, nil
	case "require", "required", "skip-verify", "verify-ca":
		return TLSRequire, nil
	case "verify-full", "true", "verify_identity":
		return TLSVerifyFull, nil
	}
	return "", ProfileError("TLS mode %q is not one of disable, prefer, require, verify-full", w)
}

// ParseTLS reads a TLS mode word (see ParseURL).
func ParseTLS(w string) (TLSMode, error) { return tlsFromWord(w) }

func (p Profile) String() string { return fmt.Sprintf("%s (%s)", p.Name, p.URL()) }
