package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/mcp"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools/tooltest"
)

// customers is a generated table with a private column (email, private by
// its name).
const customers = "id,name,email,city\n1,Ada,ada.lovelace@example.org,London\n2,Bob,bob.stone@example.org,Leeds\n3,Cy,cy.young@example.org,York\n"

// world is a workspace (orders fixture and the customers table), its
// store, a fake model and a Loupe MCP server at one privacy level, with a
// client connected in memory.
type world struct {
	ws       *workspace.Workspace
	ret      *retrieve.Retrieval
	st       *store.Store
	model    *fake.Server
	cs       *sdk.ClientSession
	srv      *mcp.Server
	calls    string // the config folder holding the call log
	mu       sync.Mutex
	progress []string
}

func newWorld(t *testing.T, level privacy.Level, turns ...fake.Turn) *world {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	ws, err := workspace.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	csv := filepath.Join(t.TempDir(), "customers.csv")
	if err := os.WriteFile(csv, []byte(customers), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{tooltest.Fixture("orders.csv"), csv} {
		if _, err := ws.Loader.Load(ctx, f, load.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	note := "One row per order line; amounts in euros."
	if err := session.SetDatasetNotes(ctx, ws, "orders", catalog.Notes{Table: &note}); err != nil {
		t.Fatal(err)
	}
	ret, err := retrieve.OpenRetrieval(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ret.Close() })
	st, err := store.OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	gate, err := assemble.NewGate(level, assemble.WorkspacePrivate{WS: ws})
	if err != nil {
		t.Fatal(err)
	}
	src, err := mcp.Workspace(ws, ret, gate, nil)
	if err != nil {
		t.Fatal(err)
	}
	fm := fake.Start(t, fake.Options{Turns: turns})
	w := &world{ws: ws, ret: ret, st: st, model: fm, calls: t.TempDir()}
	open := func() (*config.Model, error) {
		return config.OpenModel(config.Spec{Config: provider.Config{Provider: provider.Ollama, Model: "qwen3:8b", BaseURL: fm.OllamaURL()},
			Levels: &config.Flagged{Level: privacy.Open}})
	}
	srv, err := mcp.New(ctx, mcp.Config{Source: src, Gate: gate, Store: st, Model: open, Label: dir,
		Calls: mcp.CallLogIn(w.calls), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	w.srv = srv
	ct, stt := sdk.NewInMemoryTransports()
	sctx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	go func() { _ = srv.MCP().Run(sctx, stt) }()
	client := sdk.NewClient(&sdk.Implementation{Name: "go-test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			w.mu.Lock()
			w.progress = append(w.progress, r.Params.Message)
			w.mu.Unlock()
		}})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	w.cs = cs
	return w
}

// call calls tool with args and returns the result and its text.
func (w *world) call(t *testing.T, tool string, args map[string]any) (*sdk.CallToolResult, string) {
	t.Helper()
	res, err := w.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res, text(res)
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text + "\n")
		}
	}
	return b.String()
}

// The tools are listed, tables come with their notes, SQL runs through
// the guard (a DROP is a tool error the table survives), bad arguments
// are tool errors, an unknown tool a protocol error, and every call is
// in the call log.
func TestToolsOverTheGuard(t *testing.T) {
	w := newWorld(t, privacy.Open)
	ctx := context.Background()
	lt, err := w.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"list_tables", "describe_table", "sample_rows", "run_sql", "profile_data", "create_chart", "ask", "write_report"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	if _, txt := w.call(t, "list_tables", nil); !strings.Contains(txt, "orders: 40 rows") || !strings.Contains(txt, "amounts in euros") {
		t.Errorf("list_tables: %s", txt)
	}
	if _, txt := w.call(t, "list_tables", map[string]any{"query": "email city"}); !strings.Contains(txt, "1. customers") {
		t.Errorf("list_tables with a query: %s", txt)
	}
	res, txt := w.call(t, "run_sql", map[string]any{"sql": "SELECT region, count(*) AS n FROM orders GROUP BY region ORDER BY n DESC, region"})
	if res.IsError || !strings.Contains(txt, "West") {
		t.Fatalf("run_sql: %v %s", res.IsError, txt)
	}
	res, txt = w.call(t, "run_sql", map[string]any{"sql": "DROP TABLE orders"})
	if !res.IsError || !strings.Contains(txt, "refused") {
		t.Fatalf("DROP: isError %v %s", res.IsError, txt)
	}
	if ds, err := w.ws.Datasets(ctx); err != nil || len(ds) != 2 {
		t.Fatalf("after the DROP: %d datasets, %v", len(ds), err)
	}
	if res, txt := w.call(t, "run_sql", map[string]any{}); !res.IsError || !strings.Contains(txt, "sql") {
		t.Errorf("missing sql: isError %v %s", res.IsError, txt)
	}
	if res, _ := w.call(t, "list_tables", map[string]any{"k": "many"}); !res.IsError {
		t.Error("a bad k is a tool error")
	}
	if _, err := w.cs.CallTool(ctx, &sdk.CallToolParams{Name: "drop_everything"}); err == nil {
		t.Error("an unknown tool is a protocol error")
	}
	if res, txt := w.call(t, "describe_table", map[string]any{"table": "orders"}); res.IsError || !strings.Contains(txt, "region") {
		t.Errorf("describe_table: %s", txt)
	}
	if res, txt := w.call(t, "profile_data", map[string]any{"table": "orders", "columns": []string{"quantity"}}); res.IsError || !strings.Contains(txt, "quantity") {
		t.Errorf("profile_data: %s", txt)
	}
	calls, err := mcp.RecentCalls(w.calls, 50)
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]int{}
	for _, c := range calls {
		if c.Client != "go-test" {
			t.Errorf("call %+v: client", c)
		}
		status[c.Tool+":"+c.Status]++
	}
	if status["run_sql:refused"] != 1 || status["run_sql:ok"] != 1 || status["run_sql:error"] != 1 || status["list_tables:ok"] != 2 {
		t.Errorf("call log %v", status)
	}
}

