package validate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/query"
)

// parsed is the supporting query's parse tree as DuckDB serializes it
// (json_serialize_sql), with what the checks need to know about it. The
// tree is edited to ask new questions of the same rows: how many rows are
// behind each group, and what the groups look like within subgroups of
// another column. DuckDB turns the edited tree back into SQL
// (json_deserialize_sql), which then runs through the guard like any
// query.
type parsed struct {
	doc       map[string]any
	node      map[string]any
	aggregate bool        // GROUP BY, GROUP BY ALL, or aggregates over all rows
	keys      []int       // select items that are GROUP BY keys
	tables    []baseTable // datasets read in FROM (not CTEs or subqueries)
}

type baseTable struct {
	name string // dataset name
	ref  string // alias or name, to qualify its columns
}

// parse serializes sql's tree. A query it cannot edit (not one SELECT,
// SELECT *, grouping sets) returns nil and why.
func (t *Tool) parse(ctx context.Context, sql string) (*parsed, string, error) {
	res, err := t.run.Run(ctx, "SELECT json_serialize_sql("+duck.QuoteString(sql)+")::VARCHAR", query.Limits{MaxRows: 1})
	if err != nil {
		return nil, "", err
	}
	raw, _ := res.Rows[0][0].(string)
	doc, err := decode(raw)
	if err != nil {
		return nil, "", fmt.Errorf("read the query's parse tree: %w", err)
	}
	if e, _ := doc["error"].(bool); e {
		return nil, fmt.Sprintf("DuckDB cannot serialize this statement (%v)", doc["error_message"]), nil
	}
	stmts, _ := doc["statements"].([]any)
	if len(stmts) != 1 {
		return nil, "the SQL is not exactly one statement", nil
	}
	st, _ := stmts[0].(map[string]any)
	node, _ := st["node"].(map[string]any)
	if node == nil || node["type"] != "SELECT_NODE" {
		return nil, "the query is not a single SELECT (UNION, VALUES…)", nil
	}
	p := &parsed{doc: doc, node: node}
	items, _ := node["select_list"].([]any)
	for _, it := range items {
		if m, _ := it.(map[string]any); m["class"] == "STAR" || m["class"] == "COLUMNS" {
			return nil, "the query selects * (name its columns)", nil
		}
	}
	aggs, err := t.aggregates(ctx)
	if err != nil {
		return nil, "", err
	}
	groups, _ := node["group_expressions"].([]any)
	sets, _ := node["group_sets"].([]any)
	force := node["aggregate_handling"] == "FORCE_AGGREGATES"
	if len(sets) > 1 {
		return nil, "the query uses GROUPING SETS, ROLLUP or CUBE", nil
	}
	for _, it := range items {
		if hasAggregate(it, aggs) {
			p.aggregate = true
		}
	}
	p.aggregate = p.aggregate || len(groups) > 0 || force
	for i, it := range items {
		if force && !hasAggregate(it, aggs) || !force && isKey(i, it, groups) {
			p.keys = append(p.keys, i)
		}
	}
	ctes := map[string]bool{}
	if cm, ok := node["cte_map"].(map[string]any); ok {
		l, _ := cm["map"].([]any)
		for _, e := range l {
			if m, ok := e.(map[string]any); ok {
				ctes[strings.ToLower(fmt.Sprint(m["key"]))] = true
			}
		}
	}
	collectTables(node["from_table"], ctes, &p.tables)
	return p, "", nil
}

func decode(raw string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// hasAggregate reports an aggregate function call in an expression,
// outside window functions and subqueries.
func hasAggregate(e any, aggs map[string]bool) bool {
	switch x := e.(type) {
	case map[string]any:
		switch x["class"] {
		case "WINDOW", "SUBQUERY":
			return false
		case "FUNCTION":
			if name, _ := x["function_name"].(string); aggs[strings.ToLower(name)] {
				return true
			}
		}
		for _, v := range x {
			if hasAggregate(v, aggs) {
				return true
			}
		}
	case []any:
		for _, v := range x {
			if hasAggregate(v, aggs) {
				return true
			}
		}
	}
	return false
}

// isKey reports whether select item i is one of the GROUP BY expressions:
// the same expression, its position (GROUP BY 1) or its alias.
func isKey(i int, item any, groups []any) bool {
	m, _ := item.(map[string]any)
	alias, _ := m["alias"].(string)
	c := canon(item)
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		if canon(g) == c {
			return true
		}
		if gm["class"] == "CONSTANT" {
			if v, ok := gm["value"].(map[string]any); ok && fmt.Sprint(v["value"]) == fmt.Sprint(i+1) {
				return true
			}
		}
		if names, ok := gm["column_names"].([]any); ok && len(names) == 1 && alias != "" && strings.EqualFold(fmt.Sprint(names[0]), alias) {
			return true
		}
	}
	return false
}

// canon prints an expression without its alias and position in the text.
func canon(e any) string {
	b, _ := json.Marshal(strip(e))
	return string(b)
}

