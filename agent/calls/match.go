package calls

import (
	"strings"

	"github.com/loupeapp/loupe/tools/args"
)

// aliases maps names models often use to Loupe's tools.
var aliases = map[string]string{
	"sql": "run_sql", "query": "run_sql", "runquery": "run_sql", "executesql": "run_sql", "execute": "run_sql",
	"executequery": "run_sql", "sqlquery": "run_sql", "runsqlquery": "run_sql", "querydatabase": "run_sql", "sqlexecutor": "run_sql",
	"describe": "describe_table", "getschema": "describe_table", "tableschema": "describe_table", "gettableschema": "describe_table",
	"getdetailedschema": "describe_table", "schema": "describe_table", "describetables": "describe_table",
	"listtables": "list_datasets", "tables": "list_datasets", "showtables": "list_datasets", "listdatasets": "list_datasets", "getdatasets": "list_datasets",
	"chart": "create_chart", "plot": "create_chart", "visualize": "create_chart", "createvisualization": "create_chart", "makechart": "create_chart",
	"drawchart": "create_chart", "plotchart": "create_chart", "createplot": "create_chart",
	"ask": "ask_user", "clarify": "ask_user", "askclarifyingquestion": "ask_user", "askuser": "ask_user", "askquestion": "ask_user",
	"profile": "profile_data", "profilecolumn": "profile_data", "profilecolumns": "profile_data", "profiletable": "profile_data", "summarize": "profile_data",
	"sample": "sample_rows", "head": "sample_rows", "preview": "sample_rows", "samplerows": "sample_rows",
	"validate": "validate_finding", "validateanalysis": "validate_finding", "check": "validate_finding",
	"python": "run_python", "runcode": "run_python", "executepython": "run_python",
	"search": "search_schema", "findtables": "search_schema", "searchtables": "search_schema", "searchschema": "search_schema", "searchcolumns": "search_schema",
}

// Match returns the tool among names that name most likely means: exact,
// then ignoring case and separators, then a known alias, then a close
// spelling (edit distance ≤ 2, and less than a third of the name). ok is
// false when nothing is close enough.
func Match(name string, names []string) (string, bool) {
	for _, n := range names {
		if n == name {
			return n, true
		}
	}
	key := squash(name)
	if key == "" {
		return "", false
	}
	for _, n := range names {
		if squash(n) == key {
			return n, true
		}
	}
	if a, ok := aliases[key]; ok {
		for _, n := range names {
			if n == a {
				return n, true
			}
		}
	}
	best, bestD := "", 3
	for _, n := range names {
		d := args.Distance(key, squash(n))
		if d < bestD && d*3 < len(key) {
			best, bestD = n, d
		}
	}
	return best, best != ""
}

// squash lowercases s and drops separators and a "functions." or "tools."
// prefix.
func squash(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"functions.", "function.", "tools.", "tool.", "default_api.", "defaultapi.", "api."} {
		s = strings.TrimPrefix(s, p)
	}
	var b strings.Builder
	for _, r := range s {
		if r != '_' && r != '-' && r != ' ' && r != '.' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
