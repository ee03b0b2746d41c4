package indextest

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Question is a sql-eval question with the tables its gold SQL reads.
type Question struct {
	Text string
	DB   string   // defog database name
	Gold []string // tables of DB the gold SQL reads, as DB.Tables spells them
	SQL  string   // the first gold query
}

// reFromJoin finds a FROM or JOIN item and the comma-separated items that
// follow it (FROM author a, writes w).
var reFromJoin = regexp.MustCompile(`(?i)\b(?:FROM|JOIN)\s+([A-Za-z_][\w.]*)(?:\s+(?:AS\s+)?\w+)?((?:\s*,\s*[A-Za-z_][\w.]*(?:\s+(?:AS\s+)?\w+)?)*)`)

var reListItem = regexp.MustCompile(`,\s*([A-Za-z_][\w.]*)`)

// Questions reads a sql-eval question file under testdata (see Testdata;
// e.g. questions_gen_postgres.csv) and finds each question's gold tables
// among dbs' tables. Questions whose database is not among dbs, or whose
// gold SQL names no known table, are left out.
func Questions(testdata, file string, dbs []DB) ([]Question, error) {
	f, err := os.Open(filepath.Join(testdata, "sql-eval", file))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.LazyQuotes = true // one question quotes words inside a quoted field
	rows, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("%s has no questions", file)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	byName := map[string]DB{}
	for _, db := range dbs {
		byName[db.Name] = db
	}
	var out []Question
	for _, r := range rows[1:] {
		db, ok := byName[r[col["db_name"]]]
		if !ok {
			continue
		}
		gold := strings.Split(r[col["query"]], ";")[0]
		q := Question{Text: r[col["question"]], DB: db.Name, SQL: gold, Gold: tablesIn(gold, db.Tables)}
		if len(q.Gold) > 0 {
			out = append(out, q)
		}
	}
	return out, nil
}

// tablesIn returns the tables of known that sql reads after FROM or JOIN.
func tablesIn(sql string, known []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range reFromJoin.FindAllStringSubmatch(sql, -1) {
		names := []string{m[1]}
		for _, item := range reListItem.FindAllStringSubmatch(m[2], -1) {
			names = append(names, item[1])
		}
		for _, name := range names {
			for _, k := range known {
				short := k[strings.LastIndex(k, ".")+1:]
				if (strings.EqualFold(name, k) || strings.EqualFold(name, short)) && !seen[k] {
					seen[k] = true
					out = append(out, k)
				}
			}
		}
	}
	return out
}
