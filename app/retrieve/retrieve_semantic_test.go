package retrieve_test

import (
	"context"
	"fmt"
	"github.com/loupeapp/loupe/app/retrieve"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/index/indextest"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// staffTables are more tables than the prompt describes, none of them
// named with the words of "What is our headcount?".
var staffTables = map[string]string{
	"personnel":   "full_name,hired_on,grade\nAda,2020-01-02,3\n",
	"shop_sales":  "till,amount,day\nA,3.5,2024-01-01\n",
	"orders":      "order_id,quantity\n1,2\n",
	"weather":     "city,rain_mm\nOslo,3\n",
	"products":    "product_id,title,price\n1,Pen,2\n",
	"invoices":    "invoice_id,total\n1,9\n",
	"flights":     "flight_no,origin,destination\nAB1,OSL,LHR\n",
	"airports":    "code,airport_name\nOSL,Gardermoen\n",
	"patients":    "patient_id,born\n1,1990-01-01\n",
	"books":       "isbn,book_title\n1,Dune\n",
	"authors":     "author_id,author_name\n1,Herbert\n",
	"stores":      "store_id,address\n1,Main St\n",
	"shipments":   "shipment_id,weight_kg\n1,3\n",
	"suppliers":   "supplier_id,supplier_name\n1,Acme\n",
	"exchange_fx": "currency,rate\nEUR,1.1\n",
}

// staffWorkspace loads staffTables into a new workspace and opens its
// retrieval.
func staffWorkspace(t *testing.T) *retrieve.Retrieval {
	t.Helper()
	return workspaceOf(t, staffTables)
}

// workspaceOf returns the retrieval of a new workspace holding tables
// (name → CSV text).
func workspaceOf(t *testing.T, tables map[string]string) *retrieve.Retrieval {
	t.Helper()
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	src := t.TempDir()
	for name, body := range tables {
		f := filepath.Join(src, name+".csv")
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ws.Loader.Load(ctx, f, load.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	ret, err := retrieve.OpenRetrieval(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ret.Close() })
	return ret
}

func first(m retrieve.Meta) string {
	if len(m.Tables) == 0 {
		return ""
	}
	return m.Tables[0].Name
}

func TestSemanticBoostBothWires(t *testing.T) {
	ctx := context.Background()
	quiet := slog.New(slog.DiscardHandler)
	for _, wire := range []string{provider.Ollama, provider.OpenAI} {
		t.Run(wire, func(t *testing.T) {
			s := fake.Start(t, fake.Options{APIKey: "sk-x"})
			ret := staffWorkspace(t)
			const q = "What is our headcount?"
			_, meta, err := ret.Schema(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			// (Tables nothing matched come after the hits with score 0, in no set order.)
			if first(meta) == "personnel" && meta.Tables[0].Score > 0 || meta.Semantic != "" {
				t.Fatalf("text alone found %q (semantic %q): the test needs a question it misses", first(meta), meta.Semantic)
			}
			cfg := provider.Config{Provider: wire, EmbedModel: "nomic-embed-text", BaseURL: s.OllamaURL(), Logger: quiet}
			if wire == provider.OpenAI {
				cfg.EmbedModel, cfg.BaseURL, cfg.APIKey = "text-embedding-3-small", s.OpenAIURL(), "sk-x"
			}
			if err := ret.UseEmbedding(ctx, cfg); err != nil {
				t.Fatal(err)
			}
			if s.Embedded() != 0 {
				t.Errorf("turning the boost on embedded %d texts; it should wait for a question", s.Embedded())
			}
			// the first question embeds itself only, ranks by text, and
			// starts embedding the tables in the background
			_, meta, err = ret.Schema(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("semantic boost: 0 of %d tables embedded so far; the others were ranked by text alone", len(staffTables))
			if meta.Semantic != cfg.EmbedModel || !slices.Equal(meta.Warnings, []string{want}) {
				t.Errorf("first question: semantic %q, warnings %q", meta.Semantic, meta.Warnings)
			}
			ret.WaitEmbedding()
			if n := s.Embedded(); n != len(staffTables)+1 {
				t.Errorf("embedded %d texts, want every table and the question once (%d)", n, len(staffTables)+1)
			}
			_, meta, err = ret.Schema(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if first(meta) != "personnel" || meta.Tables[0].Score == 0 || meta.Semantic != cfg.EmbedModel || len(meta.Warnings) != 0 {
				t.Errorf("with the boost: first %q, semantic %q, warnings %v", first(meta), meta.Semantic, meta.Warnings)
			}
			if n := s.Embedded(); n != len(staffTables)+2 {
				t.Errorf("the second question embedded %d texts, want 1", n-len(staffTables)-1)
			}
			// fused, not replaced: a question naming a table keeps it first
			_, meta, err = ret.Schema(ctx, "rain_mm per city in the weather table")
			if err != nil || first(meta) != "weather" {
				t.Errorf("text match under fusion: first %q, %v", first(meta), err)
			}
			if n := s.Embedded(); n != len(staffTables)+3 {
				t.Errorf("the third question embedded %d texts, want 1", n-len(staffTables)-2)
			}
			// the same settings again change nothing
			if err := ret.UseEmbedding(ctx, cfg); err != nil || ret.Embedding() != cfg.EmbedModel {
				t.Errorf("again: %v, %q", err, ret.Embedding())
			}
			// off
			if err := ret.UseEmbedding(ctx, provider.Config{Provider: wire}); err != nil || ret.Embedding() != "" {
				t.Fatalf("off: %v, %q", err, ret.Embedding())
			}
			// (nothing in q matches a table's words: personnel may come
			// first of a tie, but not with a score)
			if _, meta, _ = ret.Schema(ctx, q); meta.Semantic != "" || first(meta) == "personnel" && meta.Tables[0].Score > 0 {
				t.Errorf("off, yet semantic %q first %q", meta.Semantic, first(meta))
			}
		})
	}
}

// TestSemanticBoostFallsBack: a failing embedding model leaves retrieval
// to the text index, says so in the run's meta, is not asked again for a
// while, and is used again once it answers.
func TestSemanticBoostFallsBack(t *testing.T) {
	defer retrieve.SetBoostRetry(300 * time.Millisecond)()
	ctx := context.Background()
	s := fake.Start(t, fake.Options{})
	ret := staffWorkspace(t)
	cfg := provider.Config{EmbedModel: "nomic-embed-text", BaseURL: s.OllamaURL(), Logger: slog.New(slog.DiscardHandler),
		Retry: llm.RetryPolicy{Retries: -1}}
	if err := ret.UseEmbedding(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	s.FailEmbeddings(fake.Status(500, "model runner crashed"))
	const q = "How much did each till take? (shop sales amount)"
	sch, meta, err := ret.Schema(ctx, q)
	if err != nil {
		t.Fatalf("a failing embedding model failed retrieval: %v", err)
	}
	if first(meta) != "shop_sales" || len(sch.Tables) == 0 {
		t.Errorf("text ranking: first %q", first(meta))
	}
	if meta.Semantic != "" || len(meta.Warnings) != 1 || !strings.Contains(meta.Warnings[0], "model runner crashed") ||
		!strings.Contains(meta.Warnings[0], "text alone") {
		t.Errorf("semantic %q, warnings %q", meta.Semantic, meta.Warnings)
	}
	hits := s.Hits("/api/embed")
	_, meta, err = ret.Schema(ctx, q)
	if err != nil || len(meta.Warnings) != 1 || s.Hits("/api/embed") != hits {
		t.Errorf("within the retry interval: %v, warnings %q, %d more requests", err, meta.Warnings, s.Hits("/api/embed")-hits)
	}
	s.FailEmbeddings(nil)
	time.Sleep(350 * time.Millisecond)
	_, meta, err = ret.Schema(ctx, "What is our headcount?")
	if err != nil || meta.Semantic != "nomic-embed-text" || len(meta.Warnings) != 1 || !strings.Contains(meta.Warnings[0], "0 of 15 tables embedded") {
		t.Errorf("recovered: %v, semantic %q, warnings %q", err, meta.Semantic, meta.Warnings)
	}
	ret.WaitEmbedding()
	_, meta, err = ret.Schema(ctx, "What is our headcount?")
	if err != nil || meta.Semantic != "nomic-embed-text" || len(meta.Warnings) != 0 || first(meta) != "personnel" {
		t.Errorf("tables embedded: %v, semantic %q, warnings %q, first %q", err, meta.Semantic, meta.Warnings, first(meta))
	}
	// a model the server lacks: the warning carries the pull hint
	s.Close()
	_ = ret.UseEmbedding(ctx, provider.Config{}) // drop the model's cached question vector
	srv := fake.Start(t, fake.Options{Models: []fake.Model{{Name: "qwen3:8b", Tools: true}}})
	cfg.BaseURL = srv.OllamaURL()
	if err := ret.UseEmbedding(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	_, meta, err = ret.Schema(ctx, "What is our headcount?")
	if err != nil || len(meta.Warnings) != 1 || !strings.Contains(meta.Warnings[0], "ollama pull nomic-embed-text") {
		t.Errorf("model not pulled: %v, warnings %q", err, meta.Warnings)
	}
}

// semanticIndex is l's text index with the fake embedding model's index
// beside it, synced with l's datasets; the fake server counts what it
// embedded. The index is closed when the test ends.
func semanticIndex(t *testing.T, l *indextest.Loaded) (*index.Index, *index.Semantic, *provider.Embedder, *fake.Server) {
	t.Helper()
	s := fake.Start(t, fake.Options{})
	idx, sem, emb, _, _ := embedded(t, l, provider.Config{EmbedModel: "nomic-embed-text", BaseURL: s.OllamaURL(),
		Logger: slog.New(slog.DiscardHandler)})
	return idx, sem, emb, s
}

// embedded is l's text index with cfg's embedding model's index beside
// it, every dataset of l synced (embedded of tables), failing tb on any
// error. The index is closed when tb ends.
func embedded(tb testing.TB, l *indextest.Loaded, cfg provider.Config) (idx *index.Index, sem *index.Semantic, emb *provider.Embedder, n, tables int) {
	tb.Helper()
	ctx := context.Background()
	idx, err := index.Open(l.WS.Engine.Dir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { idx.Close() })
	if emb, err = provider.OpenEmbedder(cfg); err != nil {
		tb.Fatal(err)
	}
	if sem, err = index.OpenSemantic(ctx, l.WS.Engine, emb); err != nil {
		tb.Fatal(err)
	}
	ds, err := l.WS.Datasets(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	st, err := sem.Sync(ctx, index.Workspace, index.FromDatasets(ds))
	if err != nil {
		tb.Fatalf("embed the tables with %s at %s: %v", cfg.EmbedModel, cfg.BaseURL, err)
	}
	return idx, sem, emb, st.Embedded, len(ds)
}

// TestRetrieveDefogSemantic measures the boost of the fake embedding model
// (a bag of words, weaker than the text index alone) on the defog
// questions: fused, recall@10 must stay at the text ranking's level.
func TestRetrieveDefogSemantic(t *testing.T) {
	l, testdata := loadDefog(t)
	idx, sem, emb, s := semanticIndex(t, l)
	for _, file := range []string{"questions_gen_postgres.csv", "instruct_basic_postgres.csv"} {
		qs, err := indextest.Questions(testdata, file, l.DBs)
		if err != nil {
			t.Fatal(err)
		}
		idx.SetSemantic(nil)
		text := measure(t, l, idx, qs)
		idx.SetSemantic(sem)
		fused := measure(t, l, idx, qs)
		t.Logf("%s, %d questions: text recall@5 %.3f recall@10 %.3f MRR %.3f; fused with %s: recall@5 %.3f recall@10 %.3f MRR %.3f",
			file, text.questions, text.recall5, text.recall10, text.mrr, emb.Model(), fused.recall5, fused.recall10, fused.mrr)
		// the bars: the 0.95, and on the main set the level the
		// text ranking had before it ranked tables by their group's
		// coverage too (0.989; text alone is now 0.992), less a margin
		bar := 0.95
		if file == "questions_gen_postgres.csv" {
			bar = 0.985
		}
		if fused.recall10 < bar {
			t.Errorf("%s: fused recall@10 %.3f, want ≥ %.3f (text alone %.3f)", file, fused.recall10, bar, text.recall10)
		}
	}
	if n := s.Embedded(); n == 0 {
		t.Error("nothing was embedded")
	}
}

// TestRetrieveSpiderSemantic is TestRetrieveDefogSemantic on spider-union's
// unseen schemas. The fake model is a bag of words: over 876 look-alike
// tables its neighbours are other databases' tables, and they cost recall
// against the text ranking alone (0.924 against 0.968; fused by reciprocal
// rank, as before, 0.896); the bar is what it reaches, less a margin. A
// real embedding model is measured by `make bench-embed`
// (BenchmarkRetrievalEmbed), not here.
func TestRetrieveSpiderSemantic(t *testing.T) {
	l, testdata := loadSpider(t)
	idx, sem, emb, _ := semanticIndex(t, l)
	qs, err := indextest.SpiderQuestions(testdata, l.DBs)
	if err != nil {
		t.Fatal(err)
	}
	idx.SetSemantic(nil)
	text := measure(t, l, idx, qs)
	idx.SetSemantic(sem)
	fused := measure(t, l, idx, qs)
	t.Logf("spider-union, %d questions: text recall@5 %.3f recall@10 %.3f MRR %.3f; fused with %s: recall@5 %.3f recall@10 %.3f MRR %.3f",
		text.questions, text.recall5, text.recall10, text.mrr, emb.Model(), fused.recall5, fused.recall10, fused.mrr)
	if fused.recall10 < 0.91 || text.recall10 < 0.95 {
		t.Errorf("recall@10 fused %.3f, want ≥ 0.91; text alone %.3f, want ≥ 0.95", fused.recall10, text.recall10)
	}
}
