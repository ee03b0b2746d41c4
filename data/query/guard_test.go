package query_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/query"
)

// outcome is what a hostile statement may do.
type outcome int

const (
	refused  outcome = iota // a *guard.RefusedError (errors.Is ErrRefused)
	fails                   // any error: garbage DuckDB cannot parse or bind
	harmless                // may even succeed; the workspace must not change
)

type hostile struct {
	cat, sql string
	want     outcome
}

// corpus holds statements an agent, a prompt injection in the data or a
// curious user might send. {IMP} is the import folder, {DIR} the workspace
// folder, {OUT} a folder outside the workspace.
var corpus = []hostile{
	// Files: writes.
	{"file-write", `COPY t TO '{OUT}/out.csv'`, refused},
	{"file-write", `COPY (SELECT * FROM t) TO '{IMP}/out.csv' (HEADER)`, refused},
	{"file-write", `COPY t TO '/tmp/loupe-pwned-copy.csv'`, refused},
	{"file-write", `COPY t TO '{OUT}/out.parquet' (FORMAT parquet)`, refused},
	{"file-write", `COPY (SELECT 1) TO '{DIR}/workspace.duckdb'`, refused},
	{"file-write", `COPY (SELECT 1) TO '{DIR}/workspace.duckdb.tmp/x.csv'`, refused},
	{"file-write", `EXPORT DATABASE '{OUT}/export'`, refused},
	{"file-write", `EXPORT DATABASE '{IMP}/export' (FORMAT parquet)`, refused},
	{"file-write", `cOpY/**/t/**/tO '/tmp/loupe-pwned-mixed.csv'`, refused},
	// Files: reads.
	{"file-read", `COPY t FROM '{IMP}/loaded.csv'`, refused},
	{"file-read", `IMPORT DATABASE '{IMP}'`, refused},
	{"file-read", `PRAGMA import_database('{IMP}')`, refused},
	{"file-read", `SELECT * FROM read_csv('/etc/passwd')`, refused},
	{"file-read", `SELECT * FROM read_text('/etc/passwd')`, refused},
	{"file-read", `SELECT * FROM read_blob('/etc/passwd')`, refused},
	{"file-read", `SELECT * FROM read_parquet('/etc/passwd')`, refused},
	{"file-read", `SELECT * FROM read_json('/etc/passwd')`, refused},
	{"file-read", `SELECT * FROM read_csv_auto('/etc/hostname')`, refused},
	{"file-read", `SELECT * FROM read_ndjson_objects('/etc/passwd')`, refused},
	{"file-read", `SELECT * FROM read_csv('{OUT}/secret.csv')`, refused},
	{"file-read", `SELECT * FROM glob('/etc/*')`, refused},
	{"file-read", `SELECT * FROM glob('{IMP}/../*')`, refused},
	{"file-read", `SELECT * FROM glob('{DIR}/**')`, refused},
	{"file-read", `SELECT * FROM read_text('{IMP}/../workspace.duckdb')`, refused},
	{"file-read", `SELECT * FROM read_blob('{DIR}/workspace.duckdb')`, refused},
	{"file-read", `SELECT * FROM read_blob('{DIR}/workspace.duckdb.wal')`, refused},
	{"file-read", `SELECT * FROM read_text('{IMP}/*/../../workspace.duckdb')`, refused},
	{"file-read", `SELECT * FROM read_text('{IMP}/../../../../../../../etc/passwd')`, refused},
	{"file-read", `SELECT a FROM read_csv('{DIR}/workspace.duckdb', header = false, delim = '\x01', quote = '', columns = {'a': 'VARCHAR'})`, refused},
	{"file-read", `SELECT * FROM sniff_csv('/etc/passwd')`, refused},
	{"file-read", `SELECT * FROM sniff_csv('{DIR}/workspace.duckdb')`, refused},
	{"file-read", `SELECT * FROM parquet_metadata('{DIR}/workspace.duckdb')`, refused},
	{"file-read", `SELECT * FROM parquet_schema('/etc/passwd')`, refused},
	{"file-read", `SELECT * FROM read_csv('~/.bashrc')`, refused},
	{"file-read", `SELECT * FROM read_csv('../../../../etc/passwd')`, refused},
	{"file-read", `SELECT * FROM read_text('file:///etc/passwd')`, refused},
	{"file-read", `SELECT * FROM read_text(['{IMP}/loaded.csv', '/etc/passwd'])`, refused},
	{"file-read", `SELECT * FROM read_text('{IMP}/loaded.csv'), read_text('/etc/passwd')`, refused},
	{"file-read", `SELECT * FROM '/etc/passwd'`, refused},
	{"file-read", `SELECT * FROM '{DIR}/workspace.duckdb'`, refused},
	{"file-read", `SELECT * FROM '{OUT}/secret.csv'`, refused},
	{"file-read", `SELECT * FROM read_duckdb('{DIR}/workspace.duckdb')`, refused},
	{"file-read", `DESCRIBE SELECT * FROM read_csv('/etc/passwd')`, refused},
	{"file-read", `SUMMARIZE SELECT * FROM read_blob('/etc/hostname')`, refused},
	{"file-read", `WITH x AS (SELECT * FROM read_text('/etc/passwd')) SELECT * FROM x`, refused},
	{"file-read", `SELECT (SELECT content FROM read_text('/etc/passwd'))`, refused},
	{"file-read", `SELECT * FROM t WHERE k IN (SELECT content FROM read_text('/etc/hostname'))`, refused},
	{"file-read", `EXPLAIN SELECT * FROM read_csv('{DIR}/workspace.duckdb')`, refused},
	{"file-read", `EXPLAIN ANALYZE SELECT * FROM read_blob('{DIR}/workspace.duckdb')`, refused},
	{"file-read", `PIVOT read_text('/etc/passwd') ON filename USING count(*)`, refused},
	{"file-read", `INSERT INTO t SELECT * FROM read_csv('{DIR}/workspace.duckdb')`, refused},
	{"file-read", `CREATE TABLE x AS SELECT * FROM read_blob('{DIR}/workspace.duckdb')`, refused},
	{"file-read", `UPDATE t SET k = (SELECT content FROM read_text('/etc/passwd'))`, refused},
	{"file-read", `PRAGMA table_info('/etc/passwd')`, fails},
	// Network.
	{"network", `SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')`, refused},
	{"network", `SELECT * FROM read_parquet('https://example.com/x.parquet')`, refused},
	{"network", `SELECT * FROM read_parquet('s3://bucket/x.parquet')`, refused},
	{"network", `SELECT * FROM read_json('hf://datasets/x/y.json')`, refused},
	{"network", `SELECT * FROM 'https://example.com/data.csv'`, refused},
	{"network", `ATTACH 'https://example.com/x.duckdb' AS r`, refused},
	// ATTACH and DETACH.
	{"attach", `ATTACH '{OUT}/new.duckdb' AS p`, refused},
	{"attach", `ATTACH ':memory:' AS m`, refused},
	{"attach", `ATTACH '{IMP}/x.duckdb' AS x (READ_ONLY)`, refused},
	{"attach", `ATTACH '{DIR}/workspace.duckdb' AS again`, refused},
	{"attach", `ATTACH IF NOT EXISTS ':memory:'`, refused},
	{"attach", `DETACH workspace`, refused},
	{"attach", `DETACH DATABASE IF EXISTS m`, refused},
	{"attach", `USE system`, refused},
	// Extensions.
	{"extension", `INSTALL httpfs`, refused},
	{"extension", `LOAD httpfs`, refused},
	{"extension", `FORCE INSTALL httpfs`, refused},
	{"extension", `INSTALL spatial FROM 'http://127.0.0.1:9/'`, refused},
	{"extension", `LOAD '/tmp/loupe-pwned.duckdb_extension'`, refused},
	{"extension", `LOAD parquet`, refused},
	// Settings.
	{"settings", `SET threads = 1`, refused},
	{"settings", `SET memory_limit = '1GB'`, refused},
	{"settings", `SET enable_external_access = true`, refused},
	{"settings", `SET lock_configuration = false`, refused},
	{"settings", `SET allowed_directories = ['/']`, refused},
	{"settings", `SET GLOBAL allowed_paths = ['/etc/passwd']`, refused},
	{"settings", `SET search_path = 'system'`, refused},
	{"settings", `SET temp_directory = '/tmp/loupe-pwned-tmp'`, refused},
	{"settings", `SET VARIABLE x = 42`, refused},
	{"settings", `RESET threads`, refused},
	{"settings", `RESET ALL`, fails},
	{"settings", `PRAGMA threads = 1`, refused},
	{"settings", `PRAGMA enable_profiling`, refused},
	{"settings", `PRAGMA disable_checkpoint_on_shutdown`, refused},
	{"settings", `SELECT * FROM enable_logging()`, refused},
	{"settings", `SELECT * FROM enable_logging(storage = 'file', storage_path = '{IMP}/logs')`, refused},
	{"settings", `SELECT * FROM truncate_duckdb_logs()`, refused},
	{"settings", `SELECT * FROM enable_profiling()`, refused},
	{"settings", `SELECT * FROM disable_peg_parser()`, refused},
	{"settings", `SELECT * FROM enable_peg_parser()`, refused},
	// Secrets.
	{"secrets", `CREATE SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')`, refused},
	{"secrets", `CREATE PERSISTENT SECRET p (TYPE s3, KEY_ID 'a', SECRET 'b')`, refused},
	{"secrets", `DROP SECRET s`, refused},
	{"secrets", `SELECT * FROM duckdb_secrets()`, refused},
	{"secrets", `SELECT * FROM which_secret('s3://x/y', 's3')`, refused},
	// DDL.
	{"ddl", `CREATE TABLE x (i INTEGER)`, refused},
	{"ddl", `CREATE TABLE x AS SELECT * FROM t`, refused},
	{"ddl", `CREATE TEMP TABLE x AS SELECT 1`, refused},
	{"ddl", `CREATE VIEW v AS SELECT 1`, refused},
	{"ddl", `CREATE OR REPLACE VIEW v_t AS SELECT 42 AS id`, refused},
	{"ddl", `CREATE MACRO m(a) AS a + 1`, refused},
	{"ddl", `CREATE TEMP MACRO tm() AS TABLE SELECT 1`, refused},
	{"ddl", `CREATE SEQUENCE s2`, refused},
	{"ddl", `CREATE TYPE mood AS ENUM ('sad', 'ok')`, refused},
	{"ddl", `CREATE SCHEMA s`, refused},
	{"ddl", `CREATE INDEX idx ON t (id)`, refused},
	{"ddl", `ALTER TABLE t ADD COLUMN z INTEGER`, refused},
	{"ddl", `ALTER TABLE t RENAME TO t2`, refused},
	{"ddl", `ALTER VIEW v_t RENAME TO v2`, refused},
	{"ddl", `DROP TABLE t`, refused},
	{"ddl", `DROP TABLE IF EXISTS t CASCADE`, refused},
	{"ddl", `DROP VIEW v_t`, refused},
	{"ddl", `DROP SEQUENCE seq`, refused},
	{"ddl", `CREATE OR REPLACE TABLE t AS SELECT 1 AS id`, refused},
	{"ddl", `COMMENT ON TABLE t IS 'pwned'`, refused},
	// DML.
	{"dml", `INSERT INTO t (id) VALUES (999)`, refused},
	{"dml", `INSERT INTO t SELECT * FROM t`, refused},
	{"dml", `UPDATE t SET v = 0`, refused},
	{"dml", `DELETE FROM t`, refused},
	{"dml", `TRUNCATE t`, refused},
	{"dml", `MERGE INTO t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE`, refused},
	{"dml", `INSERT OR REPLACE INTO pk VALUES (1, 'pwned')`, refused},
	{"dml", `INSERT INTO pk VALUES (1, 'x') ON CONFLICT DO UPDATE SET name = 'pwned'`, refused},
	{"dml", `UPDATE t SET k = 'x' RETURNING *`, refused},
	{"dml", `DELETE FROM t RETURNING *`, refused},
	// Writes wrapped in a CTE.
	{"cte-write", `WITH x AS (SELECT 1) INSERT INTO t (id) SELECT * FROM x`, refused},
	{"cte-write", `WITH x AS (SELECT id FROM t) DELETE FROM t WHERE id IN (SELECT id FROM x)`, refused},
	{"cte-write", `WITH x AS (SELECT 1) UPDATE t SET v = 1`, refused},
	{"cte-write", `WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x`, fails},
	// Stacked statements.
	{"stacked", `SELECT 1; DROP TABLE t`, refused},
	{"stacked", `SELECT 1;DROP TABLE t;`, refused},
	{"stacked", `SELECT ';'; DROP TABLE t`, refused},
	{"stacked", `SELECT 1 AS "a;b"; DROP TABLE t`, refused},
	{"stacked", `SELECT 1 /* ; */; DELETE FROM t`, refused},
	{"stacked", "SELECT 1 -- comment ;\n; DELETE FROM t", refused},
	{"stacked", `SELECT $$;$$; DELETE FROM t`, refused},
	{"stacked", `SELECT E'\\'; DELETE FROM t; --'`, refused},
	{"stacked", `PIVOT t ON k USING sum(v); DROP TABLE t`, refused},
	// Quoting tricks on which an older splitter disagreed with DuckDB: with
	// PIVOT in the text, duckdb-go's PrepareContext ran every statement.
	{"stacked", `SELECT 1 AS x$$$; COMMIT; DELETE FROM t; SELECT 2 -- $$ PIVOT`, refused},
	{"stacked", "SELECT 1 --\r; COMMIT; DELETE FROM t;\nPIVOT t ON k USING sum(v)", refused},
	{"stacked", "SELECT VARCHAR\u00a0e'\\' ' ; COMMIT ; DELETE FROM t ; SELECT 1 -- ' PIVOT", refused},
	{"stacked", "SELECT E'a'\n'\\' ' ; COMMIT ; DELETE FROM t ; SELECT 1 -- ' PIVOT", refused},
	{"stacked", "SELECT 1e'\\' ' ; COMMIT ; DELETE FROM t ; SELECT 1 -- ' PIVOT", refused},
	// Transactions.
	{"transaction", `BEGIN`, refused},
	{"transaction", `BEGIN TRANSACTION`, refused},
	{"transaction", `START TRANSACTION`, refused},
	{"transaction", `COMMIT`, refused},
	{"transaction", `ROLLBACK`, refused},
	{"transaction", `ABORT`, refused},
	{"transaction", `END`, refused},
	// Maintenance.
	{"maintenance", `CHECKPOINT`, refused},
	{"maintenance", `FORCE CHECKPOINT`, refused},
	{"maintenance", `VACUUM`, refused},
	{"maintenance", `VACUUM ANALYZE t`, refused},
	{"maintenance", `ANALYZE`, refused},
	{"maintenance", `SELECT * FROM checkpoint()`, refused},
	{"maintenance", `SELECT * FROM force_checkpoint()`, refused},
	{"maintenance", `PIVOT (SELECT * FROM checkpoint()) ON success USING count(*)`, refused},
	// A PIVOT DuckDB expands into helper statements inside a write.
	{"pivot-write", `COPY (PIVOT t ON k USING sum(v)) TO '{IMP}/pivot.csv'`, refused},
	{"pivot-write", `CREATE TABLE x AS PIVOT t ON k USING sum(v)`, refused},
	{"pivot-write", `INSERT INTO t PIVOT t ON k USING sum(v)`, refused},
	{"pivot-write", `CREATE TABLE x AS PIVOT t ON k IN ('k0') USING sum(v)`, refused},
	{"pivot-write", `EXPLAIN ANALYZE PIVOT t ON k USING sum(v)`, refused},
	// Sleeping: harmless, bounded by the timeout.
	{"sleep", `SELECT sleep_ms(100)`, harmless},
	{"sleep", `SELECT pg_sleep(0.1)`, harmless},
	{"sleep", `SELECT sleep_ms(10000)`, fails},
	{"sleep", `SELECT pg_sleep(60)`, fails},
	{"sleep", `SELECT sleep_ms(1000) FROM range(10)`, fails},
	// Sequences.
	{"sequence", `SELECT nextval('seq')`, refused},
	{"sequence", `SELECT nextval('seq') FROM range(3)`, refused},
	{"sequence", `SELECT currval('seq')`, harmless},
	// CALL, PREPARE, EXECUTE.
	{"call", `CALL checkpoint()`, refused},
	{"call", `CALL force_checkpoint()`, refused},
	{"call", `CALL pragma_table_info('t')`, refused},
	{"call", `CALL enable_logging()`, refused},
	{"prepare", `PREPARE p AS DELETE FROM t`, refused},
	{"prepare", `PREPARE p AS SELECT 1`, refused},
	{"prepare", `EXECUTE p`, refused},
	{"prepare", `DEALLOCATE p`, refused},
	// EXPLAIN ANALYZE runs what it explains.
	{"explain", `EXPLAIN ANALYZE INSERT INTO t (id) VALUES (1)`, refused},
	{"explain", `EXPLAIN ANALYZE DELETE FROM t`, refused},
	{"explain", `EXPLAIN ANALYZE UPDATE t SET v = 0`, refused},
	{"explain", `EXPLAIN ANALYZE COPY (SELECT 1) TO '{IMP}/x.csv'`, refused},
	{"explain", `EXPLAIN ANALYZE COPY (SELECT 1) TO '{OUT}/x.csv'`, refused},
	{"explain", `EXPLAIN ANALYZE COPY (SELECT 1) TO '{DIR}/workspace.duckdb.tmp/x.csv'`, refused},
	{"explain", `EXPLAIN ANALYZE CREATE TABLE x AS SELECT 1`, refused},
	{"explain", `EXPLAIN ANALYZE CHECKPOINT`, refused},
	{"explain", `EXPLAIN ANALYZE SELECT * FROM checkpoint()`, refused},
	{"explain", `EXPLAIN (FORMAT json) DELETE FROM t`, refused},
	{"explain", `EXPLAIN DELETE FROM t`, refused},
	{"explain", `EXPLAIN ANALYZE SELECT nextval('seq')`, refused},
	// SQL given as text.
	{"sql-as-text", `SELECT * FROM query('DROP TABLE t')`, refused},
	{"sql-as-text", `SELECT * FROM query('SELECT * FROM read_text(''/etc/passwd'')')`, refused},
	{"sql-as-text", `SELECT * FROM query_table('t')`, refused},
	{"sql-as-text", `SELECT * FROM query_table('{DIR}/workspace.duckdb')`, refused},
	{"sql-as-text", `SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))`, refused},
	{"sql-as-text", `DESCRIBE SELECT * FROM query('DROP TABLE t')`, refused},
	{"sql-as-text", `FROM histogram('{DIR}/workspace.duckdb', x)`, refused},
	{"sql-as-text", `FROM histogram_values('{IMP}/../workspace.duckdb', x)`, refused},
	// Other table functions.
	{"table-function", `SELECT * FROM arrow_scan(1, 2, 3)`, refused},
	{"table-function", `SELECT * FROM seq_scan()`, refused},
	// Obfuscations.
	{"obfuscation", `DeLeTe FrOm t`, refused},
	{"obfuscation", `DELETE/**/FROM/**/t`, refused},
	{"obfuscation", "DELETE\tFROM\nt", refused},
	{"obfuscation", `/* hi */ DROP /* nested /* comment */ */ TABLE t`, refused},
	{"obfuscation", "DROP\u200bTABLE t", refused},
	{"obfuscation", "DROP\u00a0TABLE\u3000t", refused},
	{"obfuscation", "\ufeffDELETE FROM t", refused},
	{"obfuscation", "ＤＲＯＰ TABLE t", fails},
	{"obfuscation", "DR\u200bOP TABLE t", fails},
	{"obfuscation", "D\u0336ROP TABLE t", fails},
	{"obfuscation", `SELECT 1 UNION ALL DELETE FROM t`, fails},
	{"obfuscation", `SELECT * FROM read_text('/et' || 'c/passwd')`, refused},
	{"obfuscation", `SELECT * FROM read_text(concat('/etc', '/passwd'))`, refused},
	{"obfuscation", `SELECT * FROM read_text(chr(47) || 'etc/passwd')`, refused},
	{"obfuscation", `SELECT * FROM read_text(printf('%s', '/etc/passwd'))`, refused},
	{"obfuscation", `SELECT * FROM read_text((SELECT '/etc/passwd'))`, refused},
	{"obfuscation", `SELECT * FROM "read_text"('/etc/passwd')`, refused},
	{"obfuscation", `SELECT * FROM READ_TEXT('/etc/passwd')`, refused},
	{"obfuscation", `SELECT * FROM main.read_text('/etc/passwd')`, refused},
	{"obfuscation", `SELECT * FROM system.main.read_text('/etc/passwd')`, refused},
	{"obfuscation", `SELECT * FROM read_text(E'\x2fetc\x2fpasswd')`, refused},
	{"obfuscation", `SELECT * FROM read_text(U&'\002fetc\002fpasswd')`, refused},
	{"obfuscation", `SELECT * FROM read_text($$/etc/passwd$$)`, refused},
	{"obfuscation", `SELECT * FROM read_text($x$/etc/passwd$x$)`, refused},
	{"obfuscation", `SELECT * FROM read_text('{IMP}/' || '../workspace.duckdb')`, refused},
	{"obfuscation", `PIVOT "read_blob"('{DIR}/workspace.duckdb') ON filename USING count(*)`, refused},
	{"obfuscation", `PIVOT U&"read\005fblob"('{DIR}/workspace.duckdb') ON filename USING count(*)`, refused},
	{"obfuscation", "\x00DROP TABLE t", refused},
	{"obfuscation", "SELECT 1\x00; DROP TABLE t", refused},
}

