package retrieve

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/joins"
	"github.com/loupeapp/loupe/data/memory"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
)

// Budget bounds the data section of the system prompt.
type Budget struct {
	// Tables is how many tables are described; 10 when 0.
	Tables int
	// Tokens is the data section's size, estimated as the agent
	// estimates; 3,000 when 0.
	Tokens int
	// ListOthers is how many other tables may be listed one line each;
	// past it they are only counted. 30 when 0.
	ListOthers int
}

func (b Budget) withDefaults() Budget {
	if b.Tables <= 0 {
		b.Tables = 10
	}
	if b.Tokens <= 0 {
		b.Tokens = 3000
	}
	if b.ListOthers <= 0 {
		b.ListOthers = 30
	}
	return b
}

// Meta is what retrieval chose, for the run's metadata and the trace.
type Meta struct {
	Tables     []Retrieved `json:"tables"`       // described, in prompt order
	Bridges    int         `json:"bridges"`      // of them, added because they join two others
	Total      int         `json:"total_tables"` // datasets in the workspace
	Listed     int         `json:"listed"`       // other tables given one line each
	Others     int         `json:"others"`       // other tables only counted
	JoinPaths  int         `json:"join_paths"`
	Trimmed    bool        `json:"trimmed"`     // columns or tables were cut to fit the budget
	DataTokens int         `json:"data_tokens"` // the data section, estimated
	// PromptTokens is the whole system prompt, estimated with no tools
	// on offer (the run's own metadata counts its tools' lines too).
	PromptTokens int     `json:"prompt_tokens"`
	ElapsedMS    float64 `json:"elapsed_ms"`
	// Semantic names the embedding model whose ranking was fused with the
	// text ranking; empty when the boost is off or failed.
	Semantic string `json:"semantic,omitempty"`
	// Warnings say what did not work but did not stop retrieval (the
	// semantic boost's model failing, tables not embedded yet).
	Warnings []string `json:"warnings,omitempty"`

	boost index.Boost // the search's semantic boost
}

// Retrieved is a table chosen for the prompt.
type Retrieved struct {
	Name    string   `json:"name"`
	Score   float64  `json:"score"`             // 0 for bridges and small workspaces
	Columns []string `json:"columns,omitempty"` // the columns matching the question
}

// Retrieve builds the data section of the agent's prompt for question:
// the best-matching tables (budget.Tables), the tables that join them,
// their relevant columns, the join paths known among them, and one line
// per other table when there are few — all within budget.Tokens. It syncs
// idx with the workspace first (cheap when nothing changed); with a nil
// idx it searches an index built in memory for the call.
func Retrieve(ctx context.Context, ws *workspace.Workspace, idx *index.Index, question string, budget Budget) (agent.Schema, Meta, error) {
	start := time.Now()
	b := budget.withDefaults()
	ds, tables, err := datasets(ctx, ws)
	if err != nil {
		return agent.Schema{}, Meta{}, err
	}
	if idx == nil {
		if idx, err = index.OpenMem(); err != nil {
			return agent.Schema{}, Meta{}, err
		}
		defer idx.Close()
	}
	if _, err := idx.Sync(ctx, index.Workspace, tables); err != nil {
		return agent.Schema{}, Meta{}, fmt.Errorf("update the schema index: %w", err)
	}
	meta := Meta{Total: len(ds)}
	chosen, err := choose(ctx, ws, idx, ds, tables, question, b, &meta)
	if err != nil {
		return agent.Schema{}, Meta{}, err
	}
	byName := make(map[string]catalog.Dataset, len(ds))
	tabByName := make(map[string]index.Table, len(tables))
	for i, d := range ds {
		byName[d.Name] = d
		tabByName[d.Name] = tables[i]
	}
	var picked []index.Table
	for _, r := range chosen {
		picked = append(picked, tabByName[r.Name])
	}
	paths, err := finderFor(ws).Find(ctx, picked)
	if err != nil {
		return agent.Schema{}, Meta{}, fmt.Errorf("find join paths: %w", err)
	}
	s := agent.Schema{Dialect: "DuckDB"}
	keyCols := map[string]map[string]bool{}
	for _, p := range paths {
		s.JoinPaths = append(s.JoinPaths, agent.JoinPath{From: p.From, FromColumn: p.FromColumn, To: p.To, ToColumn: p.ToColumn, Confidence: p.Confidence, Declared: p.Declared})
		mark(keyCols, p.From, p.FromColumn)
		mark(keyCols, p.To, p.ToColumn)
	}
	for _, r := range chosen {
		s.Tables = append(s.Tables, describe(byName[r.Name], r.Columns, keyCols[r.Name], wideColumns))
	}
	in := map[string]bool{}
	for _, r := range chosen {
		in[r.Name] = true
	}
	var others []agent.Table
	for _, d := range ds {
		if !in[d.Name] {
			others = append(others, agent.Table{Name: d.Name, Rows: d.Rows, Source: sourceOf(d)})
		}
	}
	s = finish(s, others, chosen, byName, keyCols, b, &meta, start)
	return s, meta, nil
}

