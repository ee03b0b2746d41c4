package index

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
)

// A question is nearly always about one database: the tables it needs
// come from the same file or schema (a Group), and that group's tables
// between them hold most of the question's words, while a look-alike in
// another group ("singer" in five databases) holds one or two. coherent
// re-ranks text hits by both: each table's own score, and the share of
// the question's weighted terms its group's hits cover together.

// candidates is how many text hits are re-ranked for k wanted.
func candidates(k int) int { return max(4*k, 40) }

// groupWeight is how much the group's coverage counts against a table's
// own score, both scaled to [0, 1]: as much (on spider-union, 0.25 to 1.5
// all gain recall@10 over none, 1 most; on defog, none of them loses
// more than one gold table of 210 questions).
const groupWeight = 1.0

// coherent re-orders hits (best first, by text score) by each one's own
// score and its group's coverage of weights, and, with near (the semantic
// boost's ranking; nil without one), by how near the question's meaning
// the table and its group are. It returns the first k, each with its
// combined score.
func (x *Index) coherent(hits []Hit, weights map[string]float64, partOf map[string]string, k int, near map[string]float64) ([]Hit, []float64) {
	score := x.coherence(hits, weights, partOf, near)
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return score[order[a]] > score[order[b]] })
	out := make([]Hit, 0, min(k, len(hits)))
	scores := make([]float64, 0, cap(out))
	for _, i := range order[:min(k, len(order))] {
		out = append(out, hits[i])
		scores = append(scores, score[i])
	}
	return out, scores
}

// coherence scores each hit: its text score scaled to [0, 1], plus
// groupWeight times its group's coverage of the question's weighted terms.
// With near (the semantic ranking) each hit gains by its nearness:
// semWeight times its own and semGroupWeight times its group's nearest
// hit's; and the share of the question's weight that no hit's words hold
// ("headcount" where no table says it) goes by meaning alone: each hit
// gains uncoveredWeight times that share times its nearness. Without
// near, and when no term matched, the order of hits stands.
func (x *Index) coherence(hits []Hit, weights map[string]float64, partOf map[string]string, near map[string]float64) []float64 {
	score := make([]float64, len(hits))
	// Sums run over sorted terms: summed in a map's order, the same
	// question's scores differed in their last bits from run to run, and
	// ties with them.
	total := 0.0
	for _, t := range slices.Sorted(maps.Keys(weights)) {
		total += weights[t]
	}
	top := 0.0
	for _, h := range hits {
		top = max(top, h.Score)
	}
	covered := map[string]map[string]bool{} // group → terms its hits hold
	all := map[string]bool{}                // terms any hit holds
	for _, h := range hits {
		g := groupOf(h.Table)
		if covered[g] == nil {
			covered[g] = map[string]bool{}
		}
		for t := range termsOf(h.Table, x.terms.terms(h.Table), weights, partOf) {
			covered[g][t] = true
			all[t] = true
		}
	}
	if total > 0 && top > 0 {
		cover := map[string]float64{}
		for g, ts := range covered {
			for _, t := range slices.Sorted(maps.Keys(ts)) {
				cover[g] += weights[t]
			}
			cover[g] /= total
		}
		for i, h := range hits {
			score[i] = h.Score/top + groupWeight*cover[groupOf(h.Table)]
		}
	}
	if near == nil {
		return score
	}
	uncovered := 1.0
	if total > 0 {
		for _, t := range slices.Sorted(maps.Keys(all)) {
			uncovered -= weights[t] / total
		}
		uncovered = max(0, uncovered)
	}
	nearest := map[string]float64{} // group → its nearest hit's nearness
	for _, h := range hits {
		g := groupOf(h.Table)
		nearest[g] = max(nearest[g], near[h.Table.id()])
	}
	for i, h := range hits {
		n := near[h.Table.id()]
		score[i] += (semWeight+uncoveredWeight*uncovered)*n + semGroupWeight*nearest[groupOf(h.Table)]
	}
	return score
}

// groupOf is the table's group, or the table alone when it has none.
func groupOf(t Table) string {
	if t.Group != "" {
		return t.Origin + "\x1f" + t.Group
	}
	return t.id()
}

// termsOf returns the terms of weights that t's name, columns,
// descriptions and values hold (tableTerms), whole, as the start of a
// longer word or as a part of a compound (partOf).
func termsOf(t Table, have []string, weights map[string]float64, partOf map[string]string) map[string]bool {
	out := map[string]bool{}
	for _, term := range have {
		if _, ok := weights[term]; ok {
			out[term] = true
			continue
		}
		if p, ok := partOf[term]; ok {
			out[p] = true
			continue
		}
		for q := range weights {
			if len(q) >= minPrefix && len(term) > len(q) && strings.HasPrefix(term, q) {
				out[q] = true
			}
		}
	}
	return out
}

// tableTerms are the distinct terms of a table's name, description,
// columns and values, as analysed for the index.
func tableTerms(t Table) []string {
	seen := map[string]bool{}
	var out []string
	add := func(text string) {
		if text == "" {
			return
		}
		for _, term := range IdentTerms(text) {
			if !seen[term] {
				seen[term] = true
				out = append(out, term)
			}
		}
	}
	add(t.Name)
	add(t.Description)
	for _, c := range t.Columns {
		add(c.Name)
		add(c.Description)
		for _, v := range c.Values {
			add(v)
		}
	}
	return out
}

// termCache keeps tableTerms by table id and version: analysing a
// table's columns again for every search costs more than the search.
type termCache struct {
	mu sync.Mutex
	m  map[string][]string
}

// maxCachedTables bounds the cache; past it, it starts anew.
const maxCachedTables = 50_000

func (c *termCache) terms(t Table) []string {
	key := t.id() + "\x1f" + t.version()
	c.mu.Lock()
	have, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return have
	}
	have = tableTerms(t)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedTables {
		c.m = map[string][]string{}
	}
	c.m[key] = have
	c.mu.Unlock()
	return have
}