// TestHostileCorpus runs every statement of the corpus through the runner
// and checks that it was refused (or failed, or did nothing) and that the
// workspace, its files and the files around it are unchanged afterwards.
func TestHostileCorpus(t *testing.T) {
	if len(corpus) < 100 {
		t.Fatalf("corpus has %d statements, want at least 100", len(corpus))
	}
	f := newFixture(t)
	// One connection besides the engine's own loading connection:
	// connection-level state (settings, variables, prepared statements,
	// temporary objects) left behind by a statement shows in the
	// fingerprint taken on the same connection.
	f.eng.DB().SetMaxOpenConns(2)
	f.eng.DB().SetMaxIdleConns(2)
	ctx := context.Background()
	for _, p := range strayFiles() {
		t.Fatalf("stray file %s exists before the corpus ran; remove it", p)
	}
	home, _ := os.UserHomeDir()
	duckHome := filepath.Join(home, ".duckdb")
	start := fingerprint(t, f.eng.DB())
	startFiles := fileTree(t, f.dir, f.outDir, duckHome)
	const timeout = 2 * time.Second
	cats := map[string]int{}
	for _, h := range corpus {
		cats[h.cat]++
		sql := f.expand(h.sql)
		t.Run(h.cat, func(t *testing.T) {
			before := fingerprint(t, f.eng.DB())
			beforeFiles := fileTree(t, f.dir, f.outDir, duckHome)
			began := time.Now()
			res, err := f.run.Run(ctx, sql, query.Limits{Timeout: timeout})
			took := time.Since(began)
			if took > timeout+time.Second {
				t.Errorf("%q took %s, more than the %s limit + 1 s", sql, took, timeout)
			}
			switch h.want {
			case refused:
				if !errors.Is(err, guard.ErrRefused) {
					t.Errorf("%q: want a refusal, got result %v, error %v", sql, res, err)
				}
			case fails:
				if err == nil {
					t.Errorf("%q: want an error, got %+v", sql, res)
				}
			}
			var te *query.TimeoutError
			if errors.As(err, &te) && h.cat != "sleep" {
				t.Errorf("%q timed out; a hostile statement should be refused at once", sql)
			}
			if after := fingerprint(t, f.eng.DB()); after != before {
				t.Errorf("%q changed the workspace:\n%s", sql, diff(before, after))
			}
			if after := fileTree(t, f.dir, f.outDir, duckHome); after != beforeFiles {
				t.Errorf("%q changed files:\n%s", sql, diff(beforeFiles, after))
			}
			if stray := strayFiles(); len(stray) > 0 {
				t.Errorf("%q created %v", sql, stray)
				for _, p := range stray {
					_ = os.RemoveAll(p)
				}
			}
			if t.Failed() || testing.Verbose() {
				t.Logf("%q -> %s, error: %.200v", sql, took.Round(time.Millisecond), err)
			}
		})
	}
	t.Logf("corpus: %d statements in %d categories: %v", len(corpus), len(cats), cats)
	if end := fingerprint(t, f.eng.DB()); end != start {
		t.Errorf("the corpus changed the workspace:\n%s", diff(start, end))
	}
	if end := fileTree(t, f.dir, f.outDir, duckHome); end != startFiles {
		t.Errorf("the corpus changed files:\n%s", diff(startFiles, end))
	}

	// The data on disk: checkpoint, reopen the workspace fresh and compare
	// every table's and view's definition and content with the start.
	if _, err := f.eng.DB().ExecContext(ctx, "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	if err := f.eng.Close(); err != nil {
		t.Fatal(err)
	}
	eng, err := duck.Open(ctx, f.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	want, got := dataLines(start), dataLines(fingerprint(t, eng.DB()))
	if want == "" || got != want {
		t.Errorf("after a checkpoint and a fresh open, the workspace differs:\n%s", diff(want, got))
	}
}

// dataLines keeps the fingerprint's lines about tables, views and their
// content.
func dataLines(fp string) string {
	var out []string
	for _, line := range strings.Split(fp, "\n") {
		if strings.HasPrefix(line, "content ") || strings.HasPrefix(line, "tables: ") || strings.HasPrefix(line, "views: ") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
