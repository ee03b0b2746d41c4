package guard

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// The engine's lock (data/duck) keeps DuckDB inside the import folder, but
// DuckDB itself always allows its own files there and beside it: the
// workspace database, its WAL and its spill folder. SELECTs also reach
// table functions that change state despite lock_configuration
// (checkpoint(), enable_logging(), enable_profiling(), …) or run SQL given
// as text (query(), query_table()). So the guard reads DuckDB's syntax
// tree of the statement (json_serialize_sql, the parser only: nothing is
// bound or run) and allows table functions from a list; the ones that
// read files must name their files with plain strings inside the import
// folder.

// readsFiles are the table functions whose first positional argument is a
// file path, a glob or a list of them.
var readsFiles = set(
	"read_csv", "read_csv_auto", "sniff_csv",
	"read_json", "read_json_auto", "read_json_objects", "read_json_objects_auto",
	"read_ndjson", "read_ndjson_auto", "read_ndjson_objects",
	"read_parquet", "parquet_scan", "parquet_metadata", "parquet_schema", "parquet_file_metadata",
	"parquet_kv_metadata", "parquet_full_metadata", "parquet_bloom_probe",
	"read_text", "read_blob", "glob", "read_duckdb",
)

// readsSQL are the table functions that run SQL given as a value, which
// the tree does not show.
var readsSQL = set("query", "query_table", "json_execute_serialized_sql")

// readsTable are table macros whose first argument goes to query_table.
var readsTable = set("histogram", "histogram_values")

// harmless are the other table functions a query may call: generators,
// JSON helpers and DuckDB's catalog and metadata views. Anything not listed
// here or above is refused (checkpoint, force_checkpoint, enable_logging,
// disable_logging, truncate_duckdb_logs, enable_profiling,
// disable_profiling, enable_peg_parser, disable_peg_parser,
// check_peg_parser, arrow_scan, seq_scan, duckdb_secrets, which_secret and
// whatever a newer DuckDB adds) until someone looks at it.
var harmless = set(
	"range", "generate_series", "unnest", "repeat", "repeat_row",
	"json_each", "json_tree", "summary",
	"icu_calendar_names", "pg_timezone_names", "test_all_types", "test_vector_types", "sql_auto_complete",
	"duckdb_approx_database_count", "duckdb_columns", "duckdb_connection_count", "duckdb_constraints",
	"duckdb_coordinate_systems", "duckdb_databases", "duckdb_dependencies", "duckdb_extensions",
	"duckdb_external_file_cache", "duckdb_functions", "duckdb_indexes", "duckdb_keywords",
	"duckdb_log_contexts", "duckdb_logs", "duckdb_logs_parsed", "duckdb_memory", "duckdb_optimizers",
	"duckdb_prepared_statements", "duckdb_profiling_settings", "duckdb_schemas", "duckdb_secret_types",
	"duckdb_sequences", "duckdb_settings", "duckdb_table_sample", "duckdb_tables", "duckdb_temporary_files",
	"duckdb_types", "duckdb_variables", "duckdb_views",
	"pragma_collations", "pragma_database_size", "pragma_metadata_info", "pragma_platform", "pragma_show",
	"pragma_storage_info", "pragma_table_info", "pragma_user_agent", "pragma_version",
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// TableFunctionAllowed reports how the guard treats a table function:
// "files" (allowed on files inside the import folder), "yes" or "no".
// Tests use it to notice table functions a newer DuckDB adds.
func TableFunctionAllowed(name string) string {
	name = strings.ToLower(name)
	switch {
	case readsFiles[name]:
		return "files"
	case harmless[name], readsTable[name]:
		return "yes"
	}
	return "no"
}

// syntax is DuckDB's syntax tree of a text.
type syntax struct {
	ok         bool  // DuckDB serialized the text: SELECT-style statements only
	notSelect  bool  // DuckDB parsed the text but holds a statement that is not a SELECT
	statements []any // one decoded JSON tree per statement
}

// syntaxTree asks DuckDB's parser for the syntax tree of text. It fails
// only when DuckDB cannot be asked; a text it cannot serialize (not a
// SELECT, or not valid SQL) gives ok=false.
func syntaxTree(c *duckdb.Conn, text string) (syntax, error) {
	rows, err := c.QueryContext(context.Background(), "SELECT CAST(json_serialize_sql(CAST($1 AS VARCHAR)) AS VARCHAR)",
		[]driver.NamedValue{{Ordinal: 1, Value: text}})
	if err != nil {
		return syntax{}, fmt.Errorf("syntax tree: %w", err)
	}
	defer rows.Close()
	dest := []driver.Value{nil}
	if err := rows.Next(dest); err != nil && !errors.Is(err, io.EOF) {
		return syntax{}, fmt.Errorf("syntax tree: %w", err)
	}
	s, _ := dest[0].(string)
	return decodeTree(s)
}

// decodeTree reads json_serialize_sql's answer.
func decodeTree(s string) (syntax, error) {
	var out struct {
		Error      bool   `json:"error"`
		Message    string `json:"error_message"`
		Statements []any  `json:"statements"`
	}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return syntax{}, fmt.Errorf("syntax tree: %w", err)
	}
	if out.Error {
		return syntax{notSelect: strings.Contains(out.Message, "Only SELECT statements")}, nil
	}
	return syntax{ok: true, statements: out.Statements}, nil
}

