package retrieve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/loupeapp/loupe/app/retrieve"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/data/index/indextest"
	"github.com/loupeapp/loupe/data/workspace"
)

// TestBackgroundEmbeddingKeepsItsFailure: a background embedding that
// fails is not logged and dropped: the next question says so, ranks by
// text, and does not start another pass within the retry interval; the
// next load's pass embeds the tables in one request.
func TestBackgroundEmbeddingKeepsItsFailure(t *testing.T) {
	ctx := context.Background()
	s := fake.Start(t, fake.Options{})
	ret := staffWorkspace(t)
	cfg := provider.Config{EmbedModel: "nomic-embed-text", BaseURL: s.OllamaURL(), Logger: slog.New(slog.DiscardHandler),
		Retry: llm.RetryPolicy{Retries: -1}}
	s.FailEmbeddings(fake.Status(500, "model runner crashed"))
	ret.EmbedInBackground(cfg)
	ret.WaitEmbedding()
	if ret.Embedding() != "nomic-embed-text" || s.Hits("/api/embed") != 1 {
		t.Fatalf("boost %q after %d requests", ret.Embedding(), s.Hits("/api/embed"))
	}
	s.FailEmbeddings(nil)
	_, meta, err := ret.Schema(ctx, "What is our headcount?")
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(meta.Warnings, "\n")
	if !strings.Contains(notes, "embedding the tables in the background failed") || !strings.Contains(notes, "model runner crashed") ||
		!strings.Contains(notes, "0 of 15 tables embedded so far") || first(meta) == "personnel" && meta.Tables[0].Score > 0 {
		t.Errorf("after a failed pass: warnings %q, first %q", meta.Warnings, first(meta))
	}
	ret.WaitEmbedding()
	if n := s.Hits("/api/embed"); n != 2 {
		t.Errorf("%d requests; the question should have embedded itself only, and started no pass within the retry interval", n)
	}
	ret.EmbedInBackground(cfg) // a load
	ret.WaitEmbedding()
	if n := s.Hits("/api/embed"); n != 3 {
		t.Errorf("%d requests, want one more: 15 tables in one batch", n)
	}
	_, meta, err = ret.Schema(ctx, "What is our headcount?")
	if err != nil || len(meta.Warnings) != 0 || first(meta) != "personnel" {
		t.Errorf("after a pass: %v, warnings %q, first %q", err, meta.Warnings, first(meta))
	}
}

// TestBackgroundEmbeddingSkipsARefusedTable: a table whose text is too long
// for the embedding model (a 400 over the Ollama wire) does not keep the
// tables after it from being embedded; questions name it, and later passes
// do not send it again.
func TestBackgroundEmbeddingSkipsARefusedTable(t *testing.T) {
	ctx := context.Background()
	s := fake.Start(t, fake.Options{})
	tables := maps.Clone(staffTables)
	var wide []string
	for i := range 150 {
		wide = append(wide, fmt.Sprintf("sensor_measurement_channel_%03d", i))
	}
	tables["telemetry_wide"] = strings.Join(wide, ",") + "\n" + strings.Repeat("1,", 149) + "1\n"
	ret := workspaceOf(t, tables)
	cfg := provider.Config{EmbedModel: "nomic-embed-text", BaseURL: s.OllamaURL(), Logger: slog.New(slog.DiscardHandler),
		Retry: llm.RetryPolicy{Retries: -1}}
	s.LimitEmbedInput(2000)
	ret.EmbedInBackground(cfg)
	ret.WaitEmbedding()
	if n := s.Embedded(); n != len(staffTables) {
		t.Fatalf("%d tables embedded, want the %d that fit", n, len(staffTables))
	}
	_, meta, err := ret.Schema(ctx, "What is our headcount?")
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(meta.Warnings, "\n")
	if !strings.Contains(notes, "would not embed 1 table(s) (telemetry_wide)") || !strings.Contains(notes, "exceeds the context length") ||
		first(meta) != "personnel" {
		t.Errorf("warnings %q, first %q", meta.Warnings, first(meta))
	}
	ret.WaitEmbedding()
	hits := s.Hits("/api/embed")
	ret.EmbedInBackground(cfg) // a load elsewhere: the refused table is not sent again
	ret.WaitEmbedding()
	if n := s.Hits("/api/embed"); n != hits {
		t.Errorf("%d more requests after a load; the refused table was sent again", n-hits)
	}
}