// A chart comes as its spec and an SVG picture.
func TestChart(t *testing.T) {
	w := newWorld(t, privacy.Open)
	res, txt := w.call(t, "create_chart", map[string]any{"title": "Orders by region",
		"sql":  "SELECT region, count(*) AS n FROM orders GROUP BY region",
		"spec": map[string]any{"mark": "bar", "encoding": map[string]any{"x": map[string]any{"field": "region", "type": "nominal"}, "y": map[string]any{"field": "n", "type": "quantitative"}}}})
	if res.IsError || !strings.Contains(txt, `"mark"`) {
		t.Fatalf("create_chart: %s", txt)
	}
	var svg *sdk.ImageContent
	for _, c := range res.Content {
		if im, ok := c.(*sdk.ImageContent); ok {
			svg = im
		}
	}
	if svg == nil || svg.MIMEType != "image/svg+xml" || !strings.Contains(string(svg.Data), "<svg") || !strings.Contains(string(svg.Data), "West") {
		t.Fatalf("no SVG picture of the data: %+v", svg)
	}
}

// What the client is sent obeys the privacy level: open sends the emails,
// masked sends placeholders (and takes them back in SQL), schema sends no
// value; what was sent is in the outbox.
func TestPrivacyLevels(t *testing.T) {
	const q = "SELECT name, email FROM customers ORDER BY id"
	for _, tc := range []struct {
		level       privacy.Level
		shows       string
		withholds   string
		outboxHolds string
	}{
		{privacy.Open, "ada.lovelace@example.org", "", "ada.lovelace@example.org"},
		{privacy.Masked, "<email_", "ada.lovelace@example.org", "<email_"},
		{privacy.Schema, "2 columns (name VARCHAR, email VARCHAR), 3 rows", "ada.lovelace@example.org", "3 rows"},
	} {
		t.Run(string(tc.level), func(t *testing.T) {
			w := newWorld(t, tc.level)
			res, txt := w.call(t, "run_sql", map[string]any{"sql": q})
			if res.IsError || !strings.Contains(txt, tc.shows) || (tc.withholds != "" && strings.Contains(txt, tc.withholds)) {
				t.Fatalf("sent at %s: %s", tc.level, txt)
			}
			_, sample := w.call(t, "sample_rows", map[string]any{"table": "customers"})
			if tc.withholds != "" && strings.Contains(sample, tc.withholds) {
				t.Fatalf("sample_rows at %s sent %s", tc.level, sample)
			}
			loose, err := w.st.SentLoose(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var kept string
			for _, s := range loose {
				if s.Method == "MCP" && strings.HasSuffix(s.URL, "/tools/run_sql") {
					var body struct{ Content []struct{ Text string } }
					if err := json.Unmarshal(s.Body, &body); err != nil {
						t.Fatal(err)
					}
					for _, c := range body.Content {
						kept += c.Text
					}
				}
			}
			if !strings.Contains(kept, tc.outboxHolds) || (tc.withholds != "" && strings.Contains(kept, tc.withholds)) || loose[0].Level != string(tc.level) {
				t.Fatalf("outbox at %s: %s", tc.level, kept)
			}
			if tc.level != privacy.Masked {
				return
			}
			// The client's model writes a placeholder back: Loupe puts
			// the value back before the query runs.
			ph := txt[strings.Index(txt, "<email_"):]
			ph = ph[:strings.Index(ph, ">")+1]
			res, txt = w.call(t, "run_sql", map[string]any{"sql": fmt.Sprintf("SELECT name FROM customers WHERE email = '%s'", ph)})
			if res.IsError || !strings.Contains(txt, "1 row") {
				t.Fatalf("a placeholder in SQL: %s", txt)
			}
		})
	}
}

// ask runs Loupe's agent through the fake model, reporting progress, and
// returns the summary, the findings and the SQL behind each; write_report
// writes the report, which is then a resource; the table schemas are
// resources too.
func TestAskReportResources(t *testing.T) {
	sql := "SELECT region, count(*) AS orders FROM orders GROUP BY region ORDER BY orders DESC"
	args, _ := json.Marshal(map[string]any{"sql": sql, "purpose": "orders by region"})
	w := newWorld(t, privacy.Masked,
		fake.Calls(fake.Call{Name: "run_sql", Args: string(args)}),
		fake.Text("West has the most orders.\n\nFindings:\n- West leads [q1]"),
		fake.Text("# Where the orders come from\n\n## Summary\n\nWest leads.\n\n{{table:q1}}\n"),
	)
	ctx := context.Background()
	params := &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "Where do orders come from?"}}
	params.SetProgressToken("p1")
	res, err := w.cs.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	txt := text(res)
	if res.IsError || !strings.Contains(txt, "status: done") || !strings.Contains(txt, "West leads") || !strings.Contains(txt, "[q1] SQL: "+sql) {
		t.Fatalf("ask: %s", txt)
	}
	// The server sends every notification before its result, but the SDK's
	// client may hand the last one to the handler after CallTool returned.
	var got string
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		w.mu.Lock()
		got = strings.Join(w.progress, " | ")
		w.mu.Unlock()
		if strings.Contains(got, "Finished") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(got, "Running a query") || !strings.Contains(got, "Finished") {
		t.Errorf("progress: %s", got)
	}
	chat := strings.TrimSpace(strings.SplitN(strings.TrimPrefix(txt, "conversation_id: "), "\n", 2)[0])
	res, txt = w.call(t, "write_report", map[string]any{"conversation_id": chat})
	if res.IsError || !strings.Contains(txt, "# Where the orders come from") {
		t.Fatalf("write_report: %s", txt)
	}
	rr, err := w.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "loupe://reports/" + chat})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "Where the orders come from") {
		t.Fatalf("report resource: %v %+v", err, rr)
	}
	lr, err := w.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range lr.Resources {
		uris = append(uris, r.URI)
	}
	if !strings.Contains(strings.Join(uris, " "), "loupe://tables/orders") || !strings.Contains(strings.Join(uris, " "), "loupe://reports/"+chat) {
		t.Errorf("resources %v", uris)
	}
	rr, err = w.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "loupe://tables/orders"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "amounts in euros") || !strings.Contains(rr.Contents[0].Text, "| region | VARCHAR |") {
		t.Fatalf("table resource: %v %+v", err, rr)
	}
	if _, err := w.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "loupe://tables/nope"}); err == nil {
		t.Error("an unknown table is an error")
	}
	// The answer's record says it was asked through MCP's server path.
	sent, err := w.st.SentFor(ctx, strings.TrimSpace(lastMessage(t, w.st, chat)))
	if err != nil {
		t.Fatal(err)
	}
	var mcpSent int
	for _, s := range sent {
		if s.Method == "MCP" {
			mcpSent++
		}
	}
	if mcpSent != 2 { // the answer and its report
		t.Errorf("%d MCP results kept with the answer", mcpSent)
	}
}

