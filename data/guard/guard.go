// Package guard decides whether a statement may run on the workspace:
// exactly one statement, whose type DuckDB's own parser reports, from an
// allowlist of read-only types. It is the first of the safety layers; the
// locked database (data/duck) and the read-only transaction (data/query)
// are the others.
package guard

import (
	"errors"
	"fmt"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/duck"
)

// ErrRefused is matched (errors.Is) by every *RefusedError.
var ErrRefused = errors.New("refused by the read-only guard")

// ErrEmpty means the text holds no statement at all.
var ErrEmpty = errors.New("the query is empty: write one SELECT statement")

// RefusedError says, in one sentence, why a statement may not run.
type RefusedError struct {
	Reason string
}

func (e *RefusedError) Error() string { return "refused: " + e.Reason }

// Is makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

func refuse(format string, args ...any) error {
	return &RefusedError{Reason: fmt.Sprintf(format, args...)}
}

// Kind is the type of an accepted statement.
type Kind int

const (
	// Select covers SELECT, VALUES, FROM-first, WITH, DESCRIBE, SHOW,
	// SUMMARIZE, PIVOT and table PRAGMAs, which DuckDB plans as SELECTs.
	Select Kind = iota + 1
	// Explain is EXPLAIN [ANALYZE] of a statement.
	Explain
)

// Checked is a statement the guard accepted.
type Checked struct {
	// Text is the statement with comments blanked and no trailing semicolon.
	Text string
	Kind Kind
	// Stmt is the prepared statement; nil when Expanded. The caller closes it.
	Stmt *duckdb.Stmt
	// Expanded is set for a PIVOT whose values DuckDB must discover first:
	// the parser expands it into helper statements (CREATE TYPE … AS ENUM,
	// checked by DuckDB's parser) that are executed before the final
	// SELECT, so it cannot be prepared on its own. The caller must run it
	// inside a read-only transaction and check that the final statement is
	// a SELECT with CheckFinal.
	Expanded bool
}

// Check parses query with DuckDB on c and returns it prepared if it may
// run. It returns a *RefusedError for statements that are not read-only,
// that read files outside importDir (the only folder the loaded datasets
// live in; "" allows no file at all) or that name a loaded DuckDB file
// holding views (only the datasets' views may read it), ErrEmpty for an empty text, and
// DuckDB's error (a mistake in the SQL the author can fix) when the
// statement does not parse or bind.
func Check(c *duckdb.Conn, query, importDir string) (*Checked, error) {
	if strings.IndexByte(query, 0) >= 0 {
		return nil, refuse("the text holds a NUL character")
	}
	stmts := split(query)
	switch {
	case len(stmts) == 0:
		return nil, ErrEmpty
	case len(stmts) > 1:
		return nil, refuse("the text holds %d statements; run exactly one read-only statement at a time", len(stmts))
	}
	st := stmts[0]
	text := st.text
	if st.first() == "IMPORT" || st.has("IMPORT_DATABASE") {
		// DuckDB reads the folder's schema.sql and load.sql while parsing.
		return nil, refuse("it reads files (IMPORT DATABASE); query the loaded tables instead")
	}
	// What the statement is and what it reads are checked on DuckDB's own
	// syntax tree before it is prepared: binding a table function already
	// opens its files.
	sc := newScope(c, importDir)
	explained := st.first() == "EXPLAIN"
	var tree syntax
	if explained {
		if err := checkExplained(c, text, sc); err != nil {
			return nil, err
		}
	} else {
		var err error
		if tree, err = syntaxTree(c, text); err != nil {
			return nil, err
		}
		switch {
		case tree.notSelect && !st.has("PIVOT") && !st.has("UNPIVOT") && st.first() != "PRAGMA":
			// DuckDB's parser says it is not a SELECT: refuse it before it
			// is bound, as binding alone has effects (EXPORT DATABASE
			// creates its folder, COPY … FROM opens its file). PRAGMA and
			// PIVOT become SELECTs only later and are checked below.
			return nil, refuse("%s", reason(keywordType(st.words)))
		case tree.ok:
			if len(tree.statements) != 1 {
				return nil, refuse("DuckDB reads %d statements in the text; run exactly one read-only statement at a time", len(tree.statements))
			}
			if err := checkTree(tree.statements[0], sc); err != nil {
				return nil, err
			}
		default:
			// PRAGMA, a PIVOT DuckDB expands into several statements, or
			// text DuckDB cannot parse: there is no tree, so look for the
			// risky functions by name before binding.
			if err := checkWords(st, sc); err != nil {
				return nil, err
			}
		}
	}
	prep, err := c.Prepare(text)
	if err != nil {
		if strings.Contains(err.Error(), "multi-statement") {
			return checkExpanded(c, st)
		}
		return nil, Classify(err)
	}
	ds, ok := prep.(*duckdb.Stmt)
	if !ok {
		_ = prep.Close()
		return nil, fmt.Errorf("unexpected prepared statement %T", prep)
	}
	kind, err := CheckFinal(ds)
	if err == nil {
		switch {
		case kind == Explain && !explained:
			err = refuse("only EXPLAIN of a SELECT query may run")
		case kind == Select && !tree.ok && st.first() != "PRAGMA":
			err = refuse("DuckDB runs it as a query but Loupe cannot check what it reads; write it as a SELECT")
		}
	}
	if err != nil {
		_ = ds.Close()
		return nil, err
	}
	return &Checked{Text: text, Kind: kind, Stmt: ds}, nil
}

