package pg

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/data/remote"
)

var _ remote.RoleAuditor = (*Source)(nil)

// roleQuery reads, in one catalog query, what the current role may do
// beyond reading: superuser, CREATEROLE, membership in the roles that read
// or write server files or run programs (when the server has them), and
// how many tables it may write and schemas it may create objects in.
const roleQuery = `
SELECT current_user::text,
       r.rolsuper,
       r.rolcreaterole,
       ARRAY(SELECT g.rolname::text FROM pg_roles g
             WHERE g.rolname IN ('pg_read_server_files', 'pg_write_server_files', 'pg_execute_server_program', 'pg_write_all_data')
               AND pg_has_role(current_user, g.oid, 'MEMBER')
             ORDER BY g.rolname),
       (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%'
           AND has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')),
       ARRAY(SELECT n.nspname::text FROM pg_namespace n
             WHERE n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema'
               AND has_schema_privilege(n.oid, 'CREATE')
             ORDER BY n.nspname LIMIT 5)
FROM pg_roles r WHERE r.rolname = current_user`

// what says what each server role lets a query do.
var what = map[string]string{
	"pg_read_server_files":      "reads any file the server can (COPY FROM a file, pg_read_file)",
	"pg_write_server_files":     "writes files on the server (COPY TO a file)",
	"pg_execute_server_program": "runs programs on the server (COPY … PROGRAM)",
	"pg_write_all_data":         "writes every table",
}

// RoleRisks implements remote.RoleAuditor.
func (s *Source) RoleRisks(ctx context.Context) (string, []string, error) {
	var (
		role              string
		super, createRole bool
		members, schemas  []string
		writable          int64
	)
	err := s.pool.QueryRow(ctx, roleQuery).Scan(&role, &super, &createRole, &members, &writable, &schemas)
	if err != nil {
		return "", nil, fmt.Errorf("read the privileges of the role: %w", err)
	}
	var risks []string
	if super {
		risks = append(risks, "is a superuser: reads and writes any file the server can and runs programs on it (COPY … PROGRAM)")
	} else {
		for _, m := range members {
			risks = append(risks, "is a member of "+m+": "+what[m])
		}
		if createRole {
			risks = append(risks, "has CREATEROLE: can grant itself other roles")
		}
	}
	if writable > 0 {
		risks = append(risks, fmt.Sprintf("may write (INSERT, UPDATE, DELETE or TRUNCATE) %d tables", writable))
	}
	if len(schemas) > 0 {
		risks = append(risks, "may create objects in the schemas "+strings.Join(schemas, ", "))
	}
	return role, risks, nil
}
