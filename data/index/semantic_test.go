package index_test

import (
	"context"
	"hash/fnv"
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
	mu    sync.Mutex
	texts int
}

var concepts = map[string]int{
	"headcount": 0, "personnel": 0, "staff": 0, "roster": 0,
	"turnover": 1, "income": 1, "revenue": 1, "takings": 1,
}

func (*conceptEmbedder) Model() string { return "concepts-v1" }

func (e *conceptEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.texts += len(texts)
	e.mu.Unlock()
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
	if _, err := idx.Sync(ctx, index.Workspace, tables); err != nil {
		t.Fatal(err)
	}
	if emb.texts != len(tables) {
		t.Errorf("embedded %d texts, want %d", emb.texts, len(tables))
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