// finish lists the other tables one line each when they are few (else
// only counts them), trims s to the budget and fills in meta's sizes: the
// last part of a retrieval, the workspace's and a connection's alike.
func finish(s agent.Schema, others []agent.Table, chosen []Retrieved, byName map[string]catalog.Dataset,
	keyCols map[string]map[string]bool, b Budget, meta *Meta, start time.Time) agent.Schema {
	if len(others) <= b.ListOthers {
		s.Tables = append(s.Tables, others...)
		meta.Listed = len(others)
	} else {
		s.Others = len(others)
		meta.Others = len(others)
	}
	meta.Tables = chosen
	s = fit(s, chosen, byName, keyCols, b.Tokens, meta)
	meta.JoinPaths = len(s.JoinPaths)
	meta.DataTokens = dataTokens(s)
	meta.PromptTokens = agent.PromptTokens(s, noTools, agent.DefaultMaxSteps)
	meta.ElapsedMS = ms(time.Since(start))
	return s
}

// choose picks the tables to describe: all of a small workspace, else the
// best hits with the tables that join them.
func choose(ctx context.Context, ws *workspace.Workspace, idx *index.Index, ds []catalog.Dataset, tables []index.Table, question string, b Budget, meta *Meta) ([]Retrieved, error) {
	hits, boost, err := idx.SearchFused(ctx, question, index.Options{K: max(b.Tables*2, 20), Origin: index.Workspace})
	if err != nil {
		return nil, err
	}
	meta.boost = boost
	if boost.Fused() {
		meta.Semantic = boost.Model
	}
	meta.Warnings = append(meta.Warnings, boostWarnings(boost)...)
	var out []Retrieved
	seen := map[string]bool{}
	for _, h := range hits {
		r := Retrieved{Name: h.Table.Name, Score: h.Score}
		for _, c := range h.Columns {
			r.Columns = append(r.Columns, c.Name)
		}
		out = append(out, r)
		seen[r.Name] = true
	}
	if len(tables) <= b.Tables {
		for _, t := range tables {
			if !seen[t.Name] {
				out = append(out, Retrieved{Name: t.Name})
			}
		}
		return out, nil
	}
	if len(out) == 0 {
		// Nothing matches ("hello"): the latest datasets, so that the
		// prompt is never empty while tables exist.
		return latest(ds, min(b.Tables, 5)), nil
	}
	// The best few hits, then the tables that join them (which a
	// question rarely names), then the other hits.
	const head = 6
	names := make([]string, 0, len(out))
	for _, r := range out[:min(head, len(out))] {
		names = append(names, r.Name)
	}
	bridges := linksFor(ws, tables).Bridges(names, 2)
	meta.Bridges = len(bridges)
	merged := append([]Retrieved(nil), out[:min(head, len(out))]...)
	bridged := map[string]bool{}
	for _, n := range bridges {
		merged = append(merged, Retrieved{Name: n})
		bridged[n] = true
	}
	for _, r := range out[min(head, len(out)):] {
		if !bridged[r.Name] {
			merged = append(merged, r)
		}
	}
	if len(merged) > b.Tables {
		merged = merged[:b.Tables]
	}
	return merged, nil
}

