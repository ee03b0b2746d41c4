package retrieve_test

import (
	"context"
	"github.com/loupeapp/loupe/app/retrieve"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/index/indextest"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// quality is retrieval's score over questions with gold tables.
type quality struct {
	questions          int
	recall5, recall10  float64
	mrr, maxDataTokens float64
}

// measure runs Retrieve for every question and scores the tables it puts
// in the prompt against the gold SQL's tables.
func measure(t testing.TB, l *indextest.Loaded, idx *index.Index, qs []indextest.Question) quality {
	ctx := context.Background()
	var q quality
	var gold, in5, in10 int
	for _, question := range qs {
		_, meta, err := retrieve.Retrieve(ctx, l.WS, idx, question.Text, retrieve.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		q.maxDataTokens = max(q.maxDataTokens, float64(meta.DataTokens))
		rank := map[string]int{}
		for i, r := range meta.Tables {
			rank[r.Name] = i + 1
		}
		first := 0
		for _, g := range question.Gold {
			gold++
			r := rank[l.Dataset(question.DB, g)]
			if r == 0 {
				if testing.Verbose() {
					t.Logf("missed %s.%s for %q", question.DB, g, question.Text)
				}
				continue
			}
			in10++
			if r <= 5 {
				in5++
			}
			if first == 0 || r < first {
				first = r
			}
		}
		if first > 0 {
			q.mrr += 1 / float64(first)
		}
	}
	q.questions = len(qs)
	q.recall5, q.recall10, q.mrr = float64(in5)/float64(gold), float64(in10)/float64(gold), q.mrr/float64(len(qs))
	return q
}

func loadDefog(t testing.TB) (*indextest.Loaded, string) {
	testdata, err := indextest.Testdata()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	l, err := indextest.LoadDefog(context.Background(), testdata, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.WS.Close() })
	return l, testdata
}

// TestRetrieveDefog is the quality bar: the eleven defog-data databases in
// one workspace, sql-eval's questions, gold tables in the prompt.
func TestRetrieveDefog(t *testing.T) {
	l, testdata := loadDefog(t)
	idx, err := index.Open(l.WS.Engine.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	for _, file := range []string{"questions_gen_postgres.csv", "instruct_basic_postgres.csv"} {
		qs, err := indextest.Questions(testdata, file, l.DBs)
		if err != nil {
			t.Fatal(err)
		}
		q := measure(t, l, idx, qs)
		t.Logf("%s: %d questions, recall@5 %.3f, recall@10 %.3f, MRR %.3f, data section ≤ %.0f tokens",
			file, q.questions, q.recall5, q.recall10, q.mrr, q.maxDataTokens)
		// measured 0.992 and 0.987 (one gold table missed of 75)
		bar := 0.95
		if file == "questions_gen_postgres.csv" {
			bar = 0.98
		}
		if q.recall10 < bar {
			t.Errorf("%s: recall@10 %.3f, want ≥ %.2f", file, q.recall10, bar)
		}
		if q.maxDataTokens > 3000 {
			t.Errorf("%s: a data section of %.0f tokens, budget 3,000", file, q.maxDataTokens)
		}
	}
}

func loadSpider(t testing.TB) (*indextest.Loaded, string) {
	testdata, err := indextest.Testdata()
	if err != nil {
		t.Fatal(err)
	}
	l, err := indextest.LoadSpider(context.Background(), testdata, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.WS.Close() })
	return l, testdata
}

// TestRetrieveSpider is the bar on schemas the ranking was not tuned on:
// all 166 Spider schemas in one workspace (876 empty tables: names, types
// and keys, no rows), the questions of 10 of them, gold tables of the
// question's own database in the prompt.
func TestRetrieveSpider(t *testing.T) {
	l, testdata := loadSpider(t)
	idx, err := index.Open(l.WS.Engine.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	qs, err := indextest.SpiderQuestions(testdata, l.DBs)
	if err != nil {
		t.Fatal(err)
	}
	q := measure(t, l, idx, qs)
	t.Logf("spider-union: %d questions, recall@5 %.3f, recall@10 %.3f, MRR %.3f, data section ≤ %.0f tokens",
		q.questions, q.recall5, q.recall10, q.mrr, q.maxDataTokens)
	// measured 0.968 (0.866 before tables were ranked with their group)
	if q.recall10 < 0.95 || q.mrr < 0.80 {
		t.Errorf("recall@10 %.3f, want ≥ 0.95; MRR %.3f, want ≥ 0.80", q.recall10, q.mrr)
	}
	if q.maxDataTokens > 3000 {
		t.Errorf("a data section of %.0f tokens, budget 3,000", q.maxDataTokens)
	}
}

// TestRetrieveChinook checks the prompt's shape on a small database: the
// tables the question needs, the joins between them, the rest listed.
func TestRetrieveChinook(t *testing.T) {
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Loader.Load(ctx, chinookCopy(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	s, meta, err := retrieve.Retrieve(ctx, ws, nil, "Which genres sell the most tracks on invoices?", retrieve.Budget{Tables: 4})
	if err != nil {
		t.Fatal(err)
	}
	var described, listed []string
	for _, tb := range s.Tables {
		if len(tb.Columns) > 0 {
			described = append(described, tb.Name)
		} else {
			listed = append(listed, tb.Name)
		}
	}
	for _, want := range []string{"genre", "track", "invoice_line"} {
		if !slices.Contains(described, want) {
			t.Errorf("%s not described: %v", want, described)
		}
	}
	if len(described) != 4 || len(listed) != 7 || s.Others != 0 || meta.Listed != 7 {
		t.Errorf("described %v, listed %v, others %d", described, listed, s.Others)
	}
	var paths []string
	for _, p := range s.JoinPaths {
		paths = append(paths, p.From+"."+p.FromColumn+"="+p.To+"."+p.ToColumn)
		if !slices.Contains(described, p.From) || !slices.Contains(described, p.To) {
			t.Errorf("a join path outside the described tables: %+v", p)
		}
	}
	for _, want := range []string{"track.GenreId=genre.GenreId", "invoice_line.TrackId=track.TrackId"} {
		if !slices.Contains(paths, want) {
			t.Errorf("join path %s missing: %v", want, paths)
		}
	}
	if meta.DataTokens <= 0 || meta.PromptTokens <= meta.DataTokens || meta.JoinPaths != len(s.JoinPaths) {
		t.Errorf("meta: %+v", meta)
	}
}

// TestRetrieveBudget squeezes the data section: the other tables become a
// count, columns are cut, tables dropped, and the estimate fits.
func TestRetrieveBudget(t *testing.T) {
	l, _ := loadDefog(t)
	q := "Which authors wrote the most publications in each conference, with their organization and homepage?"
	full, fm, err := retrieve.Retrieve(context.Background(), l.WS, nil, q, retrieve.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if fm.Trimmed || fm.DataTokens > 3000 {
		t.Errorf("default budget: %+v", fm)
	}
	for _, budget := range []int{fm.DataTokens * 2 / 3, fm.DataTokens / 3, 150} {
		s, meta, err := retrieve.Retrieve(context.Background(), l.WS, nil, q, retrieve.Budget{Tokens: budget})
		if err != nil {
			t.Fatal(err)
		}
		if !meta.Trimmed || len(s.Tables) == 0 || s.Tables[0].Name != full.Tables[0].Name {
			t.Errorf("budget %d: trimmed %v, tables %d", budget, meta.Trimmed, len(s.Tables))
		}
		if meta.DataTokens > budget && len(s.Tables) > 1 {
			t.Errorf("budget %d: %d tokens with %d tables", budget, meta.DataTokens, len(s.Tables))
		}
		if s.Others+len(s.Tables) != fm.Total {
			t.Errorf("budget %d: %d described + %d others ≠ %d tables", budget, len(s.Tables), s.Others, fm.Total)
		}
	}
}

// TestRetrieveFollowsWorkspace proves the index keeps up with loads,
// refreshes and removals, across a reopen of the workspace.
func TestRetrieveFollowsWorkspace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "rainfall.csv")
	write := func(body string) {
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	top := func(q string) string {
		s, _, err := retrieve.Retrieve(ctx, ws, idx, q, retrieve.Budget{Tables: 1, ListOthers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Tables) == 0 {
			return ""
		}
		return s.Tables[0].Name + ":" + columnNames(s.Tables[0])
	}
	write("station,mm\nOslo,3\n")
	if _, err := ws.Loader.Load(ctx, file, load.Options{}); err != nil {
		t.Fatal(err)
	}
	write2 := filepath.Join(t.TempDir(), "sales.csv")
	if err := os.WriteFile(write2, []byte("region,amount\nEMEA,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Loader.Load(ctx, write2, load.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := top("rainfall per station"); got != "rainfall:station,mm" {
		t.Fatalf("after load: %q", got)
	}
	// refresh: the file gained a column
	write("station,mm,humidity\nOslo,3,80\n")
	if _, err := ws.Loader.Load(ctx, file, load.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := top("humidity by station"); got != "rainfall:station,mm,humidity" {
		t.Fatalf("after refresh: %q", got)
	}
	// reopen: the index on disk is current and used as is
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	if ws, err = workspace.Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if idx, err = index.Open(dir); err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if idx.Rebuilt() || idx.Len() != 2 {
		t.Fatalf("reopened index: rebuilt %v, %d tables", idx.Rebuilt(), idx.Len())
	}
	// removal: drop the dataset as the app does (a small CSV is a view,
	// see load.SmallText)
	for _, q := range []string{`DROP VIEW rainfall`, `DELETE FROM _loupe.datasets WHERE name = 'rainfall'`} {
		if _, err := ws.Engine.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if got := top("humidity by station"); strings.HasPrefix(got, "rainfall") {
		t.Fatalf("after removal: %q", got)
	}
	if idx.Len() != 1 {
		t.Errorf("index holds %d tables after the removal", idx.Len())
	}
}

func columnNames(tb agent.Table) string {
	var names []string
	for _, c := range tb.Columns {
		names = append(names, c.Name)
	}
	return strings.Join(names, ",")
}

// TestRetrieveNothingMatches: a question that names nothing still gets
// tables to look at, and the rest counted.
func TestRetrieveNothingMatches(t *testing.T) {
	l, _ := loadDefog(t)
	s, meta, err := retrieve.Retrieve(context.Background(), l.WS, nil, "hello there", retrieve.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	described := 0
	for _, tb := range s.Tables {
		if len(tb.Columns) > 0 {
			described++
		}
	}
	if described != 5 || s.Others != meta.Total-5 {
		t.Errorf("described %d, others %d of %d", described, s.Others, meta.Total)
	}
}
