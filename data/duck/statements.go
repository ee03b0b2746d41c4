package duck

import (
	"errors"
	"fmt"

	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// StatementTypes splits text into statements with DuckDB's own parser and
// prepares each one on c, without running anything, to learn its type. A
// statement that does not prepare on its own (the final SELECT of an
// expanded PIVOT needs its helper statements to have run first) is reported
// as STATEMENT_TYPE_INVALID. The length of the result is the number of
// statements DuckDB sees in text.
//
// The guard uses it where it must know what DuckDB will run before letting
// duckdb-go's PrepareContext execute all but the last statement.
func StatementTypes(c *duckdb.Conn, text string) ([]duckdb.StmtType, error) {
	h, ok := handle(c)
	if !ok {
		return nil, errors.New("statement types: no DuckDB connection handle")
	}
	var ex mapping.ExtractedStatements
	n := mapping.ExtractStatements(h, text, &ex)
	defer mapping.DestroyExtracted(&ex)
	if n == 0 {
		if msg := mapping.ExtractStatementsError(ex); msg != "" {
			return nil, fmt.Errorf("%s", msg)
		}
		return nil, nil
	}
	types := make([]duckdb.StmtType, n)
	for i := mapping.IdxT(0); i < n; i++ {
		var ps mapping.PreparedStatement
		if mapping.PrepareExtractedStatement(h, ex, i, &ps) == mapping.StateSuccess {
			types[i] = duckdb.StmtType(mapping.PreparedStatementType(ps))
		} else {
			types[i] = duckdb.STATEMENT_TYPE_INVALID
		}
		mapping.DestroyPrepare(&ps)
	}
	return types, nil
}