// latest returns the n datasets loaded last.
func latest(ds []catalog.Dataset, n int) []Retrieved {
	order := make([]int, len(ds))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ds[order[a]].LoadedAt.After(ds[order[b]].LoadedAt) })
	out := make([]Retrieved, 0, n)
	for _, i := range order[:min(n, len(order))] {
		out = append(out, Retrieved{Name: ds[i].Name})
	}
	return out
}

// wideColumns is how many columns a table shows before only the relevant
// ones are kept.
const wideColumns = 25

// describe shows d with all its columns when it has at most limit, else
// the matching ones, the join keys and the first few, saying how many are
// left out.
func describe(d catalog.Dataset, matched []string, keys map[string]bool, limit int) agent.Table {
	t := agent.Table{Name: d.Name, Rows: d.Rows, Source: sourceOf(d), Description: clipTo(d.Description(), tableNoteChars)}
	if len(d.Columns) <= limit {
		for _, c := range d.Columns {
			t.Columns = append(t.Columns, column(c))
		}
		return t
	}
	keep := map[string]bool{}
	for _, m := range matched {
		keep[m] = true
	}
	for k := range keys {
		keep[k] = true
	}
	for i, c := range d.Columns {
		if len(keep) >= limit && !keep[c.Name] {
			continue
		}
		if keep[c.Name] || i < limit/3 {
			keep[c.Name] = true
		}
	}
	for _, c := range d.Columns {
		if keep[c.Name] {
			t.Columns = append(t.Columns, column(c))
		}
	}
	shown := fmt.Sprintf("Showing %d of %d columns; describe_table lists all.", len(t.Columns), len(d.Columns))
	if t.Description != "" {
		shown = t.Description + "\n  " + shown
	}
	t.Description = shown
	return t
}

// fit trims s until its data section fits tokens: first the one-line
// list of other tables becomes a count, then the lowest-ranked tables
// lose their unmatched columns and samples, then they are dropped (the
// first is always kept).
func fit(s agent.Schema, chosen []Retrieved, byName map[string]catalog.Dataset, keys map[string]map[string]bool, tokens int, meta *Meta) agent.Schema {
	if dataTokens(s) <= tokens {
		return s
	}
	meta.Trimmed = true
	if meta.Listed > 0 {
		s.Tables = s.Tables[:len(chosen)]
		s.Others, meta.Others, meta.Listed = meta.Listed, meta.Listed, 0
	}
	for i := len(chosen) - 1; i >= 0 && dataTokens(s) > tokens; i-- {
		s.Tables[i] = describe(byName[chosen[i].Name], chosen[i].Columns, keys[chosen[i].Name], 8)
		for j := range s.Tables[i].Columns {
			s.Tables[i].Columns[j].Samples = nil
			s.Tables[i].Columns[j].Description = clipTo(s.Tables[i].Columns[j].Description, 40)
		}
	}
	for len(s.Tables) > 1 && dataTokens(s) > tokens {
		last := s.Tables[len(s.Tables)-1].Name
		s.Tables = s.Tables[:len(s.Tables)-1]
		s.Others++
		s.JoinPaths = dropPaths(s.JoinPaths, last)
	}
	meta.Others = s.Others
	meta.Tables = chosen[:min(len(s.Tables), len(chosen))]
	return s
}

func dropPaths(ps []agent.JoinPath, table string) []agent.JoinPath {
	out := ps[:0]
	for _, p := range ps {
		if p.From != table && p.To != table {
			out = append(out, p)
		}
	}
	return out
}

// noTools is an empty tool set, for estimating prompts.
var noTools, _ = tools.NewSet()

// baseTokens is the prompt without data, for telling the data section's
// size: the difference, less the line an empty workspace gets.
var baseTokens = sync.OnceValue(func() int {
	return agent.PromptTokens(agent.Schema{Dialect: "DuckDB", Tables: []agent.Table{{}}}, noTools, agent.DefaultMaxSteps)
})

// dataTokens estimates the data section of s (tables and join paths) the
// way the agent estimates its prompt.
func dataTokens(s agent.Schema) int {
	return agent.PromptTokens(s, noTools, agent.DefaultMaxSteps) - baseTokens()
}

