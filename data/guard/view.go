package guard

import (
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// A view stored in a DuckDB file Loupe attaches runs its own SQL whenever a
// query reads it, and DuckDB binds a name the view's own schema lacks
// against the workspace: `SELECT * FROM customers` in a loaded file reads
// the workspace's customers. Such a view could hand the model another
// dataset under a new name, around its privacy marks, or Loupe's own
// tables, or (through query(), read_csv() or a macro) files and SQL the
// guard never sees. So a file's views are checked when it is loaded, by
// ViewReads, and only views that read their own file are kept.

// Contents is what ViewReads needs to know of the attached database a view
// lives in and of what sits beside it. All names are folded (Fold).
type Contents struct {
	Catalog  string          // the name the file is attached under
	Objects  map[string]bool // ObjectKey of every table and view in the file
	Macros   map[string]bool // names of the macros defined anywhere but DuckDB's system catalog
	Catalogs map[string]bool // names of every attached database (the workspace, system, temp, the file…)
}

// generators are the table functions a view may call: they make rows from
// their arguments (which are checked like the rest of the view) and read
// nothing. A macro bearing one's name (CREATE MACRO range(x) AS TABLE …,
// in the file) is called instead of it, so such a name is refused too.
var generators = set("range", "generate_series", "unnest", "repeat", "repeat_row", "json_each", "json_tree")

// ViewReads checks the definition of a view stored in the attached database
// in.Catalog (text as duckdb_views().sql gives it, schema the view's own
// schema) and returns the tables and views of that database it reads, as
// keys (ObjectKey). A view reading another view of the file is only as safe
// as that view: the caller refuses it when the other is refused.
//
// It returns a *RefusedError when the view may read anything outside its
// file: a name its schema does not hold (DuckDB would look it up in the
// workspace), another database, a table function other than a generator,
// a macro (whose body is not checked), or a function qualified by schema.
// It does not bind or run the view; c is used only for DuckDB's parser.
func ViewReads(c *duckdb.Conn, text, schema string, in Contents) ([]string, error) {
	vs, err := ViewsRead(c, []View{{Text: text, Schema: schema}}, in)
	if err != nil {
		return nil, err
	}
	return vs[0].Reads, vs[0].Refused
}

// View is a view's definition as duckdb_views() gives it (Text) and its
// schema.
type View struct{ Text, Schema string }

// Verdict is ViewReads' answer for one view: the objects of the file it
// reads, or Refused, a *RefusedError.
type Verdict struct {
	Reads   []string
	Refused error
}

// ViewsRead is ViewReads for many views of one file, with one call of
// DuckDB's parser for all (a file may hold thousands, and a workspace
// opening checks them again). An error means DuckDB could not be asked.
func ViewsRead(c *duckdb.Conn, views []View, in Contents) ([]Verdict, error) {
	out := make([]Verdict, len(views))
	queries := make([]string, len(views))
	for i, v := range views {
		q, ok := viewQuery(v.Text)
		if !ok {
			out[i].Refused = refuse("Loupe cannot read its definition")
			continue
		}
		queries[i] = q
	}
	trees, err := syntaxTrees(c, queries)
	if err != nil {
		return nil, err
	}
	for i, tree := range trees {
		if out[i].Refused != nil {
			continue
		}
		if !tree.ok || len(tree.statements) != 1 {
			out[i].Refused = refuse("Loupe cannot check its query (only a plain SELECT can be checked)")
			continue
		}
		w := viewWalk{in: in, schema: Fold(views[i].Schema), reads: map[string]bool{}}
		if err := w.walk(tree.statements[0], nil); err != nil {
			out[i].Refused = err
			continue
		}
		out[i].Reads = make([]string, 0, len(w.reads))
		for o := range w.reads {
			out[i].Reads = append(out[i].Reads, o)
		}
	}
	return out, nil
}

// viewQuery returns the query of a CREATE VIEW text: what follows the
// first AS outside parentheses (a column list may precede it), without a
// trailing semicolon.
func viewQuery(text string) (string, bool) {
	toks := tokenize(text)
	depth, sawView := 0, false
	for _, t := range toks {
		switch {
		case t.kind == tOther && text[t.start] == '(':
			depth++
		case t.kind == tOther && text[t.start] == ')':
			depth--
		case t.kind == tWord && t.word == "VIEW":
			sawView = true
		case t.kind == tWord && t.word == "AS" && depth == 0 && sawView:
			q := strings.TrimSpace(text[t.end:])
			q = strings.TrimSpace(strings.TrimSuffix(q, ";"))
			return q, q != ""
		}
	}
	return "", false
}

type viewWalk struct {
	in     Contents
	schema string          // the view's schema
	reads  map[string]bool // ObjectKey of the file's objects read
}

// walk checks node with ctes, the common table expressions in scope
// (folded names, see Fold).
func (w *viewWalk) walk(node any, ctes map[string]bool) error {
	switch n := node.(type) {
	case []any:
		for _, e := range n {
			if err := w.walk(e, ctes); err != nil {
				return err
			}
		}
	case map[string]any:
		if err := w.check(n, ctes); err != nil {
			return err
		}
		inner := ctes
		if m, ok := n["cte_map"].(map[string]any); ok {
			var err error
			if inner, err = w.walkCTEs(m, ctes); err != nil {
				return err
			}
		}
		for k, v := range n {
			scope := inner
			switch {
			case k == "cte_map":
				continue
			case k == "right" && n["type"] == "RECURSIVE_CTE_NODE":
				// Only the recursive side of a recursive CTE reads the
				// CTE itself; its first side binds the name to a table.
				name, _ := n["cte_name"].(string)
				scope = withCTE(inner, name)
			}
			if err := w.walk(v, scope); err != nil {
				return err
			}
		}
	}
	return nil
}

// walkCTEs checks the definitions of a WITH clause (cte_map) and returns
// the CTEs in scope after it. DuckDB binds a name inside a CTE's own
// definition, or inside an earlier one, to a table, not to the CTE (a
// recursive CTE's recursive side excepted, see walk): each definition is
// checked with only the CTEs before it in scope.
func (w *viewWalk) walkCTEs(m map[string]any, ctes map[string]bool) (map[string]bool, error) {
	list, _ := m["map"].([]any)
	for _, e := range list {
		e, _ := e.(map[string]any)
		if err := w.walk(e["value"], ctes); err != nil {
			return nil, err
		}
		k, _ := e["key"].(string)
		ctes = withCTE(ctes, k)
	}
	return ctes, nil
}

// withCTE returns ctes with name added, leaving ctes as it was.
func withCTE(ctes map[string]bool, name string) map[string]bool {
	if name == "" {
		return ctes
	}
	out := make(map[string]bool, len(ctes)+1)
	for k := range ctes {
		out[k] = true
	}
	out[Fold(name)] = true
	return out
}

// ObjectKey names the object name of schema schema in Contents.Objects and
// in ViewReads' answer: "schema.name", folded (Fold), with a part quoted
// when it holds a dot or a quote, so that no two objects share a key
// (schema "main./tmp/x" and table "csv" must not pass for the table
// "/tmp/x.csv" of main, a name DuckDB reads as a file when no table bears
// it).
func ObjectKey(schema, name string) string {
	return keyPart(Fold(schema)) + "." + keyPart(Fold(name))
}

func keyPart(s string) string {
	if !strings.ContainsAny(s, `."`) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// Fold is how DuckDB compares the names of catalog entries, CTEs and
// functions: ASCII letters regardless of case, every other character as
// it is ("Clİents" is not "clients", "ÄRZTE" is not "ärzte"). Every name
// Contents holds is folded with it; folding with Unicode case rules
// instead would take a name DuckDB finds in the workspace for one of the
// file's.
func Fold(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// check looks at one node of the tree: table references, table functions
// and function calls.
func (w *viewWalk) check(n map[string]any, ctes map[string]bool) error {
	switch {
	case n["type"] == "BASE_TABLE":
		return w.table(n, ctes)
	case n["type"] == "TABLE_FUNCTION":
		f, _ := n["function"].(map[string]any)
		name, _ := f["function_name"].(string)
		if !generators[Fold(name)] || qualified(f) || w.in.Macros[Fold(name)] {
			return refuse("it calls %s(), which can read outside the file", name)
		}
	case n["class"] == "FUNCTION":
		name, _ := n["function_name"].(string)
		if qualified(n) {
			return refuse("it calls %s() from another schema", name)
		}
		if w.in.Macros[Fold(name)] {
			return refuse("it calls the macro %s(), which Loupe cannot check", name)
		}
	case n["type"] == "SHOW_REF":
		return refuse("it describes a table, which Loupe cannot check")
	}
	return nil
}

// qualified reports a function named with a catalog, or with a schema
// other than main and pg_catalog (DuckDB's parser itself writes main for
// some built-ins, such as list_value for [1, 2]).
func qualified(f map[string]any) bool {
	s, _ := f["schema"].(string)
	c, _ := f["catalog"].(string)
	s = Fold(s)
	return c != "" || s != "" && s != "main" && s != "pg_catalog"
}

// table accepts a table reference only when DuckDB will find it in the
// file: by its full name in the file's catalog, by schema.name when that
// schema is the file's and no database bears its name (DuckDB reports such
// a name as ambiguous or reads the database), and a bare name only in the
// view's own schema (DuckDB looks for it next in the workspace) or among
// the common table expressions in scope.
func (w *viewWalk) table(n map[string]any, ctes map[string]bool) error {
	cat, _ := n["catalog_name"].(string)
	sch, _ := n["schema_name"].(string)
	name, _ := n["table_name"].(string)
	cat, sch, lname := Fold(cat), Fold(sch), Fold(name)
	outside := refuse("it reads %s, which is outside the file", dotted(cat, sch, name))
	var key string
	switch {
	case cat != "":
		if cat != w.in.Catalog {
			return outside
		}
		key = ObjectKey(sch, lname)
	case sch != "":
		if w.in.Catalogs[sch] {
			return outside
		}
		key = ObjectKey(sch, lname)
	case ctes[lname]:
		return nil
	default:
		key = ObjectKey(w.schema, lname)
	}
	if !w.in.Objects[key] {
		return outside
	}
	w.reads[key] = true
	return nil
}

func dotted(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ".")
}
