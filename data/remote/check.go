package remote

import (
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/data/guard"
)

// starts are the statement kinds that may run, by their first keyword.
var starts = map[Kind][]string{
	Postgres: {"SELECT", "WITH", "VALUES", "TABLE", "EXPLAIN", "SHOW"},
	MySQL:    {"SELECT", "WITH", "VALUES", "TABLE", "EXPLAIN", "SHOW", "DESCRIBE", "DESC"},
	SQLite:   {"SELECT", "WITH", "VALUES", "EXPLAIN"},
}

// writeWords may not occur as bare words anywhere in a statement: they
// write inside a read-looking one (a data-modifying WITH, SELECT … INTO,
// a locking read, EXPLAIN ANALYZE of a write).
var writeWords = map[string]string{
	"INSERT":  "it changes rows (INSERT, UPDATE, DELETE or MERGE); Loupe only reads data",
	"UPDATE":  "it changes or locks rows (UPDATE, SELECT … FOR UPDATE); Loupe only reads data",
	"DELETE":  "it changes rows (INSERT, UPDATE, DELETE or MERGE); Loupe only reads data",
	"MERGE":   "it changes rows (INSERT, UPDATE, DELETE or MERGE); Loupe only reads data",
	"INTO":    "SELECT … INTO creates a table or writes a file or variable; return the rows instead",
	"LOCK":    "it locks rows or tables; Loupe only reads data",
	"SHARE":   "it locks rows (FOR SHARE); Loupe only reads data",
	"CREATE":  "it creates objects (DDL); use a CTE (WITH …) for intermediate results",
	"DROP":    "it drops objects (DDL); Loupe only reads data",
	"ALTER":   "it changes objects (DDL); Loupe only reads data",
	"GRANT":   "it changes permissions; Loupe only reads data",
	"REVOKE":  "it changes permissions; Loupe only reads data",
	"CALL":    "it calls a procedure, which may change data; write the query itself",
	"EXECUTE": "it executes a stored statement; write the query itself",
	"PREPARE": "it prepares a stored statement; write the query itself",
	"DECLARE": "it declares a cursor; write the query itself",
}

// deniedFunctions change the server's state, read its files, or run SQL
// text that the check cannot see, per dialect (upper-cased names).
var deniedFunctions = map[Kind][]string{
	Postgres: {
		"PG_TERMINATE_BACKEND", "PG_CANCEL_BACKEND", "PG_RELOAD_CONF", "PG_ROTATE_LOGFILE", "PG_PROMOTE",
		"SET_CONFIG", "NEXTVAL", "SETVAL", "LO_IMPORT", "LO_EXPORT", "LO_UNLINK", "LO_CREATE", "LO_PUT",
		"PG_READ_FILE", "PG_READ_BINARY_FILE", "PG_LS_DIR", "PG_STAT_FILE", "PG_FILE_WRITE",
		"DBLINK", "DBLINK_EXEC", "DBLINK_CONNECT", "PG_NOTIFY", "PG_ADVISORY_LOCK", "PG_ADVISORY_XACT_LOCK",
		"QUERY_TO_XML", "QUERY_TO_XML_AND_XMLSCHEMA", "QUERY_TO_XMLSCHEMA", "PG_SWITCH_WAL", "PG_CREATE_RESTORE_POINT",
	},
	MySQL:  {"LOAD_FILE", "GET_LOCK", "RELEASE_LOCK", "RELEASE_ALL_LOCKS", "SYS_EXEC", "SYS_EVAL"},
	SQLite: {"LOAD_EXTENSION", "READFILE", "WRITEFILE", "EDIT", "FTS3_TOKENIZER"},
}

// Check decides whether text may run on a source of kind k: exactly one
// statement, starting with a read-only keyword (SELECT, WITH, VALUES,
// TABLE, EXPLAIN, SHOW; DESCRIBE on MySQL), with no keyword or function
// that writes, locks or reaches outside the database. It returns the
// statement without its trailing semicolon, with comments blanked.
// Errors: *guard.RefusedError (errors.Is guard.ErrRefused) with the reason,
// or guard.ErrEmpty.
//
// It is the first layer, not the only one: the read-only transaction and
// the user's read-only role are what the server enforces.
func Check(k Kind, text string) (string, error) {
	r, ok := rules[k]
	if !ok {
		return "", fmt.Errorf("check: unknown source kind %q", k)
	}
	if strings.IndexByte(text, 0) >= 0 {
		return "", refuse("the text holds a NUL character")
	}
	stmts := split(text, r)
	switch {
	case len(stmts) == 0:
		return "", guard.ErrEmpty
	case len(stmts) > 1:
		return "", refuse("the text holds %d statements; run exactly one read-only statement at a time", len(stmts))
	}
	st := stmts[0]
	if st.execComment {
		return "", refuse("MySQL runs the text of /*! … */ and /*+ … */ comments; remove them")
	}
	if len(st.words) == 0 {
		return "", refuse("%s", startReason(k, ""))
	}
	first := st.words[0]
	allowed := false
	for _, s := range starts[k] {
		allowed = allowed || s == first
	}
	if !allowed {
		return "", refuse("%s", startReason(k, first))
	}
	for _, w := range st.words {
		if why, bad := writeWords[w]; bad {
			return "", refuse("%s", why)
		}
	}
	for _, w := range st.words {
		for _, f := range deniedFunctions[k] {
			if w == f {
				return "", refuse("it calls %s, which changes the server's state or reaches outside the database", strings.ToLower(f))
			}
		}
	}
	return st.text, nil
}

func refuse(format string, args ...any) error {
	return &guard.RefusedError{Reason: fmt.Sprintf(format, args...)}
}

// startReason explains why a statement starting with word may not run.
func startReason(k Kind, word string) string {
	const only = "; Loupe only reads data"
	switch word {
	case "INSERT", "UPDATE", "DELETE", "MERGE", "REPLACE", "UPSERT", "TRUNCATE":
		return "it changes rows (INSERT, UPDATE, DELETE, MERGE or TRUNCATE)" + only
	case "CREATE", "DROP", "ALTER", "RENAME", "COMMENT", "REINDEX", "CLUSTER":
		return "it creates, changes or drops objects (DDL)" + only + "; use a CTE (WITH …) for intermediate results"
	case "GRANT", "REVOKE":
		return "it changes permissions" + only
	case "SET", "RESET", "USE", "PRAGMA":
		return "it changes settings or the current database, which Loupe fixes for safety"
	case "BEGIN", "START", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "END", "ABORT", "XA":
		return "it controls transactions; every query already runs in its own read-only transaction"
	case "COPY", "LOAD", "IMPORT", "EXPORT":
		return "it reads or writes files; query the tables instead"
	case "ATTACH", "DETACH":
		return "it attaches or detaches databases" + only
	case "CALL", "DO", "EXECUTE", "PREPARE", "DEALLOCATE", "HANDLER":
		return "it runs a procedure or a stored statement; write the query itself"
	case "LOCK", "UNLOCK":
		return "it locks tables" + only
	case "VACUUM", "ANALYZE", "OPTIMIZE", "CHECKPOINT", "FLUSH", "KILL", "SHUTDOWN", "LISTEN", "NOTIFY":
		return "it is a maintenance or server command" + only
	}
	return "only " + strings.Join(starts[k], ", ") + " statements may run"
}