func mark(m map[string]map[string]bool, table, col string) {
	if m[table] == nil {
		m[table] = map[string]bool{}
	}
	m[table][col] = true
}

func sourceOf(d catalog.Dataset) string {
	src := d.Source[strings.LastIndexAny(d.Source, `/\`)+1:]
	if d.Part != "" {
		src += " (" + d.Part + ")"
	}
	return src
}

// Per-workspace caches: join checks and the link map, both keyed so that
// a change of datasets is noticed.
var (
	cacheMu sync.Mutex
	finders = map[string]*joins.Finder{}
	links   = map[string]linkCache{}
)

// catalogCache holds a workspace's datasets as last listed, with the
// fingerprint of the catalog they were listed at: decoding 10,000 catalog
// records takes about 0.6 s, fingerprinting them 0.06 s.
type catalogCache struct {
	fingerprint string
	ds          []catalog.Dataset
	tables      []index.Table
}

var catalogs = map[string]catalogCache{}

// datasets returns ws's datasets and their index descriptions, listed
// again only when the catalog changed. The fingerprint reads the catalog's
// own table; it belongs in data/catalog, and moves there when it offers
// one.
func datasets(ctx context.Context, ws *workspace.Workspace) ([]catalog.Dataset, []index.Table, error) {
	var n int
	var sum sql.NullString
	err := ws.Engine.DB().QueryRowContext(ctx, "SELECT count(*), sum(hash(name, info))::VARCHAR FROM _loupe.datasets").Scan(&n, &sum)
	if err != nil {
		return nil, nil, fmt.Errorf("fingerprint the catalog: %w", err)
	}
	fp := fmt.Sprintf("%d/%s", n, sum.String)
	cacheMu.Lock()
	c, ok := catalogs[ws.Engine.Dir()]
	cacheMu.Unlock()
	if ok && c.fingerprint == fp {
		return c.ds, c.tables, nil
	}
	ds, err := ws.Datasets(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("list datasets: %w", err)
	}
	c = catalogCache{fingerprint: fp, ds: ds, tables: index.FromDatasets(ds)}
	cacheMu.Lock()
	catalogs[ws.Engine.Dir()] = c
	cacheMu.Unlock()
	return c.ds, c.tables, nil
}

type linkCache struct {
	key   string
	links *joins.Links
}

func finderFor(ws *workspace.Workspace) *joins.Finder {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	f := finders[ws.Engine.Dir()]
	if f == nil {
		f = joins.NewFinder(&joins.DuckChecker{DB: ws.Engine.DB()})
		finders[ws.Engine.Dir()] = f
	}
	return f
}

func linksFor(ws *workspace.Workspace, tables []index.Table) *joins.Links {
	var k strings.Builder
	for _, t := range tables {
		k.WriteString(t.Name)
		k.WriteString(t.Version)
	}
	key := k.String()
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if c, ok := links[ws.Engine.Dir()]; ok && c.key == key {
		return c.links
	}
	l := joins.NewLinks(tables)
	links[ws.Engine.Dir()] = linkCache{key: key, links: l}
	return l
}

// Remember stores in mem the successful queries of a finished run (its
// query evidence, cited q1, q2…: the results of the tools whose
// Spec.Evidence is query, with their SQL and table) with the question
// they answered, the tables they read
// (among known) and a short description of their result, so that
// find_prior_query offers them to later questions. It returns how many
// were stored.
func Remember(ctx context.Context, mem *memory.Store, chat, question string, out *agent.Outcome, known []string) (int, error) {
	n := 0
	for _, e := range out.Evidence {
		if !strings.HasPrefix(e.Ref, "q") || strings.TrimSpace(e.SQL) == "" || e.Table == nil {
			continue
		}
		result := e.Summary
		if len(e.Table.Columns) > 0 {
			cols := make([]string, len(e.Table.Columns))
			for i, c := range e.Table.Columns {
				cols[i] = c.Name
			}
			result += ": " + strings.Join(cols, ", ")
		}
		_, err := mem.Remember(ctx, memory.Entry{Chat: chat, Question: question, SQL: e.SQL,
			Tables: memory.TablesIn(e.SQL, known), Result: result})
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