// checkExpanded accepts a text DuckDB splits into several statements only
// when it is one PIVOT that DuckDB expanded: every statement but the last
// must be one of the CREATE TYPE … AS ENUM helpers the expansion adds
// (they are temporary and die with the read-only transaction). The count
// and the types come from DuckDB's own parser, so a text that the splitter
// above takes for one statement while DuckDB reads several (a COMMIT and a
// DELETE hidden behind a quoting trick) is refused here: duckdb-go's
// PrepareContext would otherwise run all but the last.
func checkExpanded(c *duckdb.Conn, st statement) (*Checked, error) {
	several := refuse("DuckDB reads several statements in the text; run exactly one read-only statement at a time")
	if !st.has("PIVOT") && !st.has("UNPIVOT") {
		return nil, several
	}
	types, err := duck.StatementTypes(c, st.text)
	if err != nil {
		return nil, Classify(err)
	}
	if len(types) < 2 {
		return nil, several
	}
	for _, t := range types[:len(types)-1] {
		if t != duckdb.STATEMENT_TYPE_CREATE {
			return nil, several
		}
	}
	return &Checked{Text: st.text, Kind: Select, Expanded: true}, nil
}

// CheckFinal checks the type of a prepared statement against the allowlist.
func CheckFinal(st *duckdb.Stmt) (Kind, error) {
	t, err := st.StatementType()
	if err != nil {
		return 0, fmt.Errorf("statement type: %w", err)
	}
	switch t {
	case duckdb.STATEMENT_TYPE_SELECT:
		return Select, nil
	case duckdb.STATEMENT_TYPE_EXPLAIN:
		return Explain, nil
	}
	return 0, refuse("%s", reason(t))
}

