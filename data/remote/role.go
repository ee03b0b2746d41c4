package remote

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// RoleAuditor is a Source that can read what its own role may do beyond
// reading the database: the connectors of server engines implement it.
type RoleAuditor interface {
	// RoleRisks returns the role's name and one line per privilege that
	// lets a query reach past reading the data (read or write server
	// files, run programs, write tables); none for a read-only role.
	RoleRisks(ctx context.Context) (role string, risks []string, err error)
}

// RoleWarning says that a connection's role may do more than read, what
// exactly, and the SQL that makes a read-only role instead. It is data for
// the window and the CLI to show as it is.
type RoleWarning struct {
	Role    string   `json:"role"`
	Message string   `json:"message"` // one sentence for a heading
	Advice  string   `json:"advice"`  // why it matters and what to do
	Risks   []string `json:"risks"`
	// SQL creates a read-only role to connect with instead.
	SQL string `json:"sql"`
}

// AuditRole reads the privileges of the role src is connected as. It
// returns nil for a read-only role and for sources that have no roles
// (SQLite files, opened read-only). When the privileges cannot be read,
// the warning says so: the role is not known to be safe.
func AuditRole(ctx context.Context, src Source, p Profile) *RoleWarning {
	a, ok := src.(RoleAuditor)
	if !ok {
		return nil
	}
	role, risks, err := a.RoleRisks(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		role, risks = p.User, []string{fmt.Sprintf("its privileges could not be read (%v), so Loupe cannot tell whether it only reads", err)}
	}
	if len(risks) == 0 {
		return nil
	}
	return &RoleWarning{
		Role:    role,
		Message: fmt.Sprintf("The role %s can do more than read.", role),
		Advice: "Loupe refuses statements that write or reach outside the database, " +
			"but a query that got past that check would run with these privileges. Connect with a read-only role instead.",
		Risks: risks,
		SQL:   ReadOnlyRoleSQL(p.Kind, p.Database),
	}
}

var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*$`)

// ReadOnlyRoleSQL is the SQL an administrator runs to create a read-only
// role for Loupe on a kind of server, for the database named (or mydb when
// the name would need quoting). It is the one source of that SQL: the
// README, `loupe connect`'s help and the connection dialog show it.
func ReadOnlyRoleSQL(k Kind, database string) string {
	db := database
	if !plainName.MatchString(db) {
		db = "mydb"
	}
	switch k {
	case Postgres:
		return strings.Join([]string{
			"CREATE ROLE loupe_ro LOGIN PASSWORD '…';",
			"ALTER ROLE loupe_ro SET default_transaction_read_only = on;",
			"GRANT CONNECT ON DATABASE " + db + " TO loupe_ro;",
			"GRANT USAGE ON SCHEMA public TO loupe_ro;",
			"GRANT SELECT ON ALL TABLES IN SCHEMA public TO loupe_ro;",
		}, "\n")
	case MySQL:
		return strings.Join([]string{
			"CREATE USER 'loupe_ro'@'%' IDENTIFIED BY '…';",
			"GRANT SELECT, SHOW VIEW ON " + db + ".* TO 'loupe_ro'@'%';",
		}, "\n")
	}
	return ""
}
