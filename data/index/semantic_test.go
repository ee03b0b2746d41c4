package index_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/workspace"
)

// conceptEmbedder is a stand-in embedding model: words of one concept
// share a dimension, other words hash into the rest. It counts the texts
// it embeds.
type conceptEmbedder struct {
	mu     sync.Mutex
	texts  int
	calls  int
	fail   error  // when set, every call fails with it
	reject string // when set, a call with a text holding it fails (a text too long for a model)
}

var concepts = map[string]int{
	"headcount": 0, "personnel": 0, "staff": 0, "roster": 0,
	"turnover": 1, "income": 1, "revenue": 1, "takings": 1,
}

func (*conceptEmbedder) Model() string { return "concepts-v1" }

func (e *conceptEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls++
	if e.fail != nil {
		return nil, e.fail
	}
	for _, t := range texts {
		if e.reject != "" && strings.Contains(t, e.reject) {
			return nil, errors.New("input length exceeds the context length")
		}
	}
	e.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 32)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return r < 'a' || r > 'z' }) {
			if d, ok := concepts[w]; ok {
				v[d] += 3
				continue
			}
			h := fnv.New32a()
			h.Write([]byte(w))
			v[2+h.Sum32()%30]++
		}
		out[i] = v
	}
	return out, nil
}