// slowEmbedder stands between Loupe and the fake server as a slow
// embedding server that embeds one request at a time: each text takes
// perText. It counts table batches (requests of more than one text) in
// flight at once.
type slowEmbedder struct {
	perText time.Duration
	proxy   *httputil.ReverseProxy

	one      sync.Mutex
	batches  atomic.Int32 // in flight
	most     atomic.Int32 // most batches in flight at once
	embedded atomic.Int32
}

func startSlowEmbedder(t *testing.T, target string, perText time.Duration) (*slowEmbedder, string) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	se := &slowEmbedder{perText: perText, proxy: httputil.NewSingleHostReverseProxy(u)}
	srv := httptest.NewServer(se)
	t.Cleanup(srv.Close)
	return se, srv.URL
}

func (se *slowEmbedder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var in struct {
		Input json.RawMessage `json:"input"`
	}
	_ = json.Unmarshal(body, &in)
	var texts []string
	if json.Unmarshal(in.Input, &texts) != nil {
		texts = []string{""}
	}
	if len(texts) > 1 {
		n := se.batches.Add(1)
		defer se.batches.Add(-1)
		for m := se.most.Load(); n > m && !se.most.CompareAndSwap(m, n); m = se.most.Load() {
		}
	}
	se.one.Lock()
	defer se.one.Unlock()
	select {
	case <-time.After(se.perText * time.Duration(len(texts))):
	case <-r.Context().Done():
		http.Error(w, "client left", http.StatusServiceUnavailable)
		return
	}
	se.proxy.ServeHTTP(w, r)
	if len(texts) > 1 {
		se.embedded.Add(int32(len(texts)))
	}
}

// TestQuestionDoesNotWaitForEmbedding: with a slow embedding server busy
// embedding 400 tables in the background, a question waits for its own
// embedding (behind at most a batch or two), not for the tables; it says
// how many are embedded so far. Loads during the pass start no second
// job, and Close cancels the pass.
func TestQuestionDoesNotWaitForEmbedding(t *testing.T) {
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	const tables = 400
	if err := putDatasets(ctx, ws, indextest.SyntheticDatasets(tables, 1)); err != nil {
		t.Fatal(err)
	}
	ret, err := retrieve.OpenRetrieval(ws)
	if err != nil {
		t.Fatal(err)
	}
	s := fake.Start(t, fake.Options{})
	slow, base := startSlowEmbedder(t, s.OllamaURL(), 20*time.Millisecond) // 0.32 s a batch, 8 s for all
	cfg := provider.Config{EmbedModel: "nomic-embed-text", BaseURL: base, Logger: slog.New(slog.DiscardHandler)}
	if err := ret.UseEmbedding(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	ret.EmbedInBackground(cfg)
	for range 5 { // loads while the pass runs
		ret.EmbedInBackground(cfg)
	}
	time.Sleep(time.Second)
	q := indextest.SyntheticQuestions(1, 3)[0]
	start := time.Now()
	_, meta, err := ret.Schema(ctx, q)
	waited := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the question waited %v with %d of %d tables embedded (a batch takes %v)", waited.Round(time.Millisecond), slow.embedded.Load(), tables, 16*slow.perText)
	if waited > 2*time.Second {
		t.Errorf("the question waited %v for a slow embedding server", waited)
	}
	m := regexp.MustCompile(`semantic boost: (\d+) of 400 tables embedded so far`).FindStringSubmatch(strings.Join(meta.Warnings, "\n"))
	if m == nil || meta.Semantic != "nomic-embed-text" {
		t.Fatalf("semantic %q, warnings %q", meta.Semantic, meta.Warnings)
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 || n >= tables {
		t.Errorf("%d tables embedded when the question was asked, want some", n)
	}
	start = time.Now()
	if err := ret.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close waited %v for the background embedding", d)
	}
	if n := slow.embedded.Load(); n >= tables {
		t.Errorf("all %d tables embedded; Close should have cancelled the pass", n)
	}
	if slow.most.Load() != 1 {
		t.Errorf("%d table batches in flight at once, want one job at a time", slow.most.Load())
	}
}