// reason explains, in words an analyst reads, why a statement type is refused.
func reason(t duckdb.StmtType) string {
	const only = "; Loupe only reads data"
	switch t {
	case duckdb.STATEMENT_TYPE_INSERT, duckdb.STATEMENT_TYPE_UPDATE, duckdb.STATEMENT_TYPE_DELETE:
		return "it changes rows (INSERT, UPDATE or DELETE)" + only
	case duckdb.STATEMENT_TYPE_CREATE, duckdb.STATEMENT_TYPE_CREATE_FUNC, duckdb.STATEMENT_TYPE_DROP, duckdb.STATEMENT_TYPE_ALTER:
		return "it creates, changes or drops objects (DDL)" + only + "; use a CTE (WITH …) for intermediate results"
	case duckdb.STATEMENT_TYPE_COPY, duckdb.STATEMENT_TYPE_EXPORT:
		return "it reads or writes files (COPY or EXPORT); query the loaded tables instead"
	case duckdb.STATEMENT_TYPE_ATTACH, duckdb.STATEMENT_TYPE_DETACH:
		return "it attaches or detaches databases; load the database file in Loupe instead"
	case duckdb.STATEMENT_TYPE_SET, duckdb.STATEMENT_TYPE_VARIABLE_SET, duckdb.STATEMENT_TYPE_PRAGMA:
		return "it changes settings (SET, RESET or PRAGMA), which are fixed for safety"
	case duckdb.STATEMENT_TYPE_TRANSACTION:
		return "it controls transactions; every query already runs in its own read-only transaction"
	case duckdb.STATEMENT_TYPE_LOAD, duckdb.STATEMENT_TYPE_EXTENSION:
		return "it installs or loads extensions, which are disabled for safety"
	case duckdb.STATEMENT_TYPE_CALL:
		return "it calls a procedure (CALL or CHECKPOINT); to read a table function use SELECT * FROM fn(…)"
	case duckdb.STATEMENT_TYPE_VACUUM, duckdb.STATEMENT_TYPE_ANALYZE:
		return "it is a maintenance statement (VACUUM, ANALYZE or CHECKPOINT)" + only
	case duckdb.STATEMENT_TYPE_PREPARE, duckdb.STATEMENT_TYPE_EXECUTE:
		return "it prepares or executes a stored statement; write the query itself"
	}
	return "only SELECT-style queries (SELECT, WITH, DESCRIBE, SUMMARIZE, PIVOT, EXPLAIN) may run"
}

// keywordType names the statement type a refused non-SELECT statement's
// leading keywords announce. It only chooses the words of the refusal; the
// decision to refuse is DuckDB's parser's.
func keywordType(words []string) duckdb.StmtType {
	w := func(i int) string {
		if i < len(words) {
			return words[i]
		}
		return ""
	}
	first := w(0)
	if first == "FORCE" {
		first = w(1)
	}
	if first == "WITH" {
		for _, x := range words {
			if x == "INSERT" || x == "UPDATE" || x == "DELETE" {
				return duckdb.STATEMENT_TYPE_INSERT
			}
		}
	}
	switch first {
	case "INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE":
		return duckdb.STATEMENT_TYPE_INSERT
	case "CREATE", "DROP", "ALTER", "COMMENT", "DEALLOCATE":
		return duckdb.STATEMENT_TYPE_CREATE
	case "COPY", "EXPORT", "IMPORT":
		return duckdb.STATEMENT_TYPE_COPY
	case "ATTACH", "DETACH":
		return duckdb.STATEMENT_TYPE_ATTACH
	case "SET", "RESET", "USE":
		return duckdb.STATEMENT_TYPE_SET
	case "BEGIN", "START", "COMMIT", "ROLLBACK", "ABORT", "END":
		return duckdb.STATEMENT_TYPE_TRANSACTION
	case "INSTALL", "LOAD", "UPDATE_EXTENSIONS":
		return duckdb.STATEMENT_TYPE_LOAD
	case "CALL":
		return duckdb.STATEMENT_TYPE_CALL
	case "CHECKPOINT", "VACUUM", "ANALYZE":
		return duckdb.STATEMENT_TYPE_VACUUM
	case "PREPARE", "EXECUTE":
		return duckdb.STATEMENT_TYPE_PREPARE
	}
	return duckdb.STATEMENT_TYPE_INVALID
}

// Classify turns a DuckDB error met while preparing or running a checked
// statement into a refusal when it comes from a safety layer (the locked
// database or the read-only transaction), and returns it unchanged when it
// is an ordinary mistake in the SQL.
func Classify(err error) error {
	var de *duckdb.Error
	if !errors.As(err, &de) {
		return err
	}
	switch {
	case de.Type == duckdb.ErrorTypePermission:
		return refuse("it reads files, URLs or settings outside the loaded datasets; query the loaded tables instead")
	case de.Type == duckdb.ErrorTypeTransaction && strings.Contains(de.Msg, "read-only"):
		return refuse("it would change the workspace" + "; Loupe only reads data")
	case strings.Contains(de.Msg, "configuration has been locked"):
		return refuse("it changes settings (SET, RESET or PRAGMA), which are fixed for safety")
	}
	return err
}