func TestSemanticBoost(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ws, err := workspace.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	idx, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	tables := []index.Table{
		{Name: "personnel_roster", Columns: []index.Column{{Name: "full_name", Type: "VARCHAR"}, {Name: "hired_on", Type: "DATE"}}},
		{Name: "shop_takings", Columns: []index.Column{{Name: "till", Type: "VARCHAR"}, {Name: "amount", Type: "DOUBLE"}}},
		{Name: "orders", Columns: []index.Column{{Name: "order_id", Type: "BIGINT"}, {Name: "quantity", Type: "INTEGER"}}},
		{Name: "weather", Columns: []index.Column{{Name: "city", Type: "VARCHAR"}, {Name: "rain_mm", Type: "DOUBLE"}}},
	}
	if _, err := idx.Sync(ctx, index.Workspace, tables); err != nil {
		t.Fatal(err)
	}
	if hits, _ := idx.Search(ctx, "What is our headcount?", index.Options{K: 2}); len(hits) != 0 {
		t.Fatalf("text alone should not know headcount: %v", hits)
	}
	emb := &conceptEmbedder{}
	sem, err := index.OpenSemantic(ctx, ws.Engine, emb)
	if err != nil {
		t.Fatal(err)
	}
	idx.SetSemantic(sem)
	if _, err := idx.Sync(ctx, index.Workspace, tables); err != nil || emb.texts != 0 {
		t.Fatalf("the index's Sync embedded %d texts (%v); only Semantic.Sync may", emb.texts, err)
	}
	if st, err := sem.Sync(ctx, index.Workspace, tables); err != nil || st.Embedded != len(tables) || emb.texts != len(tables) {
		t.Errorf("embedded %+v (%d texts), %v; want all %d", st, emb.texts, err, len(tables))
	}
	hits, err := idx.Search(ctx, "How many orders, and what is our headcount?", index.Options{K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Table.Name != "orders" && hits[1].Table.Name != "orders" {
		t.Fatalf("fused: %v", names(hits))
	}
	if hits[0].Table.Name != "personnel_roster" && hits[1].Table.Name != "personnel_roster" {
		t.Errorf("the semantic neighbour is missing: %v", names(hits))
	}
	// the embeddings live in the workspace: reopened, nothing is embedded again
	sem, err = index.OpenSemantic(ctx, ws.Engine, emb)
	if err != nil {
		t.Fatal(err)
	}
	idx.SetSemantic(sem)
	before := emb.texts
	if _, err := idx.Sync(ctx, index.Workspace, tables[1:]); err != nil {
		t.Fatal(err)
	}
	if st, err := sem.Sync(ctx, index.Workspace, tables[1:]); err != nil || st != (index.EmbedStats{Removed: 1, Unchanged: 3}) {
		t.Errorf("after a reopen and a removal: %+v, %v", st, err)
	}
	if emb.texts != before {
		t.Errorf("embedded %d texts again after a reopen", emb.texts-before)
	}
	hits, err = idx.Search(ctx, "headcount", index.Options{K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 1 && hits[0].Table.Name == "personnel_roster" {
		t.Errorf("a removed table is still found by its embedding")
	}
	var n int
	if err := ws.Engine.DB().QueryRow("SELECT count(*) FROM _loupe_index.embeddings").Scan(&n); err != nil || n != 3 {
		t.Errorf("%d embeddings stored, %v", n, err)
	}
}

// TestSemanticBoostReports: a search says how the boost took part — how
// many tables it could rank (the rest are not embedded yet or changed
// since), and, when the model fails, why it was left out; the failure is
// the search's report, not its error, and Semantic.Sync returns its own.
func TestSemanticBoostReports(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ws, err := workspace.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	idx, err := index.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	var tables []index.Table
	for i := range 40 {
		tables = append(tables, index.Table{Name: fmt.Sprintf("orders_%02d", i), Version: "v1",
			Columns: []index.Column{{Name: "order_id", Type: "BIGINT"}}})
	}
	tables = append(tables, index.Table{Name: "personnel_roster", Version: "v1", Columns: []index.Column{{Name: "full_name", Type: "VARCHAR"}}})
	if _, err := idx.Sync(ctx, index.Workspace, tables); err != nil {
		t.Fatal(err)
	}
	emb := &conceptEmbedder{}
	sem, err := index.OpenSemantic(ctx, ws.Engine, emb)
	if err != nil {
		t.Fatal(err)
	}
	idx.SetSemantic(sem)
	// nothing embedded yet: the question is, and the text ranking stands
	hits, b, err := idx.SearchFused(ctx, "orders and headcount", index.Options{K: 3})
	if err != nil || len(hits) != 3 || !b.Fused() || b.Embedded != 0 || b.Tables != len(tables) || b.Model != "concepts-v1" {
		t.Fatalf("none embedded: %v, %+v, %v", names(hits), b, err)
	}
	// the last table and one more embedded: the roster ranks by meaning
	// (a word no table holds; beside "orders", which 40 tables match
	// alike, it would rank below them)
	if _, err := sem.Sync(ctx, index.Workspace, tables[39:]); err != nil {
		t.Fatal(err)
	}
	hits, b, err = idx.SearchFused(ctx, "our headcount", index.Options{K: 3})
	if err != nil || b.Embedded != 2 || b.Tables != len(tables) || !slices.Contains(names(hits), "personnel_roster") {
		t.Errorf("two embedded: %v, %+v, %v", names(hits), b, err)
	}
	// a table that changed is not embedded until it is embedded again
	changed := append([]index.Table(nil), tables...)
	changed[40].Version = "v2"
	if _, err := idx.Sync(ctx, index.Workspace, changed); err != nil {
		t.Fatal(err)
	}
	if _, b, _ = idx.SearchFused(ctx, "headcount roster", index.Options{K: 3}); b.Embedded != 1 {
		t.Errorf("after a change: %+v, want 1 embedded", b)
	}
	// the model fails: text ranking, the failure in the report
	emb.fail = errors.New("model runner crashed")
	hits, b, err = idx.SearchFused(ctx, "orders", index.Options{K: 3})
	if err != nil || len(hits) != 3 || b.Fused() || b.Err == nil || !strings.Contains(b.Err.Error(), "model runner crashed") {
		t.Errorf("failing model: %v, %+v, %v", names(hits), b, err)
	}
	if plain, err := idx.Search(ctx, "orders", index.Options{K: 3}); err != nil || !slices.Equal(names(plain), names(hits)) {
		t.Errorf("Search with a failing model: %v, %v", names(plain), err)
	}
	st, err := sem.Sync(ctx, index.Workspace, changed)
	if err == nil || !strings.Contains(err.Error(), "model runner crashed") || st.Embedded != 0 || st.Unchanged != 1 {
		t.Errorf("Semantic.Sync with a failing model: %+v, %v", st, err)
	}
	// back: Sync goes on from where it stopped, a batch at a time
	emb.fail = nil
	before := emb.texts
	if st, err = sem.Sync(ctx, index.Workspace, changed); err != nil || st.Embedded != 40 || emb.texts-before != 40 {
		t.Errorf("resumed: %+v, %d texts, %v", st, emb.texts-before, err)
	}
	if _, b, _ = idx.SearchFused(ctx, "orders", index.Options{K: 3}); b.Embedded != len(tables) {
		t.Errorf("all embedded: %+v", b)
	}
	// cancelled: stops between batches, what was stored stays
	ctx2, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := sem.Sync(ctx2, index.Workspace, append(changed, index.Table{Name: "extra"})); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// transientErr is a failure the providers mark as worth retrying later.
type transientErr struct{}

func (transientErr) Error() string   { return "connection refused" }
func (transientErr) Transient() bool { return true }

// TestSemanticRefusedTables: a table the model will not embed (its text too
// long for it) does not keep the tables after it from being embedded; it
// is named in a *RefusedError, skipped by later Syncs until it changes,
// and a model that rejects everything, or a server that is down, still
// stops the pass.
func TestSemanticRefusedTables(t *testing.T) {
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var tables []index.Table
	for i := range 40 {
		name := fmt.Sprintf("orders_%02d", i)
		if i == 3 || i == 20 {
			name = fmt.Sprintf("enormous_%02d", i)
		}
		tables = append(tables, index.Table{Name: name, Version: "v1", Columns: []index.Column{{Name: "order_id", Type: "BIGINT"}}})
	}
	emb := &conceptEmbedder{reject: "enormous"}
	sem, err := index.OpenSemantic(ctx, ws.Engine, emb)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sem.Sync(ctx, index.Workspace, tables)
	var refused *index.RefusedError
	if !errors.As(err, &refused) || !slices.Equal(refused.Tables, []string{"enormous_03", "enormous_20"}) ||
		!strings.Contains(err.Error(), "context length") || st.Embedded != 38 || st.Refused != 2 {
		t.Fatalf("first Sync: %+v, %v", st, err)
	}
	// a later Sync asks the model nothing: the refused tables are skipped
	calls := emb.calls
	st, err = sem.Sync(ctx, index.Workspace, tables)
	if !errors.As(err, &refused) || st.Embedded != 0 || st.Unchanged != 38 || st.Refused != 2 || emb.calls != calls {
		t.Errorf("second Sync: %+v, %v, %d calls", st, err, emb.calls-calls)
	}
	// a refused table that changes is tried again
	emb.reject = ""
	tables[3].Version = "v2"
	st, err = sem.Sync(ctx, index.Workspace, tables)
	if !errors.As(err, &refused) || !slices.Equal(refused.Tables, []string{"enormous_20"}) || st.Embedded != 1 {
		t.Errorf("after a change: %+v, %v", st, err)
	}
	// a model that rejects every text is failing, not the tables
	more := []index.Table{{Name: "a_new", Version: "v1"}, {Name: "b_new", Version: "v1"}}
	emb.reject = "new"
	st, err = sem.Sync(ctx, index.Workspace, append(tables, more...))
	if err == nil || errors.As(err, &refused) || st.Embedded != 0 {
		t.Errorf("every text rejected: %+v, %v", st, err)
	}
	// a server that is down stops the pass at once
	emb.reject, emb.fail = "", transientErr{}
	calls = emb.calls
	if _, err := sem.Sync(ctx, index.Workspace, append(tables, more...)); err == nil || emb.calls != calls+1 {
		t.Errorf("server down: %v after %d calls", err, emb.calls-calls)
	}
}
