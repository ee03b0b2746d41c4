package retrieve_test

import (
	"context"
	"github.com/loupeapp/loupe/app/retrieve"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/remote/remotetest"
	"github.com/loupeapp/loupe/data/results"
)

// wideTables is the size of the generated PostgreSQL schema: the issue's
// 5,000 unless $LOUPE_BENCH_TABLES says otherwise.
func wideTables(t testing.TB) int {
	if v := os.Getenv("LOUPE_BENCH_TABLES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 100 {
			t.Fatalf("LOUPE_BENCH_TABLES=%q: want a number ≥ 100", v)
		}
		return n
	}
	return 5000
}

// wideBudget is the bound on discovering a 5,000-table schema,
// which here includes keeping it (catalog file and schema index).
const wideBudget = 30 * time.Second

// promptBudget bounds the whole system prompt, tools included.
const promptBudget = 4000

// A 5,000-table PostgreSQL database is discovered, kept as a catalog and
// indexed within 30 s; a question's prompt stays within 4,000 tokens and
// holds the table the question needs — found by its comments when its
// name says nothing — with the declared join paths among the tables
// shown; discovering it again re-indexes nothing.
func TestRemoteWide(t *testing.T) {
	n := wideTables(t)
	p, pw := remotetest.WideDB(t, n)
	ctx := context.Background()
	store := remote.NewStore(filepath.Join(t.TempDir(), "connections.json"))
	if _, err := store.Put(p); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, st := openRemote(t, store, p.Name, pw)
	defer r.Close()
	el := time.Since(start)
	t.Logf("%d tables and views: discover %.0f ms, catalog %.0f ms (%d KB), index %.0f ms; total %v",
		st.Tables, st.DiscoverMS, st.CatalogMS, st.CatalogBytes/1024, st.IndexMS, el)
	if el > wideBudget {
		t.Errorf("discovery, catalog and index took %v; budget %v", el, wideBudget)
	}
	if want := n + n/100 + 1; st.Tables != want || st.Indexed != want {
		t.Fatalf("%d tables, %d indexed; want %d", st.Tables, st.Indexed, want)
	}
	set, err := assemble.RemoteTools(r, results.New(results.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		question string
		want     string
		path     [4]string // a declared join path the prompt must show, if any
	}{
		{"Which subscribers are most likely to cancel next quarter?", remotetest.WideTarget, [4]string{}},
		{"compare daily fin returns with daily fin refunds", "", [4]string{"ops.fin_refund_daily", "return_id", "sales.fin_return_daily", "id"}},
	}
	for _, c := range cases {
		s, meta, err := r.Retrieve(ctx, c.question, retrieve.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		tokens := agent.PromptTokens(s, set, agent.DefaultMaxSteps)
		t.Logf("%q: %d prompt tokens (data %d), %d tables described, %d others, %.1f ms", c.question, tokens, meta.DataTokens, len(meta.Tables), meta.Others, meta.ElapsedMS)
		if tokens > promptBudget {
			t.Errorf("%q: the prompt is %d tokens; budget %d", c.question, tokens, promptBudget)
		}
		if meta.Total != st.Tables || meta.Others == 0 || len(meta.Tables) == 0 || len(meta.Tables) > 10 {
			t.Errorf("%q: meta %+v", c.question, meta)
		}
		got := described(s)
		if c.want != "" && !contains(got, c.want) {
			t.Errorf("%q: %s not among the tables described: %v", c.question, c.want, got)
		}
		if c.path[0] != "" && !hasPath(s, c.path[0], c.path[1], c.path[2], c.path[3]) {
			t.Errorf("%q: no path %v among %+v (tables %v)", c.question, c.path, s.JoinPaths, got)
		}
	}
	tool, _ := set.Get("search_schema")
	res, err := tool.Run(ctx, []byte(`{"query": "probability of cancellation", "k": 3}`))
	if err != nil || res.Failed || !strings.Contains(res.ForModel, "1. "+remotetest.WideTarget+" (2000 rows") {
		t.Errorf("search_schema by a column comment: %v %s", err, res.ForModel)
	}

	start = time.Now()
	sch, err := r.Source.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	again, err := retrieve.Catalog(ctx, t.TempDir(), p.Name, sch)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("catalog and index from scratch, without discovery: %.0f ms, index %d KB on disk", again.CatalogMS+again.IndexMS, again.IndexBytes/1024)
	if again.IndexBytes == 0 {
		t.Errorf("index size not reported: %+v", again)
	}
	r.Close()
	r2, st2 := openRemote(t, store, p.Name, pw)
	defer r2.Close()
	if st2.Indexed != 0 || st2.Removed != 0 {
		t.Errorf("an unchanged database re-indexed %d and removed %d tables", st2.Indexed, st2.Removed)
	}
	t.Logf("re-discovery of the unchanged database: discover %.0f ms, index sync %.0f ms", st2.DiscoverMS, st2.IndexMS)
}

// BenchmarkRemoteWide discovers a generated PostgreSQL schema
// ($LOUPE_BENCH_TABLES, default 5,000 tables), keeps its catalog and
// builds its schema index from scratch, and reports each part's seconds,
// the total (issue target ≤ 30 s), the sizes, and the largest system
// prompt for a few questions (target ≤ 4,000 tokens).
func BenchmarkRemoteWide(b *testing.B) {
	n := wideTables(b)
	p, pw := remotetest.WideDB(b, n)
	ctx := context.Background()
	src, err := remote.Open(ctx, p, pw)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	questions := []string{"Which subscribers are most likely to cancel next quarter?",
		"compare daily fin returns with daily fin refunds", "total revenue by region for retail stores last month",
		"average claim amount per patient visit", "how many support tickets per customer segment"}
	for b.Loop() {
		start := time.Now()
		sch, err := src.Discover(ctx)
		if err != nil {
			b.Fatal(err)
		}
		discover := time.Since(start)
		dir := b.TempDir()
		st, err := retrieve.Catalog(ctx, dir, p.Name, sch)
		if err != nil {
			b.Fatal(err)
		}
		total := time.Since(start)
		b.ReportMetric(float64(len(sch.Tables)), "tables")
		b.ReportMetric(discover.Seconds(), "discover_s")
		b.ReportMetric(st.CatalogMS/1000, "catalog_s")
		b.ReportMetric(st.IndexMS/1000, "index_s")
		b.ReportMetric(total.Seconds(), "total_s")
		b.ReportMetric(float64(st.CatalogBytes)/1e6, "catalog_MB")
		b.ReportMetric(float64(st.IndexBytes)/1e6, "index_MB")

		r, _, err := retrieve.OpenRemote(ctx, p.Name, src, dir)
		if err != nil {
			b.Fatal(err)
		}
		set, err := assemble.RemoteTools(r, results.New(results.Config{}))
		if err != nil {
			b.Fatal(err)
		}
		most, took := 0, time.Duration(0)
		for _, q := range questions {
			qs := time.Now()
			s, _, err := r.Retrieve(ctx, q, retrieve.Budget{})
			if err != nil {
				b.Fatal(err)
			}
			took += time.Since(qs)
			most = max(most, agent.PromptTokens(s, set, agent.DefaultMaxSteps))
		}
		b.ReportMetric(float64(most), "prompt_tokens")
		b.ReportMetric(float64(took.Microseconds())/1000/float64(len(questions)), "retrieve_ms")
		r.Source = nil // src is the benchmark's, closed once at the end
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
