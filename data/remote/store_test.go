package remote

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", "connections.json")
	s := NewStore(path)
	if ps, err := s.List(); err != nil || len(ps) != 0 {
		t.Fatalf("empty store: %v %v", ps, err)
	}
	p, err := s.Put(Profile{Name: "prod", Kind: Postgres, Host: "db.example", Database: "sales", User: "analyst"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Port != 5432 || p.TLS != TLSPrefer {
		t.Fatalf("defaults not filled: %+v", p)
	}
	if _, err := s.Put(Profile{Name: "local", Kind: SQLite, Path: "rel/file.db"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(Profile{Name: "prod", Kind: Postgres, Host: "db2.example", Database: "sales", User: "analyst", TLS: TLSVerifyFull}); err != nil {
		t.Fatal(err)
	}
	ps, err := NewStore(path).List()
	if err != nil || len(ps) != 2 || ps[0].Name != "local" || ps[1].Host != "db2.example" {
		t.Fatalf("reopened: %+v %v", ps, err)
	}
	if !filepath.IsAbs(ps[0].Path) {
		t.Fatalf("SQLite path not made absolute: %s", ps[0].Path)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(strings.ToLower(string(b)), "password") {
		t.Fatalf("the file mentions a password:\n%s", b)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", info.Mode().Perm())
	}
	if err := s.Remove("prod"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("prod"); !errors.Is(err, ErrNoProfile) {
		t.Fatalf("get removed: %v", err)
	}
	if err := s.Remove("prod"); !errors.Is(err, ErrNoProfile) {
		t.Fatalf("remove twice: %v", err)
	}
}

func TestProfileChecks(t *testing.T) {
	for _, c := range []struct {
		p    Profile
		want string
	}{
		{Profile{Name: "bad name!", Kind: Postgres}, "not valid"},
		{Profile{Name: "x", Kind: "oracle"}, "kind"},
		{Profile{Name: "x", Kind: Postgres, Database: "d", User: "u"}, "--host"},
		{Profile{Name: "x", Kind: MySQL, Host: "h", User: "u"}, "--database"},
		{Profile{Name: "x", Kind: MySQL, Host: "h", Database: "d"}, "--user"},
		{Profile{Name: "x", Kind: MySQL, Host: "h", Database: "d", User: "u", Port: 70000}, "port"},
		{Profile{Name: "x", Kind: Postgres, Host: "h", Database: "d", User: "u", TLS: "maybe"}, "TLS mode"},
		{Profile{Name: "x", Kind: SQLite}, "--path"},
	} {
		_, err := c.p.Normalize()
		if ProblemOf(err) != BadProfile || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: want a profile error mentioning %q, got %v", c.p, c.want, err)
		}
	}
}

func TestParseURL(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want Profile
		pw   string
	}{
		{"postgres://ann:pw%40x@db.example:6543/sales?sslmode=require", Profile{Name: "n", Kind: Postgres, Host: "db.example", Port: 6543, Database: "sales", User: "ann", TLS: TLSRequire}, "pw@x"},
		{"postgresql://ann@db.example/sales", Profile{Name: "n", Kind: Postgres, Host: "db.example", Database: "sales", User: "ann"}, ""},
		{"mysql://bob:secret@127.0.0.1:3307/Chinook?tls=true", Profile{Name: "n", Kind: MySQL, Host: "127.0.0.1", Port: 3307, Database: "Chinook", User: "bob", TLS: TLSVerifyFull}, "secret"},
		{"mariadb://bob@h/d?tls=preferred", Profile{Name: "n", Kind: MySQL, Host: "h", Database: "d", User: "bob", TLS: TLSPrefer}, ""},
		{"sqlite:///data/chinook.db", Profile{Name: "n", Kind: SQLite, Path: "/data/chinook.db"}, ""},
		{"data/chinook.sqlite", Profile{Name: "n", Kind: SQLite, Path: "data/chinook.sqlite"}, ""},
	} {
		p, pw, err := ParseURL("n", c.raw)
		if err != nil || p != c.want || pw != c.pw {
			t.Errorf("%s: got %+v %q %v; want %+v %q", c.raw, p, pw, err, c.want, c.pw)
		}
	}
	for _, raw := range []string{"oracle://x/y", "just words", "postgres://h/d?sslmode=sometimes"} {
		if _, _, err := ParseURL("n", raw); ProblemOf(err) != BadProfile {
			t.Errorf("%s: want a profile error, got %v", raw, err)
		}
	}
	p := Profile{Name: "n", Kind: Postgres, Host: "h", Port: 5432, Database: "d", User: "u", TLS: TLSRequire}
	if p.URL() != "postgres://u@h:5432/d?tls=require" {
		t.Fatalf("URL: %s", p.URL())
	}
}
