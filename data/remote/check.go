package remote

import (
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/data/guard"
)

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
	d, ok := dialects[k]
	if !ok {
		return "", fmt.Errorf("check: unknown source kind %q", k)
	}
	if strings.IndexByte(text, 0) >= 0 {
		return "", refuse("the text holds a NUL character")
	}
	stmts := split(text, d.lex)
	switch {
	case len(stmts) == 0:
		return "", guard.ErrEmpty
	case len(stmts) > 1:
		return "", refuse("the text holds %d statements; run exactly one read-only statement at a time", len(stmts))
	}
	st := stmts[0]
	if st.execComment {
		return "", refuse("MySQL and MariaDB run the text of /*! … */, /*M! … */ and /*+ … */ comments; remove them")
	}
	if len(st.words) == 0 {
		return "", refuse("%s", startReason(k, ""))
	}
	first := st.words[0]
	allowed := false
	for _, s := range d.starts {
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
	if err := checkNames(d, st); err != nil {
		return "", err
	}
	return st.text, nil
}

// checkNames refuses a statement that calls a function of the dialect's
// deny list or names one of its relations, however the name is written:
// bare or quoted, in any case, schema-qualified, with comments or
// whitespace before its parenthesis.
func checkNames(d dialect, st stmt) error {
	ns, err := names(st, d.attributeCalls)
	if err != nil {
		return refuse("%v; write names plainly", err)
	}
	for _, n := range ns {
		if h, ok := d.deny.relations[n.text]; ok {
			return refuse("it reads %s, which Loupe does not allow: %s; query the database's own tables instead", n.text, h)
		}
		if !n.called {
			continue
		}
		if d.asciiCalls && !isASCII(n.text) {
			return refuse("it calls %q, a function name with letters outside ASCII, which the server may match to a built-in function ignoring accents; write function names in plain ASCII", n.text)
		}
		if h, ok := d.deny.function(n.text); ok {
			return refuse("it calls %s(), which Loupe does not allow: %s; write the query with ordinary functions on the tables instead", n.text, h)
		}
	}
	return nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
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
	return "only " + strings.Join(dialects[k].starts, ", ") + " statements may run"
}
