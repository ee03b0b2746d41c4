package joins

import (
	"slices"
	"sort"
	"strings"

	"github.com/loupeapp/loupe/data/index"
)

// Links is a map of the id-like columns of many tables, for finding the
// tables that connect others: a question about authors and their papers
// names author and paper, never the writes table that joins them.
// Building it reads every column name once; it is immutable after.
type Links struct {
	byColumn map[string][]string // normalized id-like column name → tables having it
	ids      map[string][]string // table → its id-like column names, normalized
	entity   map[string]string   // table → entity(name)
}

// NewLinks maps the id-like columns of tables.
func NewLinks(tables []index.Table) *Links {
	l := &Links{byColumn: map[string][]string{}, ids: map[string][]string{}, entity: map[string]string{}}
	for i := range tables {
		t := &tables[i]
		l.entity[t.Name] = entity(t.Name)
		for _, c := range t.Columns {
			if !idLike(c.Name) {
				continue
			}
			n := normal(c.Name)
			if generic[n] {
				n = l.entity[t.Name] + n // orders.id is known elsewhere as order_id
			}
			l.link(t.Name, n)
		}
		for _, fk := range t.Foreign {
			// a declared key links its two tables whatever the columns are
			// called (Has_Pet.StuID → Student.StuID, or owner → person.id)
			n := "\x00fk\x00" + strings.ToLower(t.Name) + "\x00" + strings.ToLower(fk.RefTable) + "\x00" + strings.Join(fk.Columns, ",")
			l.link(t.Name, n)
			l.link(fk.RefTable, n)
		}
	}
	return l
}

// link records that table has the link n (a normalized id-like column,
// or a declared key).
func (l *Links) link(table, n string) {
	if slices.Contains(l.byColumn[n], table) {
		return
	}
	l.byColumn[n] = append(l.byColumn[n], table)
	l.ids[table] = append(l.ids[table], n)
}

// Bridges returns up to max tables outside chosen that share id-like
// columns with at least two chosen tables (writes(aid, pid) between
// author(aid) and publication(pid)), those linking the most chosen tables
// and the best-ranked ones first. chosen is in rank order.
func (l *Links) Bridges(chosen []string, max int) []string {
	in := map[string]int{}
	for i, c := range chosen {
		in[c] = i
	}
	type cand struct {
		links map[string]bool
		rank  int
	}
	cands := map[string]*cand{}
	for i, c := range chosen {
		for _, n := range l.ids[c] {
			names := l.byColumn[n]
			if len(names) > 50 {
				continue // a column every table has links nothing in particular
			}
			for _, other := range names {
				if _, ok := in[other]; ok {
					continue
				}
				cd := cands[other]
				if cd == nil {
					cd = &cand{links: map[string]bool{}}
					cands[other] = cd
				}
				if !cd.links[c] {
					cd.links[c] = true
					cd.rank += i
				}
			}
		}
	}
	var out []string
	for name, cd := range cands {
		if len(cd.links) >= 2 {
			out = append(out, name)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := cands[out[i]], cands[out[j]]
		if len(a.links) != len(b.links) {
			return len(a.links) > len(b.links)
		}
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		return out[i] < out[j]
	})
	if len(out) > max {
		out = out[:max]
	}
	return out
}