// scope is what a statement may read beyond the workspace's own tables:
// files inside importDir ("" allows none). The databases attached beside
// the workspace (DuckDB files loaded as datasets, parts of wide files) are
// listed only when the statement names a catalog, schema or function
// qualifier, which few do: listing them costs a query. A query may not
// name one that holds views: a loaded file's views were checked
// (ViewReads) only to be read through the datasets, and the file keeps
// the views that failed.
type scope struct {
	importDir string
	c         *duckdb.Conn
	dbs       *attachedDBs
}

// attachedDBs are the attached databases (folded names), listed at first
// use, and whether each holds views, as asked.
type attachedDBs struct {
	names map[string]bool // nil until listed
	views map[string]bool
}

func newScope(c *duckdb.Conn, importDir string) scope {
	return scope{importDir: importDir, c: c, dbs: &attachedDBs{views: map[string]bool{}}}
}

// attached reports whether name (as written) is a database attached
// beside the workspace.
func (s scope) attached(name string) (bool, error) {
	if name == "" {
		return false, nil
	}
	if s.dbs.names == nil {
		names := map[string]bool{}
		err := eachString(s.c, "SELECT database_name FROM duckdb_databases() WHERE database_name NOT IN (current_database(), 'system', 'temp')", nil,
			func(db string) { names[Fold(db)] = true })
		if err != nil {
			return false, err
		}
		s.dbs.names = names
	}
	return s.dbs.names[Fold(name)], nil
}

// named refuses db (a catalog or schema name as written) when it is an
// attached database holding views.
func (s scope) named(db string) error {
	if ok, err := s.attached(db); err != nil || !ok {
		return err
	}
	ldb := Fold(db)
	has, ok := s.dbs.views[ldb]
	if !ok {
		err := eachString(s.c, "SELECT DISTINCT database_name FROM duckdb_views() WHERE NOT internal", nil,
			func(name string) { has = has || Fold(name) == ldb })
		if err != nil {
			return err
		}
		s.dbs.views[ldb] = has
	}
	if has {
		return refuse("it reads the database %s directly, a loaded DuckDB file holding views; query the loaded tables by their names", db)
	}
	return nil
}

// calls refuses a function call f (a FUNCTION expression or a table
// function) qualified with the name of an attached database: a loaded
// file's macros run SQL that no check has read (a table macro may even
// bear an allowed table function's name), and only DuckDB's and the
// workspace's functions are meant to be called.
func (s scope) calls(f map[string]any) error {
	name, _ := f["function_name"].(string)
	for _, k := range []string{"catalog", "schema"} {
		db, _ := f[k].(string)
		ok, err := s.attached(db)
		if err != nil {
			return err
		}
		if ok {
			return refuse("it calls %s(), a function stored in the loaded database file %s; call DuckDB's functions only", name, db)
		}
	}
	return nil
}

// eachString runs q with args on c and calls fn with each row's first
// column, a string.
func eachString(c *duckdb.Conn, q string, args []driver.NamedValue, fn func(string)) error {
	rows, err := c.QueryContext(context.Background(), q, args)
	if err != nil {
		return fmt.Errorf("list attached databases: %w", err)
	}
	defer rows.Close()
	dest := []driver.Value{nil}
	for {
		if err := rows.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("list attached databases: %w", err)
		}
		if v, ok := dest[0].(string); ok {
			fn(v)
		}
	}
}

