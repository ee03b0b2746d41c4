package remote

import "strings"

// dialect is everything the statement check knows about one engine's SQL:
// how it quotes and comments, which statements may start a query, and which
// functions and relations no query may use.
type dialect struct {
	lex    lexRules
	starts []string // the statement kinds that may run, by their first keyword
	deny   denyList
	// asciiCalls is set when the server may match a function name to a
	// built-in ignoring accents as well as case (MySQL and MariaDB look
	// names up under a general_ci collation), so a called name must be
	// plain ASCII for the deny list to be sure of it.
	asciiCalls bool
	// attributeCalls is set when x.f may call f(x) (PostgreSQL's
	// functional notation), so a name after "." is checked as a call.
	attributeCalls bool
}

// dialects are the engines' dialects; each one's deny list is in its own
// file (deny_postgres.go, deny_mysql.go, deny_sqlite.go).
var dialects = map[Kind]dialect{
	Postgres: {
		lex:            lexRules{nested: true, dollar: true},
		starts:         []string{"SELECT", "WITH", "VALUES", "TABLE", "EXPLAIN", "SHOW"},
		deny:           postgresDeny,
		attributeCalls: true,
	},
	MySQL: {
		lex:        lexRules{backslash: true, dquoteString: true, backtick: true, hashComment: true, dashNeedSpace: true, execComment: true},
		starts:     []string{"SELECT", "WITH", "VALUES", "TABLE", "EXPLAIN", "SHOW", "DESCRIBE", "DESC"},
		deny:       mysqlDeny,
		asciiCalls: true,
	},
	SQLite: {
		lex:    lexRules{backtick: true, brackets: true, tclVars: true},
		starts: []string{"SELECT", "WITH", "VALUES", "EXPLAIN"},
		deny:   sqliteDeny,
	},
}

// harm is why a function or relation is denied; its text ends the refusal.
type harm string

const (
	harmFiles    harm = "it reads or writes files on the database server (or lists its folders)"
	harmPrograms harm = "it runs programs, loads code, or runs SQL given as text (possibly on another server), which Loupe cannot check"
	harmState    harm = "it changes the state of the server or of the session (settings, sequences, other sessions, replication, statistics)"
	harmLocks    harm = "it takes locks on the server that outlive the query"
	harmWaits    harm = "it waits on the server's replication, holding a connection"
)

// denyList is one dialect's functions and relations that no query may use,
// by lower-case name. Function names are matched whether bare, quoted or
// schema-qualified, when called; relations wherever they are named.
type denyList struct {
	functions map[string]harm
	prefixes  []denyPrefix // whole families: pg_ls_*, lo_*, dblink*
	relations map[string]harm
}

type denyPrefix struct {
	prefix string
	harm   harm
}

// function says whether the function named n (lower case) is denied, and why.
func (d denyList) function(n string) (harm, bool) {
	if h, ok := d.functions[n]; ok {
		return h, true
	}
	for _, p := range d.prefixes {
		if strings.HasPrefix(n, p.prefix) {
			return p.harm, true
		}
	}
	return "", false
}

// each gives the names in the list the harm h.
func each(h harm, names ...string) map[string]harm {
	m := make(map[string]harm, len(names))
	for _, n := range names {
		m[n] = h
	}
	return m
}

// merge joins maps of names to harms.
func merge(ms ...map[string]harm) map[string]harm {
	out := map[string]harm{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}
