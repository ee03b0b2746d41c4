package remote

import (
	"errors"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/guard"
)

func TestCheckAccepts(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		text string
		want string // the statement returned, when it differs from the text
	}{
		{Postgres, "SELECT 1", ""},
		{Postgres, "  select 1;  ", "select 1"},
		{Postgres, "SELECT ';' AS semi, $$ ; DELETE $$ AS body, E'\\'; DROP' AS e", ""},
		{Postgres, `SELECT "delete" FROM "update" -- ; DROP TABLE t`, `SELECT "delete" FROM "update"`},
		{Postgres, "/* a /* nested ; */ comment */ SELECT 1", "SELECT 1"},
		{Postgres, "WITH x AS (SELECT 1) SELECT * FROM x", ""},
		{Postgres, "EXPLAIN (FORMAT JSON) SELECT 1", ""},
		{Postgres, "SHOW server_version", ""},
		{Postgres, "TABLE artist", ""},
		{Postgres, "VALUES (1), (2)", ""},
		{Postgres, "SELECT $tag$;$tag$", ""},
		{MySQL, "SELECT 'it\\'s; fine', \"double; quoted\", `weird;name` FROM t", ""},
		{MySQL, "SELECT 1 -- ; DROP\n", "SELECT 1"},
		{MySQL, "SELECT 1 # ; DROP TABLE t", "SELECT 1"},
		{MySQL, "SELECT 5--1", ""}, // -- without a space is minus minus
		{MySQL, "SHOW TABLES", ""},
		// One string: the backslash escapes the quote. The driver sends no
		// multi-statement flag, so a server in NO_BACKSLASH_ESCAPES mode
		// would refuse the text as a syntax error rather than run two.
		{MySQL, "SELECT 'a\\'; DELETE FROM t; -- '", ""},
		{MySQL, "DESCRIBE Track", ""},
		{MySQL, "SELECT REPLACE(Name, 'a', 'b') FROM Track", ""},
		{SQLite, "SELECT [weird;name] FROM `t;t`", ""},
		{SQLite, "SELECT * FROM pragma_table_info('Track')", ""},
		{SQLite, "EXPLAIN QUERY PLAN SELECT 1", ""},
	} {
		got, err := Check(c.kind, c.text)
		want := c.want
		if want == "" {
			want = strings.TrimSpace(c.text)
		}
		if err != nil || strings.TrimSpace(got) != want {
			t.Errorf("%s %q: got %q, %v; want %q", c.kind, c.text, got, err, want)
		}
	}
}

func TestCheckRefuses(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		text string
		why  string // a word the reason must hold
	}{
		{Postgres, "SELECT 1; SELECT 2", "2 statements"},
		{MySQL, "SELECT 1 --\x7f '\n, LOAD_FILE('/etc/passwd') -- '", "load_file"},
		{Postgres, "SELECT 1; DROP TABLE t", "2 statements"},
		{Postgres, "SELECT '$$'; DELETE FROM t; SELECT '$$'", "statements"},
		{Postgres, "SELECT $a$ $b$; $a$; DELETE FROM t", "statements"},
		{Postgres, "DELETE FROM t", "changes rows"},
		{Postgres, "delete from t", "changes rows"},
		{Postgres, "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", "changes rows"},
		{Postgres, "SELECT * INTO t2 FROM t", "INTO"},
		{Postgres, "SELECT * FROM t FOR UPDATE", "locks"},
		{Postgres, "SELECT * FROM t FOR SHARE", "locks"},
		{Postgres, "EXPLAIN ANALYZE DELETE FROM t", "changes rows"},
		{Postgres, "EXPLAIN CREATE TABLE x AS SELECT 1", "creates"},
		{Postgres, "SELECT set_config('statement_timeout', '0', false)", "set_config"},
		{Postgres, "SELECT pg_terminate_backend(1)", "pg_terminate_backend"},
		{Postgres, "SELECT pg_read_file('/etc/passwd')", "pg_read_file"},
		{Postgres, "SELECT query_to_xml('DELETE FROM t', true, false, '')", "query_to_xml"},
		{Postgres, "COPY t TO '/tmp/x'", "files"},
		{Postgres, "SET statement_timeout = 0", "settings"},
		{Postgres, "BEGIN", "transactions"},
		{Postgres, "CALL p()", "procedure"},
		{Postgres, "DO $$ BEGIN END $$", "procedure"},
		{Postgres, "GRANT SELECT ON t TO x", "permissions"},
		{Postgres, "VACUUM", "maintenance"},
		{Postgres, "SELECT 1\x00", "NUL"},
		{Postgres, "-- only a comment\n(", "only"},
		{MySQL, "SELECT 1 /*!; DROP TABLE t */", "comments"},
		{MySQL, "SELECT /*+ MAX_EXECUTION_TIME(0) */ 1", "comments"},
		{MySQL, "SELECT 'a'';'; DELETE FROM t", "statements"},
		{MySQL, "SELECT * FROM t INTO OUTFILE '/tmp/x'", "INTO"},
		{MySQL, "SELECT * FROM t LOCK IN SHARE MODE", "locks"},
		{MySQL, "SELECT LOAD_FILE('/etc/passwd')", "load_file"},
		{MySQL, "REPLACE INTO t VALUES (1)", "changes rows"},
		{MySQL, "USE mysql", "settings"},
		{MySQL, "KILL 5", "server command"},
		{MySQL, "TABLE t; DELETE FROM t", "statements"},
		{SQLite, "ATTACH 'x.db' AS x", "attaches"},
		{SQLite, "PRAGMA journal_mode = WAL", "settings"},
		{SQLite, "SELECT load_extension('x')", "load_extension"},
		{SQLite, "SHOW TABLES", "only SELECT, WITH, VALUES, EXPLAIN"},
		{SQLite, "SELECT [a;b]; DELETE FROM t", "statements"},
	} {
		_, err := Check(c.kind, c.text)
		var re *guard.RefusedError
		if !errors.As(err, &re) || !errors.Is(err, guard.ErrRefused) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s %q: want a refusal mentioning %q, got %v", c.kind, c.text, c.why, err)
		}
	}
}

func TestCheckEmpty(t *testing.T) {
	for _, text := range []string{"", "  ", ";", " ; ; ", "-- nothing", "/* nothing */"} {
		if _, err := Check(Postgres, text); !errors.Is(err, guard.ErrEmpty) {
			t.Errorf("%q: want ErrEmpty, got %v", text, err)
		}
	}
}
