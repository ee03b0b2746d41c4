package app_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/data/remote/remotetest"
)

// TestConnectionRoleWarning: the dialog's test of a superuser connection
// returns the role warning with the read-only role's SQL; saving that
// profile keeps it for the sidebar's entry; the read-only role has none.
func TestConnectionRoleWarning(t *testing.T) {
	e := newEnv(t, setup{})
	pg := remotetest.Servers(t, "pg")
	port, err := strconv.Atoi(pg["LOUPE_PG_PORT"])
	if err != nil {
		t.Fatal(err)
	}
	input := func(name, role string) app.ConnectionInput {
		pw := pg["LOUPE_PG_"+role+"_PASSWORD"]
		return app.ConnectionInput{Name: name, Kind: "postgres", Host: pg["LOUPE_PG_HOST"], Port: port,
			Database: pg["LOUPE_PG_DATABASE"], User: pg["LOUPE_PG_"+role+"_USER"], TLS: "prefer", Password: &pw}
	}
	check, err := e.app.TestConnectionInput(input("admin", "ADMIN"))
	if err != nil {
		t.Fatal(err)
	}
	w := check.Role
	if w == nil || !strings.Contains(strings.Join(w.Risks, " "), "superuser") || !strings.Contains(w.SQL, "CREATE ROLE loupe_ro") ||
		!strings.Contains(w.SQL, "GRANT CONNECT ON DATABASE "+pg["LOUPE_PG_DATABASE"]) || w.Role != pg["LOUPE_PG_ADMIN_USER"] {
		t.Fatalf("role warning %+v", w)
	}
	if _, err := e.app.SaveConnection(input("admin", "ADMIN")); err != nil {
		t.Fatal(err)
	}
	check, err = e.app.TestConnectionInput(input("ro", "RO"))
	if err != nil || check.Role != nil {
		t.Fatalf("read-only role: %+v %v", check, err)
	}
	if _, err := e.app.SaveConnection(input("ro", "RO")); err != nil {
		t.Fatal(err)
	}
	list, err := e.app.ListConnections()
	if err != nil || len(list) != 2 {
		t.Fatalf("list %+v %v", list, err)
	}
	for _, c := range list {
		if (c.Role != nil) != (c.Name == "admin") {
			t.Errorf("%s: role warning %+v", c.Name, c.Role)
		}
	}
	// Testing the saved read-only connection keeps it clear; the saved
	// admin, tested again, keeps its warning.
	if chk, err := e.app.TestConnection("admin"); err != nil || chk.Role == nil {
		t.Fatalf("test admin: %+v %v", chk, err)
	}
}
