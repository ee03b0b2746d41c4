package index

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/duck"
)

// Embedder turns texts into vectors: an embedding model such as Ollama's
// nomic-embed-text or OpenAI's text-embedding-3-small.
type Embedder interface {
	// Model names the model; vectors of different models never mix.
	Model() string
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Semantic is the optional semantic boost: an embedding per table, kept in
// the workspace's DuckDB database (schema _loupe_index), searched by cosine
// similarity and ranked with the text hits by nearness (see Index.fused).
// It is off unless attached with Index.SetSemantic.
type Semantic struct {
	eng *duck.Engine
	emb Embedder

	mu      sync.Mutex
	vecs    map[string]vector  // document id → vector, for emb's model
	refused map[string]refusal // document id → the model's refusal of that version
}

type vector struct {
	version string
	v       []float32
}

// embedBatch is how many tables are embedded per call to the model: small,
// so that a question's own embedding waits behind at most one batch on a
// server that embeds one request at a time.
const embedBatch = 16

// OpenSemantic loads the table embeddings of emb's model from the
// workspace database, creating their table if needed.
func OpenSemantic(ctx context.Context, eng *duck.Engine, emb Embedder) (*Semantic, error) {
	s := &Semantic{eng: eng, emb: emb, vecs: map[string]vector{}, refused: map[string]refusal{}}
	err := eng.Write(ctx, func(c *duckdb.Conn) error {
		for _, q := range []string{
			"CREATE SCHEMA IF NOT EXISTS _loupe_index",
			"CREATE TABLE IF NOT EXISTS _loupe_index.embeddings (id VARCHAR, model VARCHAR, version VARCHAR, vec BLOB, PRIMARY KEY (id, model))",
		} {
			if err := duck.Exec(ctx, c, q); err != nil {
				return fmt.Errorf("create the embeddings table: %w", err)
			}
		}
		rows, err := c.QueryContext(ctx, "SELECT id, version, vec FROM _loupe_index.embeddings WHERE model = $1", []driver.NamedValue{{Ordinal: 1, Value: emb.Model()}})
		if err != nil {
			return fmt.Errorf("read embeddings: %w", err)
		}
		defer rows.Close()
		dest := make([]driver.Value, 3)
		for {
			if err := rows.Next(dest); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return fmt.Errorf("read embeddings: %w", err)
			}
			id, _ := dest[0].(string)
			ver, _ := dest[1].(string)
			raw, _ := dest[2].([]byte)
			s.vecs[id] = vector{version: ver, v: decodeVec(raw)}
		}
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// SetSemantic attaches s: Search fuses its ranking with the text ranking
// for the tables s has a vector of (Semantic.Sync makes them). nil
// detaches it.
func (x *Index) SetSemantic(s *Semantic) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.sem = s
}

func (x *Index) semantic() *Semantic {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.sem
}

// Model names the embedding model of s.
func (s *Semantic) Model() string { return s.emb.Model() }

// EmbedStats says what a Semantic.Sync did. Refused counts the tables the
// model would not embed (see RefusedError).
type EmbedStats struct {
	Embedded, Removed, Unchanged, Refused int
}

// Sync embeds the tables of origin whose current version has no vector
// yet, embedBatch at a time, storing each batch as it comes, and forgets
// the vectors of origin's tables no longer present. On an error (the
// model failing, ctx ending) what was stored stays, the stats count it,
// and the next Sync goes on from there.
//
// A batch the model rejects for good (not a transient failure) is tried
// one table at a time: tables the model rejects alone are skipped, and
// skipped again by later Syncs until they change; the others are
// embedded, and Sync ends with a *RefusedError naming the skipped ones.
// When every table of the batch is rejected alone, the model, not the
// tables, is failing: Sync stops with its error.
func (s *Semantic) Sync(ctx context.Context, origin string, tables []Table) (EmbedStats, error) {
	var st EmbedStats
	s.mu.Lock()
	keep := map[string]bool{}
	var pending []Table
	refused := &RefusedError{Model: s.emb.Model()}
	for _, t := range tables {
		t.Origin = origin
		keep[t.id()] = true
		if r, ok := s.refused[t.id()]; ok && r.version == t.version() {
			refused.add(t, r.err)
			continue
		}
		if v, ok := s.vecs[t.id()]; !ok || v.version != t.version() {
			pending = append(pending, t)
		}
	}
	st.Unchanged = len(tables) - len(pending) - len(refused.Tables)
	var gone []string
	for id := range s.vecs {
		if strings.HasPrefix(id, origin+"\x1f") && !keep[id] {
			gone = append(gone, id)
		}
	}
	s.mu.Unlock()
	if err := s.forget(ctx, gone); err != nil {
		return st, err
	}
	st.Removed = len(gone)
	for len(pending) > 0 {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		n := min(embedBatch, len(pending))
		batch := pending[:n]
		pending = pending[n:]
		texts := make([]string, n)
		for i, t := range batch {
			texts[i] = embedText(t)
		}
		vs, err := s.emb.Embed(ctx, texts)
		if err == nil && len(vs) != n {
			err = fmt.Errorf("%d vectors for %d texts", len(vs), n)
		}
		if err != nil && (ctx.Err() != nil || transient(err)) {
			return st, fmt.Errorf("embed tables with %s: %w", s.emb.Model(), err)
		}
		if err != nil {
			batch, vs, err = s.embedEach(ctx, batch, refused)
			if err != nil {
				st.Refused = len(refused.Tables)
				return st, fmt.Errorf("embed tables with %s: %w", s.emb.Model(), err)
			}
		}
		if err := s.store(ctx, batch, vs); err != nil {
			return st, err
		}
		st.Embedded += len(batch)
	}
	st.Refused = len(refused.Tables)
	if st.Refused > 0 {
		return st, refused
	}
	return st, nil
}

// forget deletes the vectors of ids.
func (s *Semantic) forget(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	err := s.eng.Write(ctx, func(c *duckdb.Conn) error {
		for _, id := range ids {
			if _, err := c.ExecContext(ctx, "DELETE FROM _loupe_index.embeddings WHERE id = $1", []driver.NamedValue{{Ordinal: 1, Value: id}}); err != nil {
				return fmt.Errorf("forget an embedding: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	for _, id := range ids {
		delete(s.vecs, id)
		delete(s.refused, id)
	}
	s.mu.Unlock()
	return nil
}

func (s *Semantic) store(ctx context.Context, ts []Table, vs [][]float32) error {
	err := s.eng.Write(ctx, func(c *duckdb.Conn) error {
		for i, t := range ts {
			_, err := c.ExecContext(ctx, "INSERT OR REPLACE INTO _loupe_index.embeddings VALUES ($1, $2, $3, $4)", []driver.NamedValue{
				{Ordinal: 1, Value: t.id()}, {Ordinal: 2, Value: s.emb.Model()}, {Ordinal: 3, Value: t.version()}, {Ordinal: 4, Value: encodeVec(vs[i])}})
			if err != nil {
				return fmt.Errorf("store an embedding: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	for i, t := range ts {
		s.vecs[t.id()] = vector{version: t.version(), v: normalize(vs[i])}
	}
	s.mu.Unlock()
	return nil
}

// outgoingKey is the context key of WithOutgoing's filter.
type outgoingKey struct{}

// WithOutgoing returns ctx whose searches send the embedding model
// f(question) instead of the question: a privacy level's mask, the same
// the chat model's text goes through. When f fails nothing is sent and the
// search ranks by text alone, saying why (Boost.Err).
func WithOutgoing(ctx context.Context, f func(context.Context, string) (string, error)) context.Context {
	return context.WithValue(ctx, outgoingKey{}, f)
}

// embedQuestion returns the vector of question, normalised, the question
// passed through ctx's WithOutgoing filter first.
func (s *Semantic) embedQuestion(ctx context.Context, question string) ([]float32, error) {
	if f, ok := ctx.Value(outgoingKey{}).(func(context.Context, string) (string, error)); ok && f != nil {
		q, err := f(ctx, question)
		if err != nil {
			return nil, fmt.Errorf("mask the question for %s: %w", s.emb.Model(), err)
		}
		question = q
	}
	vs, err := s.emb.Embed(ctx, []string{question})
	if err == nil && len(vs) != 1 {
		err = fmt.Errorf("%d vectors for one text", len(vs))
	}
	if err != nil {
		return nil, fmt.Errorf("embed the question with %s: %w", s.emb.Model(), err)
	}
	return normalize(vs[0]), nil
}

// nearest returns the ids of the k tables of origin (all when "") closest
// to the question's vector q, among those whose vector is of the version
// current gives them (the index's manifest; others are not embedded yet),
// and how many of current's tables of origin have such a vector. The
// caller holds whatever guards current.
func (s *Semantic) nearest(q []float32, origin string, k int, current map[string]string) (ids []string, embedded, total int) {
	type scored struct {
		id string
		s  float64
	}
	prefix := origin + "\x1f"
	s.mu.Lock()
	var all []scored
	for id, ver := range current {
		if origin != "" && !strings.HasPrefix(id, prefix) {
			continue
		}
		total++
		if v, ok := s.vecs[id]; ok && v.version == ver {
			embedded++
			all = append(all, scored{id, dot(q, v.v)})
		}
	}
	s.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s || all[i].s == all[j].s && all[i].id < all[j].id })
	ids = make([]string, 0, k)
	for _, a := range all[:min(k, len(all))] {
		ids = append(ids, a.id)
	}
	return ids, embedded, total
}

// embedText is what a table's embedding is made from: its name, twice in
// words (the name says most about what a table holds), its description,
// and its columns with their descriptions. Column values are left out: in
// one vector, lists of codes and names drown the table's subject (the text
// index matches them instead). On the defog benchmark, leaving them out
// raised the fused recall@10 from 0.970 to 0.989.
func embedText(t Table) string {
	var b strings.Builder
	words := strings.Join(Words(t.Name), " ")
	fmt.Fprintf(&b, "table %s (%s) %s", t.Name, words, words)
	if t.Description != "" {
		b.WriteString(": " + t.Description)
	}
	b.WriteString("\ncolumns:")
	for _, c := range t.Columns {
		fmt.Fprintf(&b, " %s", strings.Join(Words(c.Name), " "))
		if c.Description != "" {
			fmt.Fprintf(&b, " (%s)", c.Description)
		}
		b.WriteString(";")
	}
	return b.String()
}

// How the semantic ranking counts (see Index.fused and coherence),
// measured with a real model (Universal Sentence Encoder lite, `make
// bench-embed`): a table's nearness is 1 for the question's nearest
// table, falling linearly to 0 at semWindow (or at the number of embedded
// tables, when fewer). A table gains semWeight times its nearness,
// semGroupWeight times its group's nearest candidate's, and
// uncoveredWeight times its nearness times the share of the question's
// weight no candidate's words hold, over the text score (scaled to
// [0, 1]) and its group's coverage (groupWeight). The semNeighbours
// nearest tables are candidates even when no word of theirs matches.
// Ranks, not cosines: each model's similarities have their own scale.
//
// On spider-union these settings raised recall@10 of the prompt's tables
// from 0.968 (text alone) to 0.981, and defog's stayed at 0.992; fused by
// reciprocal rank instead, the same model lowered both (0.959, 0.981).
// They were chosen on these two sets (no third was held out): weights of
// 0.25 to 0.3 and windows of 30 to 60 all gave 0.978-0.981 on Spider,
// 0.992 on defog; the uncovered share at 1 (not 0.5) cost defog 0.004,
// at 2 it cost both.
const (
	semWindow       = 40
	semNeighbours   = 20
	semWeight       = 0.3
	semGroupWeight  = 0.3
	uncoveredWeight = 0.5
)

// nearness maps the ids of ranked (nearest first, of embedded tables) to
// their nearness: 1 for the first, falling linearly to 0 at semWindow or
// at embedded, whichever comes first.
func nearness(ranked []string, embedded int) map[string]float64 {
	w := float64(min(semWindow, embedded))
	out := make(map[string]float64, len(ranked))
	for r, id := range ranked {
		out[id] = max(0, 1-float64(r)/w)
	}
	return out
}

func normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(n))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * inv
	}
	return out
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range min(len(a), len(b)) {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func encodeVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return normalize(v)
}