func strip(e any) any {
	switch x := e.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			if k != "alias" && k != "query_location" {
				out[k] = strip(v)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = strip(v)
		}
		return out
	}
	return e
}

func collectTables(from any, ctes map[string]bool, out *[]baseTable) {
	m, ok := from.(map[string]any)
	if !ok {
		return
	}
	switch m["type"] {
	case "BASE_TABLE":
		name, _ := m["table_name"].(string)
		if name == "" || ctes[strings.ToLower(name)] {
			return
		}
		ref, _ := m["alias"].(string)
		if ref == "" {
			ref = name
		}
		*out = append(*out, baseTable{name: name, ref: ref})
	case "JOIN":
		collectTables(m["left"], ctes, out)
		collectTables(m["right"], ctes, out)
	}
}

// columnRefs lists the column names an expression reads.
func columnRefs(e any, out map[string]bool) {
	switch x := e.(type) {
	case map[string]any:
		if x["class"] == "COLUMN_REF" {
			if names, ok := x["column_names"].([]any); ok && len(names) > 0 {
				out[strings.ToLower(fmt.Sprint(names[len(names)-1]))] = true
			}
		}
		for _, v := range x {
			columnRefs(v, out)
		}
	case []any:
		for _, v := range x {
			columnRefs(v, out)
		}
	}
}

// Names of the columns the edited query adds.
const (
	countCol = "__loupe_n"
	subCol   = "__loupe_sub"
)

// rewrite returns the query with count(*) added to its select list and,
// when by is set, grouped by that expression too (added as the last
// column), without ORDER BY or LIMIT.
func (t *Tool) rewrite(ctx context.Context, p *parsed, by string) (string, error) {
	extra := "count(*) AS " + countCol
	if by != "" {
		extra += ", " + by + " AS " + subCol
	}
	res, err := t.run.Run(ctx, "SELECT json_serialize_sql("+duck.QuoteString("SELECT "+extra)+")::VARCHAR", query.Limits{MaxRows: 1})
	if err != nil {
		return "", err
	}
	raw, _ := res.Rows[0][0].(string)
	edoc, err := decode(raw)
	if err != nil {
		return "", err
	}
	if e, _ := edoc["error"].(bool); e {
		return "", fmt.Errorf("group by %s: %v", by, edoc["error_message"])
	}
	enode := edoc["statements"].([]any)[0].(map[string]any)["node"].(map[string]any)
	added := enode["select_list"].([]any)

	doc, err := decode(mustJSON(p.doc))
	if err != nil {
		return "", err
	}
	node := doc["statements"].([]any)[0].(map[string]any)["node"].(map[string]any)
	node["select_list"] = append(node["select_list"].([]any), added...)
	if by != "" && node["aggregate_handling"] != "FORCE_AGGREGATES" {
		expr := strip(added[1]).(map[string]any)
		expr["alias"] = ""
		groups, _ := node["group_expressions"].([]any)
		idx := len(groups)
		node["group_expressions"] = append(groups, expr)
		sets, _ := node["group_sets"].([]any)
		if len(sets) == 0 {
			sets = []any{[]any{}}
		}
		for i, s := range sets {
			l, _ := s.([]any)
			sets[i] = append(l, json.Number(fmt.Sprint(idx)))
		}
		node["group_sets"] = sets
	}
	var keep []any
	mods, _ := node["modifiers"].([]any)
	for _, m := range mods {
		if mm, ok := m.(map[string]any); ok && (mm["type"] == "ORDER_MODIFIER" || strings.HasPrefix(fmt.Sprint(mm["type"]), "LIMIT")) {
			continue
		}
		keep = append(keep, m)
	}
	node["modifiers"] = append([]any{}, keep...)
	res, err = t.run.Run(ctx, "SELECT json_deserialize_sql("+duck.QuoteString(mustJSON(doc))+"::JSON)", query.Limits{MaxRows: 1})
	if err != nil {
		return "", fmt.Errorf("rebuild the query: %w", err)
	}
	sql, _ := res.Rows[0][0].(string)
	if sql == "" {
		return "", fmt.Errorf("rebuild the query: empty SQL")
	}
	return sql, nil
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // values decoded from JSON always encode
	}
	return string(b)
}

// aggregates returns the names of DuckDB's aggregate functions, asked once.
func (t *Tool) aggregates(ctx context.Context) (map[string]bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.aggs != nil {
		return t.aggs, nil
	}
	res, err := t.run.Run(ctx, "SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_type = 'aggregate'", query.Limits{MaxRows: 10000})
	if err != nil {
		return nil, fmt.Errorf("list aggregate functions: %w", err)
	}
	aggs := map[string]bool{"count_star": true}
	for _, r := range res.Rows {
		if s, ok := r[0].(string); ok {
			aggs[strings.ToLower(s)] = true
		}
	}
	t.aggs = aggs
	return aggs, nil
}
