package index

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Hit is a table found for a question.
type Hit struct {
	Table Table   // as indexed
	Score float64 // BM25 over the fields, higher is better; comparable within one search
	// Columns are the table's columns that match the question, best
	// first; empty when only the table's name or source matched.
	Columns []ColumnHit
}

// ColumnHit is a column that matches the question.
type ColumnHit struct {
	Name  string  `json:"name"`
	Type  string  `json:"type"`
	Score float64 `json:"score"`
}

// Options narrow a search.
type Options struct {
	K      int    // how many tables; 10 when 0
	Origin string // only this origin's tables; all when ""
}

// A question word of at least minPrefix letters also matches the names
// it begins (rain → rainfall), at prefixBoost of a whole-word match.
const (
	minPrefix   = 4
	prefixBoost = 0.3
)

// compoundBoost is how much a question word counts in a compound it is
// part of (language in countrylanguage), against a whole-word match.
const compoundBoost = 0.5

var no = false

// maxColumnHits bounds the matching columns reported per table.
const maxColumnHits = 8

// Boost says how the semantic boost took part in a search.
type Boost struct {
	// Model is the attached boost's embedding model; "" when none is.
	Model string
	// Embedded of the Tables searched had a vector of their current
	// version: only they could rank by meaning, the others by text alone.
	Embedded, Tables int
	// Err is why the boost was left out of this search (the model failed
	// to embed the question): the ranking is by text alone.
	Err error
}

// Fused reports whether the semantic ranking was fused with the text
// ranking.
func (b Boost) Fused() bool { return b.Model != "" && b.Err == nil }

// Search returns the tables that best match question, best first, each
// with its best-matching columns. A question with no searchable word (only
// stop words) finds nothing. It is SearchFused for callers that only rank:
// a semantic boost that fails leaves the text ranking, and only
// SearchFused says so.
func (x *Index) Search(ctx context.Context, question string, o Options) ([]Hit, error) {
	hits, _, err := x.SearchFused(ctx, question, o)
	return hits, err
}

// SearchFused is Search, with the semantic boost's part in it: with a
// boost attached (SetSemantic) the question is embedded, the tables
// nearest to it join the text hits as candidates, and all are ranked by
// text and meaning together (Score is then the combined score; see
// fused). A model that fails is no error of the search: the text ranking
// is returned, with Boost.Err saying why.
func (x *Index) SearchFused(ctx context.Context, question string, o Options) ([]Hit, Boost, error) {
	if o.K <= 0 {
		o.K = 10
	}
	terms := unique(Terms(question))
	if len(terms) == 0 {
		return nil, Boost{}, nil
	}
	comp := x.compounds()
	// other indexed terms each question term also matches, weaker: the
	// compounds it is part of, and for a word the index does not hold at
	// all, the names it may be a misspelling of
	alts := make(map[string][]string, len(terms))
	for _, t := range terms {
		alts[t] = comp.of[t]
		if x.docFreq(fieldText, t) == 0 && x.docFreq(fieldValues, t) == 0 {
			alts[t] = append(comp.near(t), alts[t]...)
		}
	}
	perTerm := make([]query.Query, 0, len(terms))
	for _, term := range terms {
		fields := make([]query.Query, 0, len(boosts))
		for field, boost := range boosts {
			q := query.NewTermQuery(term)
			q.SetField(field)
			q.SetBoost(boost)
			fields = append(fields, q)
		}
		if len(term) >= minPrefix {
			// compounds: "rain" in rainfall, "paper" in paperkeyphrase
			for _, field := range []string{fieldName, fieldColumns} {
				// the words that begin with term, term itself excluded
				q := query.NewTermRangeInclusiveQuery(term, term+"\U0010FFFF", &no, &no)
				q.SetField(field)
				q.SetBoost(boosts[field] * prefixBoost)
				fields = append(fields, q)
			}
		}
		for _, c := range alts[term] {
			// car for carr; countrylanguage for language or country
			for _, field := range []string{fieldName, fieldColumns} {
				q := query.NewTermQuery(c)
				q.SetField(field)
				q.SetBoost(boosts[field] * compoundBoost)
				fields = append(fields, q)
			}
		}
		perTerm = append(perTerm, query.NewDisjunctionQuery(fields))
	}
	var q query.Query = query.NewDisjunctionQuery(perTerm)
	if o.Origin != "" {
		oq := query.NewTermQuery(o.Origin)
		oq.SetField(fieldOrigin)
		b := query.NewBooleanQuery(nil, []query.Query{q}, nil)
		b.SetMinShould(1)
		b.AddFilter(oq)
		q = b
	}
	sem := x.semantic()
	want := o.K
	if sem != nil {
		want = 2 * o.K // more candidates for the fusion
	}
	req := bleve.NewSearchRequestOptions(q, candidates(want), 0, false)
	req.Fields = []string{fieldRecord}
	res, err := x.bi.SearchInContext(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, Boost{}, ctx.Err()
		}
		return nil, Boost{}, fmt.Errorf("search the schema index: %w", err)
	}
	weights := x.termWeights(terms)
	partOf := map[string]string{} // an alternative of a question term → the term
	for t, cs := range alts {
		for _, c := range cs {
			partOf[c] = t
		}
	}
	out := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		t, err := decodeRecord(h.ID, h.Fields[fieldRecord])
		if err != nil {
			return nil, Boost{}, err
		}
		out = append(out, Hit{Table: t, Score: h.Score})
	}
	if sem != nil {
		return x.fused(ctx, sem, question, o, out, weights, partOf, want)
	}
	out, _ = x.coherent(out, weights, partOf, want, nil)
	withColumns(out, weights, partOf)
	return out, Boost{}, nil
}

