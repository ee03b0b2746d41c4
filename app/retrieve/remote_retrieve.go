package retrieve

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/joins"
)

// Retrieve builds the data section of the agent's prompt for question
// over the connected database, as Retrieve does for the workspace: the
// dialect and its tips, the best-matching tables (budget.Tables) with the
// tables that join them, their relevant columns and descriptions (the
// user's notes, else the database's comments), the declared
// join paths among them, and one line per other table when there are few
// — all within budget.Tokens. search_schema and list_datasets reach the
// rest.
func (r *Remote) Retrieve(ctx context.Context, question string, budget Budget) (agent.Schema, Meta, error) {
	start := time.Now()
	b := budget.withDefaults()
	v := r.current()
	idx, err := r.searchIndex(ctx)
	if err != nil {
		return agent.Schema{}, Meta{}, err
	}
	meta := Meta{Total: len(v.ds)}
	chosen, err := r.choose(ctx, v, idx, question, b, &meta)
	if err != nil {
		return agent.Schema{}, Meta{}, err
	}
	in := make(map[string]bool, len(chosen))
	for _, c := range chosen {
		in[c.Name] = true
	}
	s := r.header()
	keyCols := map[string]map[string]bool{}
	for _, p := range r.fks {
		if in[p.From] && in[p.To] {
			s.JoinPaths = append(s.JoinPaths, p)
			mark(keyCols, p.From, p.FromColumn)
			mark(keyCols, p.To, p.ToColumn)
		}
	}
	byName := make(map[string]catalog.Dataset, len(chosen))
	for _, c := range chosen {
		d := r.promptDataset(v, c.Name)
		byName[c.Name] = d
		s.Tables = append(s.Tables, describe(d, c.Columns, keyCols[c.Name], wideColumns))
	}
	var others []agent.Table
	for i, d := range v.ds {
		if !in[d.Name] {
			others = append(others, agent.Table{Name: d.Name, Rows: d.Rows, Source: kindNote(r.Schema.Tables[i].Kind)})
		}
	}
	s = finish(s, others, chosen, byName, keyCols, b, &meta, start)
	return s, meta, nil
}

// choose picks the tables to describe: all of a small database, else the
// best hits with the tables that join them.
func (r *Remote) choose(ctx context.Context, v *noted, idx *index.Index, question string, b Budget, meta *Meta) ([]Retrieved, error) {
	hits, err := idx.Search(ctx, question, index.Options{K: max(b.Tables*2, 20), Origin: Origin(r.Name)})
	if err != nil {
		return nil, fmt.Errorf("search the schema of %s: %w", r.Name, err)
	}
	out := make([]Retrieved, 0, len(hits))
	seen := map[string]bool{}
	for _, h := range hits {
		if _, ok := r.byName[h.Table.Name]; !ok {
			continue // indexed at an earlier discovery, gone since
		}
		rt := Retrieved{Name: h.Table.Name, Score: h.Score}
		for _, c := range h.Columns {
			rt.Columns = append(rt.Columns, c.Name)
		}
		out = append(out, rt)
		seen[rt.Name] = true
	}
	if len(v.ds) <= b.Tables {
		for _, d := range v.ds {
			if !seen[d.Name] {
				out = append(out, Retrieved{Name: d.Name})
			}
		}
		return out, nil
	}
	if len(out) == 0 {
		// Nothing matches ("hello"): the largest tables, so that the
		// prompt is never empty while tables exist.
		return largest(v.ds, min(b.Tables, 5)), nil
	}
	// The best few hits, then the tables that join them (which a
	// question rarely names), then the other hits.
	const head = 6
	top := out[:min(head, len(out))]
	names := make([]string, len(top))
	for i, rt := range top {
		names[i] = rt.Name
	}
	bridges := r.bridges(names, 2)
	meta.Bridges = len(bridges)
	merged := append([]Retrieved(nil), top...)
	bridged := map[string]bool{}
	for _, n := range bridges {
		merged = append(merged, Retrieved{Name: n})
		bridged[n] = true
	}
	for _, rt := range out[len(top):] {
		if !bridged[rt.Name] {
			merged = append(merged, rt)
		}
	}
	return merged[:min(len(merged), b.Tables)], nil
}

// bridges returns up to n tables outside chosen that connect two or more
// of them: by declared foreign keys first (playlist_track between
// playlist and track; invoice between invoice_line and customer), then
// by shared id-like column names (joins.Links) where keys are not
// declared.
func (r *Remote) bridges(chosen []string, n int) []string {
	in := map[string]bool{}
	for _, c := range chosen {
		in[c] = true
	}
	links := map[string]map[string]bool{} // outside table → chosen tables it joins
	link := func(outside, inside string) {
		if links[outside] == nil {
			links[outside] = map[string]bool{}
		}
		links[outside][inside] = true
	}
	for _, p := range r.fks {
		switch {
		case in[p.From] && !in[p.To]:
			link(p.To, p.From)
		case in[p.To] && !in[p.From]:
			link(p.From, p.To)
		}
	}
	var out []string
	for t, l := range links {
		if len(l) >= 2 {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(links[out[i]]) != len(links[out[j]]) {
			return len(links[out[i]]) > len(links[out[j]])
		}
		return out[i] < out[j]
	})
	if len(out) < n {
		for _, t := range r.links().Bridges(chosen, n) {
			if links[t] == nil || len(links[t]) < 2 {
				out = append(out, t)
			}
		}
	}
	return out[:min(len(out), n)]
}

// links maps the id-like columns of every table, built once.
func (r *Remote) links() *joins.Links {
	r.linksOnce.Do(func() { r.idLinks = joins.NewLinks(r.current().tables) })
	return r.idLinks
}

// largest returns the n tables of ds with the most rows (by the
// server's estimate).
func largest(ds []catalog.Dataset, n int) []Retrieved {
	order := make([]int, len(ds))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ds[order[a]].Rows > ds[order[b]].Rows })
	out := make([]Retrieved, 0, n)
	for _, i := range order[:min(n, len(order))] {
		out = append(out, Retrieved{Name: ds[i].Name})
	}
	return out
}

// promptDataset is the table called name as describe shows it: its
// columns with their descriptions (the user's notes, else the database's
// comments), and its kind in place of a source when it is not a plain
// table.
func (r *Remote) promptDataset(v *noted, name string) catalog.Dataset {
	i := r.byName[name]
	d := v.ds[i]
	d.Source = kindNote(r.Schema.Tables[i].Kind)
	return d
}

// kindNote is what the prompt says of a table's kind: nothing for a
// plain table, else "view", "materialized view"….
func kindNote(kind string) string {
	if kind == "table" {
		return ""
	}
	return kind
}
