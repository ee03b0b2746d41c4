package load

import (
	"context"
	"errors"
	"fmt"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/guard"
)

// duckObj is a table or view of an attached DuckDB file; sql is the view's
// definition, "" for a table.
type duckObj struct{ schema, name, comment, sql string }

// key is how guard.Contents names o (guard.ObjectKey).
func (o duckObj) key() string { return guard.ObjectKey(o.schema, o.name) }

// part is how the load names o: its name, with its schema unless main.
func (o duckObj) part() string {
	if o.schema != "main" {
		return o.schema + "." + o.name
	}
	return o.name
}

// containedObjects drops from objs the views of the file attached as
// alias that may read outside it (guard.ViewReads), and the views that
// read those, and returns one warning per view dropped. A file's tables
// are always kept.
func containedObjects(ctx context.Context, c *duckdb.Conn, alias string, objs []duckObj) ([]duckObj, []string, error) {
	in, err := fileContents(ctx, c, alias, objs)
	if err != nil {
		return nil, nil, err
	}
	var views []guard.View
	var keys []string
	for _, o := range objs {
		if o.sql != "" {
			views = append(views, guard.View{Text: o.sql, Schema: o.schema})
			keys = append(keys, o.key())
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	verdicts, err := guard.ViewsRead(c, views, in)
	if err != nil {
		return nil, nil, fmt.Errorf("check the views: %w", err)
	}
	refused := map[string]string{}
	reads := map[string][]string{}
	for i, v := range verdicts {
		var ref *guard.RefusedError
		switch {
		case errors.As(v.Refused, &ref):
			refused[keys[i]] = ref.Reason
		case v.Refused != nil:
			return nil, nil, fmt.Errorf("check the views: %w", v.Refused)
		}
		reads[keys[i]] = v.Reads
	}
	for changed := true; changed; { // a view reading a refused view is refused
		changed = false
		for k, r := range reads {
			if _, done := refused[k]; done {
				continue
			}
			for _, other := range r {
				if _, bad := refused[other]; bad {
					refused[k] = "it reads " + other + ", a view that was not loaded"
					changed = true
					break
				}
			}
		}
	}
	var kept []duckObj
	var warnings []string
	for _, o := range objs {
		if why, bad := refused[o.key()]; bad {
			warnings = append(warnings, fmt.Sprintf("view '%s' was not loaded: %s", o.part(), why))
			continue
		}
		kept = append(kept, o)
	}
	return kept, warnings, nil
}

// fileContents lists what guard.ViewReads needs: the file's objects, the
// macros defined outside DuckDB's system catalog and the names of the
// attached databases.
func fileContents(ctx context.Context, c *duckdb.Conn, alias string, objs []duckObj) (guard.Contents, error) {
	in := guard.Contents{
		Catalog:  guard.Fold(alias),
		Objects:  make(map[string]bool, len(objs)),
		Macros:   map[string]bool{},
		Catalogs: map[string]bool{"system": true, "temp": true, "memory": true, guard.Fold(alias): true},
	}
	for _, o := range objs {
		in.Objects[o.key()] = true
	}
	// Folded here, not by SQL's lower(), which folds Unicode letters too.
	q := "SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_type IN ('macro', 'table_macro') AND database_name <> 'system'"
	if err := each(ctx, c, q, func(v []any) { in.Macros[guard.Fold(fmt.Sprint(v[0]))] = true }); err != nil {
		return in, fmt.Errorf("list macros: %w", err)
	}
	if err := each(ctx, c, "SELECT database_name FROM duckdb_databases()", func(v []any) { in.Catalogs[guard.Fold(fmt.Sprint(v[0]))] = true }); err != nil {
		return in, fmt.Errorf("list databases: %w", err)
	}
	return in, nil
}

// fileObjects lists the tables and views of the file attached as alias,
// ordered by schema and name.
func fileObjects(ctx context.Context, c *duckdb.Conn, alias string) ([]duckObj, error) {
	a := duck.QuoteString(alias)
	q := "SELECT schema_name, table_name, coalesce(comment, ''), '' FROM duckdb_tables() WHERE database_name = " + a +
		" UNION ALL SELECT schema_name, view_name, coalesce(comment, ''), coalesce(sql, '') FROM duckdb_views() WHERE database_name = " + a +
		" AND NOT internal ORDER BY 1, 2"
	var objs []duckObj
	err := each(ctx, c, q, func(v []any) {
		objs = append(objs, duckObj{fmt.Sprint(v[0]), fmt.Sprint(v[1]), fmt.Sprint(v[2]), fmt.Sprint(v[3])})
	})
	return objs, err
}

// RefusedParts checks again the views of the DuckDB file attached as alias
// that parts (datasets' parts, as recorded at load) read, and returns the
// parts that would now be refused (see containedObjects), with the first
// refusal's warning. A workspace
// opening calls it: the import folder holds a hard link to the user's
// file, which may have been overwritten in place since it was loaded, and
// a Loupe before the check loaded views without it.
func RefusedParts(ctx context.Context, c *duckdb.Conn, alias string, parts []string) ([]string, string, error) {
	all, err := fileObjects(ctx, c, alias)
	if err != nil {
		return nil, "", err
	}
	kept, warnings, err := containedObjects(ctx, c, alias, all)
	if err != nil {
		return nil, "", err
	}
	ok := make(map[string]bool, len(kept))
	for _, o := range kept {
		ok[o.key()] = true
	}
	// A part name may stand for two objects (the table "a.b" of main and
	// the table b of schema a): it is refused when either is. A part gone
	// from the file fails on its own.
	bad := map[string]bool{}
	for _, o := range all {
		if !ok[o.key()] {
			bad[o.part()] = true
		}
	}
	var refused []string
	for _, p := range parts {
		if bad[p] {
			refused = append(refused, p)
		}
	}
	why := ""
	if len(warnings) > 0 {
		why = warnings[0]
	}
	return refused, why, nil
}

// declaredKeys are a table's primary key and foreign keys as a DuckDB file
// declares them; a foreign key's ref is the referenced table's key()
// ("schema.name", lower case: DuckDB's references stay in their schema).
type declaredKeys struct {
	primary []string
	foreign []declaredFK
}

type declaredFK struct {
	columns, refColumns []string
	ref                 string
}

// fileKeys reads the primary and foreign keys of the file attached as
// alias, by table key().
func fileKeys(ctx context.Context, c *duckdb.Conn, alias string) (map[string]*declaredKeys, error) {
	q := "SELECT schema_name, table_name, constraint_type, constraint_column_names, coalesce(referenced_table, ''), referenced_column_names " +
		"FROM duckdb_constraints() WHERE database_name = " + duck.QuoteString(alias) + " AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY') " +
		"ORDER BY schema_name, table_name, constraint_index"
	out := map[string]*declaredKeys{}
	err := each(ctx, c, q, func(v []any) {
		schema := fmt.Sprint(v[0])
		key := duckObj{schema: schema, name: fmt.Sprint(v[1])}.key()
		k := out[key]
		if k == nil {
			k = &declaredKeys{}
			out[key] = k
		}
		cols := textList(v[3])
		if v[2] == "PRIMARY KEY" {
			k.primary = cols
			return
		}
		ref := fmt.Sprint(v[4])
		if ref == "" {
			return
		}
		k.foreign = append(k.foreign, declaredFK{columns: cols, refColumns: textList(v[5]), ref: duckObj{schema: schema, name: ref}.key()})
	})
	return out, err
}

// set puts k on d in dataset names: names maps a table key() to the name
// of its dataset in this load; a reference to a table not loaded is left
// out.
func (k *declaredKeys) set(d *catalog.Dataset, names map[string]string) {
	if k == nil {
		return
	}
	d.PrimaryKey = k.primary
	for _, fk := range k.foreign {
		if to, ok := names[fk.ref]; ok && len(fk.columns) == len(fk.refColumns) {
			d.Foreign = append(d.Foreign, catalog.ForeignKey{Columns: fk.columns, RefTable: to, RefColumns: fk.refColumns})
		}
	}
}

// textList is a DuckDB list of text as strings.
func textList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		out = append(out, fmt.Sprint(e))
	}
	return out
}
