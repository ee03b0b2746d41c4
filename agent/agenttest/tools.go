package agenttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/args"
	"github.com/loupeapp/loupe/tools/askuser"
)

// Tools is a tool set over db with the names, arguments and kinds of
// result of the real ones, for driving the loop without a database:
// run_sql (the shapes DB answers; a table result, or a Failed result with
// DuckDB's wording), describe_table, list_datasets, and the real ask_user.
// Arguments are decoded leniently by tools/args, as the real tools decode
// them.
func (db *DB) Tools() (*tools.Set, error) {
	return tools.NewSet(&runSQL{db: db}, describe{db}, list{db}, askuser.New())
}

// previewRows and previewBytes bound what run_sql shows the model.
const (
	previewRows  = 50
	previewBytes = 8 << 10
)

type runSQL struct {
	db *DB
	n  atomic.Int64 // results kept, for their refs
}

var _ tools.Tool = (*runSQL)(nil)

var sqlParams = args.Params{Tool: "run_sql", List: []args.Param{
	{Name: "sql", Type: args.String, Required: true, Doc: "one SELECT statement", Aliases: []string{"query", "statement", "sql_query"}},
	{Name: "purpose", Type: args.String, Doc: "what this query checks, in a few words", Aliases: []string{"reason", "description"}},
}}

func (t *runSQL) Spec() tools.Spec {
	return tools.Spec{Name: "run_sql", Description: "Run one read-only query on the stub tables.", Parameters: sqlParams.Schema(),
		Evidence: tools.EvidenceQuery,
		// The real run_sql's aliases (app/assemble's TestStubSpecsFollowTheTools
		// holds them equal), so the loop's repair of a misnamed call is tested here.
		Aliases: []string{"sql", "query", "runquery", "executesql", "execute", "executequery", "sqlquery", "runsqlquery",
			"querydatabase", "sqlexecutor"}}
}

func (t *runSQL) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		SQL     string `json:"sql"`
		Purpose string `json:"purpose"`
	}
	if err := sqlParams.Decode(raw, &a); err != nil {
		return sqlParams.Failure(err), nil
	}
	sql := strings.TrimSpace(a.SQL)
	if t.db.Slow[strings.Join(strings.Fields(sql), " ")] {
		<-ctx.Done()
		return tools.Result{}, ctx.Err()
	}
	res, err := t.db.run(sql)
	var qe *queryError
	if errors.As(err, &qe) {
		return tools.Result{Failed: true, ForModel: qe.msg + "\nFix the query and try again.", Summary: qe.msg,
			Display: tools.Display{Kind: tools.KindError, Text: qe.msg, SQL: sql}}, nil
	}
	if err != nil {
		return tools.Result{}, fmt.Errorf("run_sql: %w", err)
	}
	ref := fmt.Sprintf("stub%d", t.n.Add(1))
	table := &tools.Table{Ref: ref, Columns: res.Columns, Rows: int64(len(res.Rows)), Kept: int64(len(res.Rows)),
		Preview: res.Rows[:min(len(res.Rows), previewRows)]}
	return tools.Result{
		ForModel: preview(res),
		Summary:  fmt.Sprintf("%d rows", len(res.Rows)),
		Display:  tools.Display{Kind: tools.KindTable, Text: a.Purpose, SQL: sql, Table: table},
	}, nil
}

// preview is a result as the model reads it: its size said plainly, the
// columns, then rows within previewRows and previewBytes.
func preview(t *Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The query returned %d rows.\n", len(t.Rows))
	if len(t.Rows) == 0 {
		return b.String()
	}
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name + " " + c.Type
	}
	b.WriteString(strings.Join(names, " | ") + "\n")
	for i, r := range t.Rows {
		if i == previewRows || b.Len() > previewBytes {
			fmt.Fprintf(&b, "… %d more rows\n", len(t.Rows)-i)
			break
		}
		cells := make([]string, len(r))
		for j, v := range r {
			cells[j] = fmt.Sprint(v)
		}
		b.WriteString(strings.Join(cells, " | ") + "\n")
	}
	return b.String()
}

type describe struct{ db *DB }

var _ tools.Tool = describe{}

var describeParams = args.Params{Tool: "describe_table", List: []args.Param{
	{Name: "table", Type: args.String, Required: true, Doc: "dataset name", Aliases: []string{"table_name", "name", "dataset"}},
}}

func (d describe) Spec() tools.Spec {
	return tools.Spec{Name: "describe_table", Description: "Describe one table's columns.", Parameters: describeParams.Schema(),
		Evidence: tools.EvidenceNone, SchemaLevel: tools.SchemaDescribe,
		Aliases: []string{"describe", "getschema", "tableschema", "gettableschema", "getdetailedschema", "schema", "describetables"}}
}

func (d describe) Run(_ context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Table string `json:"table"`
	}
	if err := describeParams.Decode(raw, &a); err != nil {
		return describeParams.Failure(err), nil
	}
	t := d.db.table(a.Table)
	if t == nil {
		msg := fmt.Sprintf("No table named %q. Did you mean %q? list_datasets lists them all.", a.Table, d.db.nearestTable(a.Table))
		return tools.Result{Failed: true, ForModel: msg, Summary: "unknown table " + a.Table, Display: tools.Display{Kind: tools.KindError, Text: msg}}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Table %s — %d rows\n", t.Name, len(t.Rows))
	for _, c := range t.Columns {
		fmt.Fprintf(&b, "- %s %s\n", c.Name, c.Type)
	}
	return tools.Result{ForModel: b.String(), Summary: fmt.Sprintf("%d columns", len(t.Columns)),
		Display: tools.Display{Kind: tools.KindText, Text: b.String()}}, nil
}

type list struct{ db *DB }

var _ tools.Tool = list{}

var listParams = args.Params{Tool: "list_datasets", IgnoreUnknown: true}

func (l list) Spec() tools.Spec {
	return tools.Spec{Name: "list_datasets", Description: "List the tables.", Parameters: listParams.Schema(),
		Evidence: tools.EvidenceNone, SchemaLevel: tools.SchemaStructure,
		Aliases: []string{"listtables", "tables", "showtables", "listdatasets", "getdatasets"}}
}

func (l list) Run(_ context.Context, raw json.RawMessage) (tools.Result, error) {
	if err := listParams.Decode(raw, &struct{}{}); err != nil {
		return listParams.Failure(err), nil
	}
	var b strings.Builder
	for _, t := range l.db.Tables {
		fmt.Fprintf(&b, "%s — %d rows, %d columns\n", t.Name, len(t.Rows), len(t.Columns))
	}
	return tools.Result{ForModel: b.String(), Summary: fmt.Sprintf("%d tables", len(l.db.Tables)),
		Display: tools.Display{Kind: tools.KindText, Text: b.String()}}, nil
}
