package index_test

import (
	"context"
	"testing"

	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/index/indextest"
)

// recall measures how many gold tables of qs are among the first k hits,
// and the mean reciprocal rank of each question's first gold table.
func recall(t testing.TB, idx *index.Index, l *indextest.Loaded, qs []indextest.Question) (r5, r10, mrr float64) {
	ctx := context.Background()
	var gold, in5, in10 int
	for _, q := range qs {
		hits, err := idx.Search(ctx, q.Text, index.Options{K: 10})
		if err != nil {
			t.Fatal(err)
		}
		rank := map[string]int{}
		for i, h := range hits {
			rank[h.Table.Name] = i + 1
		}
		first := 0
		for _, g := range q.Gold {
			gold++
			r := rank[l.Dataset(q.DB, g)]
			if r > 0 && r <= 5 {
				in5++
			}
			if r > 0 {
				in10++
				if first == 0 || r < first {
					first = r
				}
			} else if testing.Verbose() {
				t.Logf("missed %s.%s for %q (got %v)", q.DB, g, q.Text, names(hits))
			}
		}
		if first > 0 {
			mrr += 1 / float64(first)
		}
	}
	return float64(in5) / float64(gold), float64(in10) / float64(gold), mrr / float64(len(qs))
}

func names(hits []index.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Table.Name
	}
	return out
}

func TestDefogRecall(t *testing.T) {
	ctx := context.Background()
	testdata, err := indextest.Testdata()
	if err != nil {
		t.Fatal(err)
	}
	l, err := indextest.LoadDefog(ctx, testdata, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer l.WS.Close()
	ds, err := l.WS.Datasets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := indextest.Questions(testdata, "questions_gen_postgres.csv", l.DBs)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := index.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := idx.Sync(ctx, index.Workspace, index.FromDatasets(ds)); err != nil {
		t.Fatal(err)
	}
	r5, r10, mrr := recall(t, idx, l, qs)
	t.Logf("%d tables, %d questions: recall@5 %.3f recall@10 %.3f MRR %.3f", len(ds), len(qs), r5, r10, mrr)
	if r10 < 0.97 {
		t.Errorf("search alone: recall@10 %.3f, want ≥ 0.97", r10)
	}
	if _, err := idx.Sync(ctx, index.Workspace, l.Described(ds)); err != nil {
		t.Fatal(err)
	}
	r5, r10, mrr = recall(t, idx, l, qs)
	t.Logf("with descriptions: recall@5 %.3f recall@10 %.3f MRR %.3f", r5, r10, mrr)
	if r10 < 0.98 {
		t.Errorf("with column descriptions: recall@10 %.3f, want ≥ 0.98", r10)
	}
}

// TestSpiderRecall is search alone on schemas the ranking was not tuned
// on: all 166 Spider schemas in one workspace (876 empty tables, names
// and keys only), the questions of 10 of them, gold tables of the
// question's own database.
func TestSpiderRecall(t *testing.T) {
	ctx := context.Background()
	testdata, err := indextest.Testdata()
	if err != nil {
		t.Fatal(err)
	}
	l, err := indextest.LoadSpider(ctx, testdata, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer l.WS.Close()
	ds, err := l.WS.Datasets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := indextest.SpiderQuestions(testdata, l.DBs)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := index.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := idx.Sync(ctx, index.Workspace, index.FromDatasets(ds)); err != nil {
		t.Fatal(err)
	}
	r5, r10, mrr := recall(t, idx, l, qs)
	t.Logf("%d tables, %d questions: recall@5 %.3f recall@10 %.3f MRR %.3f", len(ds), len(qs), r5, r10, mrr)
	// measured 0.966 (0.880 before tables were ranked with their group)
	if r10 < 0.95 || mrr < 0.80 {
		t.Errorf("search alone: recall@10 %.3f, want ≥ 0.95; MRR %.3f, want ≥ 0.80", r10, mrr)
	}
}