// fused ranks the text candidates and the question's semantic neighbours
// together: coherence's text score and group coverage, plus how near the
// question's meaning each table and its group are (nearness). Score
// becomes that combined score. Without an embedded table, or with a
// failing embedding model, the ranking is the text ranking of want
// candidates cut to o.K, and Boost.Err says why the model failed.
func (x *Index) fused(ctx context.Context, sem *Semantic, question string, o Options, text []Hit, weights map[string]float64, partOf map[string]string, want int) ([]Hit, Boost, error) {
	b := Boost{Model: sem.Model()}
	byText := func() []Hit {
		out, _ := x.coherent(text, weights, partOf, want, nil)
		out = out[:min(o.K, len(out))]
		withColumns(out, weights, partOf)
		return out
	}
	q, err := sem.embedQuestion(ctx, question)
	if err != nil {
		if ctx.Err() != nil {
			return nil, b, ctx.Err()
		}
		b.Err = err
		return byText(), b, nil
	}
	x.mu.Lock()
	ranked, embedded, total := sem.nearest(q, o.Origin, semWindow, x.manifest)
	x.mu.Unlock()
	b.Embedded, b.Tables = embedded, total
	if len(ranked) == 0 {
		return byText(), b, nil
	}
	have := make(map[string]bool, len(text))
	for _, h := range text {
		have[h.Table.id()] = true
	}
	var missing []string
	for _, id := range ranked[:min(semNeighbours, len(ranked))] {
		if !have[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		req := bleve.NewSearchRequestOptions(query.NewDocIDQuery(missing), len(missing), 0, false)
		req.Fields = []string{fieldRecord}
		res, err := x.bi.SearchInContext(ctx, req)
		if err != nil {
			return nil, b, fmt.Errorf("read tables from the schema index: %w", err)
		}
		for _, h := range res.Hits {
			t, err := decodeRecord(h.ID, h.Fields[fieldRecord])
			if err != nil {
				return nil, b, err
			}
			text = append(text, Hit{Table: t}) // no text score: found by meaning alone
		}
	}
	out, scores := x.coherent(text, weights, partOf, o.K, nearness(ranked, embedded))
	for i := range out {
		out[i].Score = scores[i]
	}
	withColumns(out, weights, partOf)
	return out, b, nil
}

// withColumns sets each hit's Columns: its columns matching the question.
func withColumns(hits []Hit, weights map[string]float64, partOf map[string]string) {
	expanded := expand(weights, partOf)
	for i := range hits {
		hits[i].Columns = matchColumns(hits[i].Table, discount(expanded, hits[i].Table.Name))
	}
}

// expand adds to the question's term weights the compounds and near
// spellings of its terms (partOf), at compoundBoost of their term's.
func expand(weights map[string]float64, partOf map[string]string) map[string]float64 {
	out := make(map[string]float64, len(weights)+len(partOf))
	for t, w := range weights {
		out[t] = w
	}
	for c, t := range partOf {
		if _, ok := out[c]; !ok {
			out[c] = weights[t] * compoundBoost
		}
	}
	return out
}

func decodeRecord(id string, field any) (Table, error) {
	raw, _ := field.(string)
	var t Table
	if err := json.Unmarshal([]byte(raw), &t); err != nil {
		return Table{}, fmt.Errorf("decode indexed table %s: %w", id, err)
	}
	return t, nil
}

// termWeights gives each question term an inverse document frequency over
// the indexed tables, so that a rare word ("citation") outweighs a common
// one ("name") when columns are ranked.
func (x *Index) termWeights(terms []string) map[string]float64 {
	n, _ := x.bi.DocCount()
	w := make(map[string]float64, len(terms))
	for _, term := range terms {
		df := uint64(0)
		for _, f := range []string{fieldColumns, fieldText, fieldValues} {
			df = max(df, x.docFreq(f, term))
		}
		w[term] = math.Log(1 + (float64(n)+1)/(float64(df)+1))
	}
	return w
}

func (x *Index) docFreq(field, term string) uint64 {
	d, err := x.bi.FieldDictRange(field, []byte(term), []byte(term))
	if err != nil {
		return 0
	}
	defer d.Close()
	e, err := d.Next()
	if err != nil || e == nil || e.Term != term {
		return 0
	}
	return e.Count
}

// discount lowers the weight of the terms of the table's own name for
// ranking its columns: in "customers in Germany", customers names the
// table, and the column that matters is the one holding Germany.
func discount(weights map[string]float64, table string) map[string]float64 {
	own := IdentTerms(table)
	if len(own) == 0 {
		return weights
	}
	out := make(map[string]float64, len(weights))
	for t, w := range weights {
		out[t] = w
	}
	for _, t := range own {
		if w, ok := out[t]; ok {
			out[t] = w * 0.3
		}
	}
	return out
}

// matchColumns ranks t's columns by the weighted question terms in their
// name, description and values.
func matchColumns(t Table, weights map[string]float64) []ColumnHit {
	var out []ColumnHit
	for _, c := range t.Columns {
		s := overlap(IdentTerms(c.Name), weights, 1.0)
		if c.Description != "" {
			s += overlap(IdentTerms(c.Description), weights, 0.5)
		}
		for _, v := range c.Values {
			s += overlap(IdentTerms(v), weights, 0.7)
		}
		if s > 0 {
			out = append(out, ColumnHit{Name: c.Name, Type: c.Type, Score: s})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > maxColumnHits {
		out = out[:maxColumnHits]
	}
	return out
}

// overlap sums the weights of the distinct terms of have found in weights,
// times factor; a term that only begins with a question word of minPrefix
// letters or more (rainfall for rain) counts prefixBoost as much.
func overlap(have []string, weights map[string]float64, factor float64) float64 {
	s := 0.0
	seen := map[string]bool{}
	for _, t := range have {
		if seen[t] {
			continue
		}
		seen[t] = true
		if w, ok := weights[t]; ok {
			s += w * factor
			continue
		}
		for q, w := range weights {
			if len(q) >= minPrefix && len(t) > len(q) && strings.HasPrefix(t, q) {
				s += w * factor * prefixBoost
				break
			}
		}
	}
	return s
}

func unique(ss []string) []string {
	seen := make(map[string]bool, len(ss))
	out := ss[:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
