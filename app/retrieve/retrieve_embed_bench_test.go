package retrieve_test

import (
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/index/indextest"
)

// BenchmarkRetrievalEmbed measures the semantic boost of a real embedding
// model on both benchmarks, spider-union and defog: recall@10, recall@5
// and MRR of the prompt's tables by text alone and fused with the model's
// ranking, in the same run. The model is the one the app would use, from
// the environment (LOUPE_EMBED_MODEL, LOUPE_PROVIDER, LOUPE_BASE_URL, as
// for `loupe search --embed-model`); `make bench-embed` serves a
// pretrained model on loopback and runs this. Without LOUPE_EMBED_MODEL
// there is nothing to measure and it is skipped.
func BenchmarkRetrievalEmbed(b *testing.B) {
	cfg := provider.FromEnv(os.Getenv)
	if cfg.EmbedModel == "" {
		b.Skip("no embedding model: set LOUPE_EMBED_MODEL (and LOUPE_BASE_URL), or run `make bench-embed`")
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	for _, set := range []string{"spider", "defog"} {
		b.Run(set, func(b *testing.B) {
			var l *indextest.Loaded
			var qs []indextest.Question
			var err error
			if set == "spider" {
				var testdata string
				l, testdata = loadSpider(b)
				qs, err = indextest.SpiderQuestions(testdata, l.DBs)
			} else {
				var testdata string
				l, testdata = loadDefog(b)
				qs, err = indextest.Questions(testdata, "questions_gen_postgres.csv", l.DBs)
			}
			if err != nil {
				b.Fatal(err)
			}
			idx, sem := realSemantic(b, l, cfg)
			for b.Loop() {
				idx.SetSemantic(nil)
				text := measure(b, l, idx, qs)
				idx.SetSemantic(sem)
				start := time.Now()
				fused := measure(b, l, idx, qs)
				b.ReportMetric(text.recall10, "text_recall@10")
				b.ReportMetric(fused.recall10, "fused_recall@10")
				b.ReportMetric(text.recall5, "text_recall@5")
				b.ReportMetric(fused.recall5, "fused_recall@5")
				b.ReportMetric(text.mrr, "text_MRR")
				b.ReportMetric(fused.mrr, "fused_MRR")
				b.ReportMetric(float64(len(qs)), "questions")
				b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(len(qs)), "fused_ms/question")
			}
		})
	}
}

// realSemantic is l's text index with cfg's embedding model beside it,
// every table of l embedded (outside the benchmark's clock).
func realSemantic(b *testing.B, l *indextest.Loaded, cfg provider.Config) (*index.Index, *index.Semantic) {
	b.Helper()
	b.StopTimer()
	defer b.StartTimer()
	idx, sem, _, n, tables := embedded(b, l, cfg)
	if n != tables {
		b.Fatalf("embedded %d of %d tables", n, tables)
	}
	return idx, sem
}