func lastMessage(t *testing.T, st *store.Store, chat string) string {
	t.Helper()
	th, err := st.Messages(context.Background(), chat)
	if err != nil || len(th.Messages) == 0 {
		t.Fatalf("messages: %v", err)
	}
	return th.Messages[len(th.Messages)-1].ID
}

// A long query canceled by the client stops in DuckDB within a second:
// the call is logged as canceled soon after the cancel.
func TestCancelLongQuery(t *testing.T) {
	w := newWorld(t, privacy.Open)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := w.cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_sql",
			Arguments: map[string]any{"sql": "SELECT count(*) FROM range(1000000000000) t(i) WHERE i % 7 = 3"}})
		errc <- err
	}()
	time.Sleep(500 * time.Millisecond)
	canceled := time.Now()
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("a canceled call returned a result")
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		calls, _ := mcp.RecentCalls(w.calls, 1)
		if len(calls) == 1 {
			c := calls[0]
			ended := c.At.Add(time.Duration(c.Millis) * time.Millisecond)
			if c.Status != mcp.StatusCanceled || ended.Sub(canceled) > time.Second {
				t.Fatalf("call %+v ended %s after the cancel", c, ended.Sub(canceled))
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the canceled query did not stop within 5 s")
}

// Cancelling ask stops Loupe's agent at once: the call is logged as
// canceled within a second of the cancel, and the answer is stored as
// interrupted, not left answering.
func TestCancelAsk(t *testing.T) {
	w := newWorld(t, privacy.Open, fake.Turn{Content: "never said", Delay: 30 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := w.cs.CallTool(ctx, &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "Which region sells most?"}})
		errc <- err
	}()
	for w.model.Hits("/api/chat") == 0 { // the agent is waiting for the model
		time.Sleep(20 * time.Millisecond)
	}
	canceled := time.Now()
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("a canceled ask returned a result")
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		calls, _ := mcp.RecentCalls(w.calls, 1)
		if len(calls) == 1 {
			c := calls[0]
			ended := c.At.Add(time.Duration(c.Millis) * time.Millisecond)
			if c.Tool != "ask" || c.Status != mcp.StatusCanceled || ended.Sub(canceled) > time.Second {
				t.Fatalf("call %+v ended %s after the cancel", c, ended.Sub(canceled))
			}
			convs, err := w.st.Conversations(context.Background())
			if err != nil || len(convs) != 1 {
				t.Fatalf("conversations %v %v", convs, err)
			}
			th, err := w.st.Messages(context.Background(), convs[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if last := th.Messages[len(th.Messages)-1]; last.Status != store.Interrupted {
				t.Fatalf("the answer is %s", last.Status)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the canceled ask did not stop within 5 s")
}

// At the schema level ask sends no value: not the answer Loupe's agent
// wrote from its results (a local model saw them), only how it ended and
// the SQL it ran.
func TestAskAtSchemaLevel(t *testing.T) {
	sql := "SELECT region, count(*) AS orders FROM orders GROUP BY region ORDER BY orders DESC"
	args, _ := json.Marshal(map[string]any{"sql": sql})
	w := newWorld(t, privacy.Schema,
		fake.Calls(fake.Call{Name: "run_sql", Args: string(args)}),
		fake.Text("West has the most orders.\n\nFindings:\n- West leads [q1]"))
	res, txt := w.call(t, "ask", map[string]any{"question": "Where do orders come from?"})
	if res.IsError || !strings.Contains(txt, "status: done") || strings.Contains(txt, "West") || !strings.Contains(txt, "[q1] SQL: "+sql) {
		t.Fatalf("ask at schema: isError %v\n%s", res.IsError, txt)
	}
}

// At the masked level a client's list_tables query holding a placeholder
// is searched with the value put back, but the semantic boost's embedding
// model (attached to the index once an ask has used it) is told the
// placeholder, as the client was.
func TestMaskedSearchEmbedsPlaceholders(t *testing.T) {
	w := newWorld(t, privacy.Masked)
	cfg := provider.Config{Provider: provider.Ollama, BaseURL: w.model.OllamaURL(), EmbedModel: "nomic-embed-text"}
	if err := w.ret.UseEmbedding(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.ret.Search(context.Background(), "orders", 5); err != nil { // as an ask would, attaches the boost to the index
		t.Fatal(err)
	}
	_, txt := w.call(t, "run_sql", map[string]any{"sql": "SELECT email FROM customers ORDER BY id LIMIT 1"})
	i := strings.Index(txt, "<email_")
	if i < 0 {
		t.Fatalf("no placeholder in %s", txt)
	}
	ph := txt[i : i+strings.Index(txt[i:], ">")+1]
	if res, txt := w.call(t, "list_tables", map[string]any{"query": "who wrote " + ph}); res.IsError {
		t.Fatalf("list_tables: %s", txt)
	}
	var told bool
	for _, text := range w.model.EmbeddedTexts() {
		if strings.Contains(text, "@example.org") {
			t.Errorf("the embedding model was told %q", text)
		}
		told = told || text == "who wrote "+ph
	}
	if !told {
		t.Errorf("the query was not embedded with its placeholder: %q", w.model.EmbeddedTexts())
	}
}