// syntaxTrees is syntaxTree for many texts, in one query; an empty text
// gives ok=false.
func syntaxTrees(c *duckdb.Conn, texts []string) ([]syntax, error) {
	out := make([]syntax, len(texts))
	if len(texts) == 0 {
		return out, nil
	}
	list := make([]any, len(texts))
	for i, t := range texts {
		list[i] = t
	}
	rows, err := c.QueryContext(context.Background(),
		"SELECT i::BIGINT, CAST(json_serialize_sql(x) AS VARCHAR) FROM unnest(CAST($1 AS VARCHAR[])) WITH ORDINALITY AS u(x, i)",
		[]driver.NamedValue{{Ordinal: 1, Value: list}})
	if err != nil {
		return nil, fmt.Errorf("syntax trees: %w", err)
	}
	defer rows.Close()
	dest := []driver.Value{nil, nil}
	for {
		if err := rows.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("syntax trees: %w", err)
		}
		i, _ := dest[0].(int64)
		s, _ := dest[1].(string)
		if i < 1 || int(i) > len(out) || texts[i-1] == "" {
			continue
		}
		tree, err := decodeTree(s)
		if err != nil {
			return nil, err
		}
		out[i-1] = tree
	}
}

// checkTree walks one statement's syntax tree and refuses table functions
// off the list, file paths outside s.importDir and attached databases
// named directly.
func checkTree(node any, s scope) error {
	switch n := node.(type) {
	case []any:
		for _, e := range n {
			if err := checkTree(e, s); err != nil {
				return err
			}
		}
	case map[string]any:
		switch n["type"] {
		case "TABLE_FUNCTION":
			f, _ := n["function"].(map[string]any)
			if err := s.calls(f); err != nil {
				return err
			}
			if err := checkTableFunction(f, s); err != nil {
				return err
			}
		case "FUNCTION":
			if err := s.calls(n); err != nil {
				return err
			}
		case "BASE_TABLE", "SHOW_REF":
			name, _ := n["table_name"].(string)
			cat, _ := n["catalog_name"].(string)
			sch, _ := n["schema_name"].(string)
			db := cat
			if db == "" {
				db = sch
			}
			if err := s.named(db); err != nil {
				return err
			}
			// FROM 'file.csv' reads a file through a replacement scan.
			if sch == "" && cat == "" && strings.ContainsAny(name, `/\.:~`) {
				if err := checkPath(name, s.importDir); err != nil {
					return err
				}
			}
		}
		for _, v := range n {
			if err := checkTree(v, s); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkTableFunction(f map[string]any, s scope) error {
	name, _ := f["function_name"].(string)
	lname := strings.ToLower(name)
	switch {
	case readsSQL[lname]:
		return refuse("%s() runs SQL given as text, which Loupe cannot check; write the query itself", name)
	case readsTable[lname]:
		// histogram(source, col) reads query_table(source): a table name
		// is fine, a string may name any file a replacement scan reads.
		a := firstPositional(f)
		if a == nil || a["class"] != "COLUMN_REF" {
			return refuse("%s() must name a table, not a string; query the loaded tables", name)
		}
		if parts, _ := a["column_names"].([]any); len(parts) > 1 {
			if db, _ := parts[0].(string); db != "" {
				if err := s.named(db); err != nil {
					return err
				}
			}
		}
		return nil
	case harmless[lname]:
		return nil
	case !readsFiles[lname]:
		return refuse("%s() is not a table function Loupe allows: it may change the database, its settings or its logs; Loupe only reads data", name)
	}
	a := firstPositional(f)
	if a == nil {
		return refuse("%s() must name the file it reads", name)
	}
	paths, ok := constantStrings(a)
	if !ok || len(paths) == 0 {
		return refuse("%s() must name its file with a plain string (no expressions); query the loaded tables instead", name)
	}
	for _, p := range paths {
		if err := checkPath(p, s.importDir); err != nil {
			return err
		}
	}
	return nil // only the first positional argument is a path
}

// firstPositional returns a function call's first argument that is not a
// named parameter (name := value or name = value), or nil.
func firstPositional(f map[string]any) map[string]any {
	args, _ := f["children"].([]any)
	for _, a := range args {
		a, _ := a.(map[string]any)
		if alias, _ := a["alias"].(string); alias != "" || a["class"] == "COMPARISON" {
			continue
		}
		return a
	}
	return nil
}

// constantStrings returns the strings of a VARCHAR constant or of a list
// of them, and false for anything else.
func constantStrings(e map[string]any) ([]string, bool) {
	switch e["class"] {
	case "CONSTANT":
		v, _ := e["value"].(map[string]any)
		typ, _ := v["type"].(map[string]any)
		s, ok := v["value"].(string)
		if typ["id"] != "VARCHAR" || v["is_null"] != false || !ok {
			return nil, false
		}
		return []string{s}, true
	case "FUNCTION":
		if name, _ := e["function_name"].(string); name != "list_value" {
			return nil, false
		}
		var out []string
		kids, _ := e["children"].([]any)
		for _, k := range kids {
			k, _ := k.(map[string]any)
			s, ok := constantStrings(k)
			if !ok {
				return nil, false
			}
			out = append(out, s...)
		}
		return out, true
	}
	return nil, false
}

// checkPath allows a file path or glob only inside importDir. Relative
// paths are resolved the way DuckDB resolves them, against the process's
// working folder.
func checkPath(p, importDir string) error {
	outside := refuse("it reads %q, outside the loaded datasets; query the loaded tables instead", p)
	if importDir == "" || strings.Contains(p, "://") || strings.HasPrefix(p, "~") {
		return outside
	}
	if i := strings.IndexByte(p, ':'); i > 1 && !strings.ContainsAny(p[:i], `/\`) {
		return outside // s3:…, hf:…, but not C:\… or /data/a:b.csv
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return outside
	}
	rel, err := filepath.Rel(filepath.Clean(importDir), abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return outside
	}
	return nil
}

// checkWords is the check for statements DuckDB cannot serialize: it
// refuses any identifier naming a table function that reads files or is
// off the list, or an attached database, before the statement is bound.
func checkWords(st statement, s scope) error {
	if st.uident {
		return refuse(`it uses a U&"…" identifier, which Loupe cannot check in this statement; write names plainly`)
	}
	for _, w := range st.words {
		lw := strings.ToLower(w)
		ok, err := s.attached(w)
		if err != nil {
			return err
		}
		if ok {
			// Without a tree a name may be a table or a function of the
			// file (see calls).
			return refuse("it names the database %s, a loaded file, in a statement Loupe cannot check (PRAGMA, or a PIVOT without an IN list); query the loaded tables by their names", lw)
		}
		if readsFiles[lw] || readsSQL[lw] || readsTable[lw] || risky[lw] {
			return refuse("it uses %s in a statement Loupe cannot check (PRAGMA, DDL, or a PIVOT without an IN list); query the loaded tables, or give the PIVOT an explicit IN list", lw)
		}
	}
	return nil
}

// risky are table functions that change state; checkWords looks for them
// by name where no syntax tree is available.
var risky = set(
	"checkpoint", "force_checkpoint", "enable_logging", "disable_logging", "truncate_duckdb_logs",
	"enable_profiling", "disable_profiling", "enable_peg_parser", "disable_peg_parser", "check_peg_parser",
	"arrow_scan", "arrow_scan_dumb", "seq_scan",
)

// checkExplained checks the statement an EXPLAIN explains: it must be a
// SELECT, which EXPLAIN ANALYZE runs (EXPLAIN ANALYZE COPY … TO writes the
// file, EXPLAIN ANALYZE COMMIT commits), and its tree must pass checkTree.
func checkExplained(c *duckdb.Conn, text string, s scope) error {
	for _, target := range explainTargets(text) {
		tree, err := syntaxTree(c, target)
		if err != nil {
			return err
		}
		if tree.ok && len(tree.statements) == 1 {
			return checkTree(tree.statements[0], s)
		}
	}
	return refuse("only EXPLAIN of a single SELECT query may run")
}

// explainTargets returns the candidate texts of the statement an EXPLAIN
// explains: after EXPLAIN [ANALYZE|ANALYSE] [VERBOSE], and, when an option
// list in parentheses may follow, after that too. DuckDB's parser decides
// which one is a SELECT.
func explainTargets(text string) []string {
	var toks []token
	for _, t := range tokenize(text) {
		if t.kind != tSpace && t.kind != tComment {
			toks = append(toks, t)
		}
	}
	if len(toks) == 0 || toks[0].kind != tWord || toks[0].word != "EXPLAIN" {
		return nil
	}
	k := 1
	for k < len(toks) && toks[k].kind == tWord && (toks[k].word == "ANALYZE" || toks[k].word == "ANALYSE" || toks[k].word == "VERBOSE") {
		k++
	}
	if k >= len(toks) {
		return nil
	}
	out := []string{text[toks[k].start:]}
	if toks[k].kind == tOther && text[toks[k].start] == '(' {
		depth := 0
		for m := k; m < len(toks); m++ {
			if toks[m].kind != tOther {
				continue
			}
			switch text[toks[m].start] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				if m+1 < len(toks) {
					out = append(out, text[toks[m+1].start:])
				}
				break
			}
		}
	}
	return out
}
