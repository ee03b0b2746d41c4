package remote

import (
	"errors"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/guard"
)

// TestCheckRefusesDeniedNamesHoweverWritten is issue 16's bypass: quoting
// a function name must not hide it from the deny list. Each text must be
// refused with a reason that names the function and why it is not allowed.
func TestCheckRefusesDeniedNamesHoweverWritten(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		text string
		want []string // words the reason must hold
	}{
		// PostgreSQL: quoted, qualified, spaced, commented, U&-escaped.
		{Postgres, `SELECT "pg_read_file"('/etc/passwd')`, []string{"pg_read_file()", "not allow", "files"}},
		{Postgres, `SELECT pg_catalog."pg_read_file"('/etc/passwd')`, []string{"pg_read_file()", "files"}},
		{Postgres, `SELECT "pg_catalog"."pg_read_file"('/etc/passwd')`, []string{"pg_read_file()"}},
		{Postgres, `SELECT pg_catalog . "pg_read_file" ('/etc/passwd')`, []string{"pg_read_file()"}},
		{Postgres, "SELECT pg_catalog.\"pg_read_file\" /* c /* nested */ */ -- x\n\t('/etc/passwd')", []string{"pg_read_file()"}},
		{Postgres, "SELECT PG_READ_FILE\v('/etc/passwd')", []string{"pg_read_file()"}},
		{Postgres, `SELECT * FROM "pg_ls_dir"('.')`, []string{"pg_ls_dir()", "files"}},
		{Postgres, `SELECT "PG_LS_DIR"('.')`, []string{"pg_ls_dir()"}},
		{Postgres, `SELECT U&"pg_read\005ffile"('/etc/passwd')`, []string{"pg_read_file()"}},
		{Postgres, `SELECT u&"pg_read!005ffile" UESCAPE '!' ('/etc/passwd')`, []string{"pg_read_file()"}},
		{Postgres, `SELECT U&"pg_read\+00005ffile"('/etc/passwd')`, []string{"pg_read_file()"}},
		{Postgres, `SELECT U&"pg_read\zzzzfile"('/etc/passwd')`, []string{"U& identifier", "plainly"}},
		// Functional notation: x.f is f(x).
		{Postgres, `SELECT ('/etc/passwd'::text).pg_read_file`, []string{"pg_read_file()", "files"}},
		{Postgres, `SELECT (t.p)."pg_read_file" FROM (SELECT '/etc/passwd'::text AS p) t`, []string{"pg_read_file()"}},
		{Postgres, `SELECT ((('/etc/passwd'::text).lo_import)).lo_get`, []string{"lo_import()"}},
		{Postgres, `SELECT ('SELECT 1'::text) . /* c */ "query_to_xml"`, []string{"query_to_xml()"}},
		{Postgres, `SELECT pg_read_binary_file('/etc/passwd')`, []string{"pg_read_binary_file()", "files"}},
		{Postgres, `SELECT pg_stat_file('/etc/passwd')`, []string{"pg_stat_file()"}},
		{Postgres, `SELECT pg_ls_logdir()`, []string{"pg_ls_logdir()"}},
		{Postgres, `SELECT pg_ls_waldir()`, []string{"pg_ls_waldir()"}},
		{Postgres, `SELECT pg_file_write('/tmp/x', 'y', false)`, []string{"pg_file_write()"}},
		{Postgres, `SELECT "lo_import"('/etc/passwd')`, []string{"lo_import()", "files"}},
		{Postgres, `SELECT lo_export(1, '/tmp/x')`, []string{"lo_export()"}},
		{Postgres, `SELECT lo_get(1)`, []string{"lo_get()"}},
		{Postgres, `SELECT * FROM pg_hba_file_rules`, []string{"pg_hba_file_rules", "files"}},
		{Postgres, `TABLE "pg_file_settings"`, []string{"pg_file_settings"}},
		{Postgres, `SELECT "dblink"('host=x', 'SELECT 1')`, []string{"dblink()", "SQL given as text"}},
		{Postgres, `SELECT dblink_connect_u('c', 'dbname=x')`, []string{"dblink_connect_u()"}},
		{Postgres, `SELECT dblink_send_query('c', 'COPY x TO PROGRAM ''id''')`, []string{"dblink_send_query()"}},
		{Postgres, `SELECT public.dblink_exec('c', 'DROP TABLE t')`, []string{"dblink_exec()"}},
		{Postgres, `SELECT "query_to_xml"('SELECT pg_read_file(''/etc/passwd'')', true, false, '')`, []string{"query_to_xml()", "SQL given as text"}},
		{Postgres, `SELECT query_to_xmlschema('SELECT 1', true, false, '')`, []string{"query_to_xmlschema()"}},
		{Postgres, `SELECT * FROM ts_stat('SELECT pg_read_file(''/etc/passwd'')::tsvector')`, []string{"ts_stat()"}},
		{Postgres, `SELECT ts_rewrite('a'::tsquery, 'SELECT 1')`, []string{"ts_rewrite()"}},
		{Postgres, `SELECT "set_config"('statement_timeout', '0', false)`, []string{"set_config()", "state"}},
		{Postgres, `SELECT nextval('s')`, []string{"nextval()"}},
		{Postgres, `SELECT pg_advisory_lock(1)`, []string{"pg_advisory_lock()", "locks"}},
		{Postgres, `SELECT pg_try_advisory_xact_lock_shared(1)`, []string{"pg_try_advisory_xact_lock_shared()"}},
		{Postgres, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity`, []string{"pg_terminate_backend()"}},
		{Postgres, `SELECT pg_reload_conf()`, []string{"pg_reload_conf()"}},
		{Postgres, `SELECT pg_create_logical_replication_slot('s', 'test_decoding')`, []string{"pg_create_logical_replication_slot()"}},
		{Postgres, `SELECT pg_stat_reset()`, []string{"pg_stat_reset()"}},
		{Postgres, `SELECT pg_replication_origin_create('x')`, []string{"pg_replication_origin_create()"}},
		{Postgres, `EXPLAIN ANALYZE SELECT "pg_read_file"('/etc/passwd')`, []string{"pg_read_file()"}},
		{Postgres, `WITH x AS (SELECT "pg_read_file"('/etc/passwd') AS f) SELECT * FROM x`, []string{"pg_read_file()"}},
		// MySQL/MariaDB: backticks, ANSI_QUOTES, comments, accents.
		{MySQL, "SELECT `LOAD_FILE`('/etc/hostname')", []string{"load_file()", "files"}},
		{MySQL, "SELECT `load_file` /* x */ ('/etc/hostname')", []string{"load_file()"}},
		{MySQL, "SELECT LOAD_FILE -- c\n('/etc/hostname')", []string{"load_file()"}},
		{MySQL, "SELECT LOAD_FILE--\v\n('/etc/hostname')", []string{"load_file()"}},
		{MySQL, "SELECT LOAD_FILE # c\n('/etc/hostname')", []string{"load_file()"}},
		{MySQL, `SELECT "LOAD_FILE"('/etc/hostname')`, []string{"load_file()"}}, // ANSI_QUOTES
		{MySQL, "SELECT {fn LOAD_FILE('/etc/hostname')}", []string{"load_file()"}},
		{MySQL, "SELECT 1 /*M! , LOAD_FILE('/etc/hostname') */", []string{"/*M!", "comments"}},
		{MySQL, "SELECT 1 /*M!100000 , LOAD_FILE('/etc/hostname') */", []string{"comments"}},
		{MySQL, "SELECT LÖAD_FILE('/etc/hostname')", []string{"ASCII"}},
		{MySQL, "SELECT GET_LOCK('x', 10)", []string{"get_lock()", "locks"}},
		{MySQL, "SELECT `release_all_locks`()", []string{"release_all_locks()"}},
		{MySQL, "SELECT sys_exec('id')", []string{"sys_exec()", "programs"}},
		{MySQL, "SELECT `sys_eval`('id')", []string{"sys_eval()"}},
		{MySQL, "SELECT MASTER_POS_WAIT('f', 4)", []string{"master_pos_wait()", "replication"}},
		{MySQL, "SELECT NEXTVAL(s)", []string{"nextval()"}},
		{MySQL, "SELECT * FROM t INTO DUMPFILE '/tmp/x'", []string{"INTO"}},
		{MySQL, "LOAD DATA INFILE '/etc/passwd' INTO TABLE t", []string{"files"}},
		// SQLite: double quotes, backticks, brackets.
		{SQLite, `SELECT "load_extension"('x')`, []string{"load_extension()", "loads code"}},
		{SQLite, "SELECT [readfile]('/etc/passwd')", []string{"readfile()", "files"}},
		{SQLite, "SELECT `writefile`('/tmp/x', 'y')", []string{"writefile()"}},
		{SQLite, "SELECT edit('x', 'vi')", []string{"edit()"}},
		{SQLite, "SELECT fts3_tokenizer('simple')", []string{"fts3_tokenizer()"}},
		{SQLite, "SELECT * FROM fsdir('/')", []string{"fsdir"}},
		{SQLite, "SELECT * FROM \"fsdir\" WHERE name = '/etc'", []string{"fsdir", "files"}},
		{SQLite, "ATTACH '/tmp/x.db' AS x", []string{"attaches"}},
	} {
		_, err := Check(c.kind, c.text)
		var re *guard.RefusedError
		if !errors.As(err, &re) || !errors.Is(err, guard.ErrRefused) {
			t.Errorf("%s %q: want a refusal, got %v", c.kind, c.text, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %q: the reason %q does not say %q", c.kind, c.text, err, w)
			}
		}
	}
}

// TestCheckAcceptsNamesLikeDeniedOnes: a denied name that is not called
// (a column called sleep or edit, a string holding a function's name) and
// functions that only share a prefix in prose stay allowed.
func TestCheckAcceptsNamesLikeDeniedOnes(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		text string
	}{
		{Postgres, `SELECT "sleep", lo_price, "pg_read_file" FROM t`},
		{Postgres, `SELECT 'pg_read_file(''/etc/passwd'')' AS s, $$ dblink('x') $$ AS d`},
		{Postgres, `SELECT count(*), "Sum"(x), pg_catalog.lower(name) FROM t`},
		{Postgres, `SELECT U&"d\0061t\+000061" FROM t`},
		{Postgres, `SELECT t.lo_price, t.sleep, s.edit FROM t JOIN s ON s.id = t.id`},
		{Postgres, `SELECT pg_size_pretty(pg_total_relation_size('t')), current_setting('server_version')`},
		{Postgres, `SELECT * FROM pg_catalog.pg_replication_origin_status, pg_catalog.pg_stat_activity`},
		{Postgres, `SELECT pg_catalog.pg_get_viewdef('v'::regclass), n.nspname FROM pg_catalog.pg_namespace n`},
		{MySQL, "SELECT `sleep`, edit, `load_file` FROM t"},
		{MySQL, "SELECT 'LOAD_FILE(x)', \"sleep\" FROM t"},
		{MySQL, "SELECT DATE_FORMAT(d, '%Y-%m'), `COUNT`(*) FROM t GROUP BY 1"},
		{SQLite, "SELECT [edit], `readfile`, \"sleep\" FROM t"},
		{SQLite, "SELECT date('now'), printf('%d', 1)"},
	} {
		if _, err := Check(c.kind, c.text); err != nil {
			t.Errorf("%s %q: %v", c.kind, c.text, err)
		}
	}
}
