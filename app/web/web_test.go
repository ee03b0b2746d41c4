package web_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/app/web"
	"github.com/loupeapp/loupe/tools/tooltest"
)

// sse is one Server-Sent Event as received.
type sse struct {
	name string
	data json.RawMessage
}

// bridge is web mode end to end: an App over a temporary workspace and a
// fake model, served by the real handler on a loopback port.
type bridge struct {
	url    string
	token  string
	events chan sse
	srv    *fake.Server
}

func newBridge(t *testing.T, turns ...fake.Turn) *bridge {
	t.Helper()
	srv := fake.New(t, turns...)
	hub := web.NewHub()
	a := app.New(app.Options{WorkspaceDir: t.TempDir(), ConfigDir: t.TempDir(), Keychain: app.NewMemoryKeychain(),
		Dialogs: app.SaveInto{Dir: t.TempDir()}, Emit: hub.Publish, Getenv: func(string) string { return "" }})
	assets := fstest.MapFS{
		"index.html":    {Data: []byte("<!doctype html><title>Loupe</title>")},
		"assets/app.js": {Data: []byte("console.log('loupe')")},
	}
	token, err := web.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	h, err := web.Handler(a, hub, assets, web.Options{Token: token, AllowOrigins: []string{"http://localhost:5173"}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		a.Shutdown(context.Background())
	})
	b := &bridge{url: ts.URL, token: token, events: make(chan sse, 1024), srv: srv}
	b.subscribe(t)
	b.call(t, "SaveSettings", []any{map[string]any{"provider": "ollama", "model": "qwen3:8b", "ollamaURL": srv.OllamaURL(),
		"openaiBaseURL": "https://api.openai.com/v1", "maxSteps": 8, "timeoutSeconds": 60, "theme": "dark"}}, nil)
	return b
}

// subscribe opens GET /api/events and feeds b.events until the test ends.
func (b *bridge) subscribe(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.url+"/api/events", nil)
	req.Header.Set(web.TokenHeader, b.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("events content type %q", ct)
	}
	opened := make(chan struct{})
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		var ev sse
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == ": connected":
				close(opened)
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = json.RawMessage(strings.TrimPrefix(line, "data: "))
			case line == "" && ev.name != "":
				b.events <- ev
				ev = sse{}
			}
		}
	}()
	select {
	case <-opened:
	case <-time.After(5 * time.Second):
		t.Fatal("the event stream did not open")
	}
}

// post calls method with args and the token and returns the status and
// body; header adds to or replaces the request's headers.
func (b *bridge) post(t *testing.T, method string, args any, header http.Header) (int, []byte) {
	t.Helper()
	h := http.Header{web.TokenHeader: {b.token}}
	for k, v := range header {
		h[k] = v
	}
	return b.raw(t, method, args, h)
}

// raw calls method with exactly the headers given.
func (b *bridge) raw(t *testing.T, method string, args any, header http.Header) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(args)
	req, _ := http.NewRequest(http.MethodPost, b.url+"/api/"+method, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, out
}

// call calls method and decodes its result into out, failing on an error.
func (b *bridge) call(t *testing.T, method string, args []any, out any) {
	t.Helper()
	status, body := b.post(t, method, args, nil)
	if status != http.StatusOK {
		t.Fatalf("%s: %d %s", method, status, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("%s: decode %s: %v", method, body, err)
		}
	}
}

// fails calls method expecting an {code,message,hint} error.
func (b *bridge) fails(t *testing.T, method string, args any, status int, code string) {
	t.Helper()
	got, body := b.post(t, method, args, nil)
	var e struct{ Code, Message, Hint string }
	if err := json.Unmarshal(body, &e); err != nil || got != status || e.Code != code || e.Message == "" {
		t.Errorf("%s(%v): %d %s, want %d with code %s", method, args, got, body, status, code)
	}
}

func TestBridgeEndToEnd(t *testing.T) {
	const q = "SELECT region, count(*) AS orders FROM orders GROUP BY region ORDER BY orders DESC"
	b := newBridge(t,
		fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql":"` + q + `"}`}),
		fake.Turn{Content: "West leads.\n\nFindings:\n- West has the most orders [q1]", Chunks: 10})

	var reps []struct {
		File     string
		Datasets []struct{ Name string }
		Error    *struct{ Code string }
	}
	b.call(t, "OpenFiles", []any{[]string{tooltest.Fixture("orders.csv"), "/nonexistent/x.csv"}}, &reps)
	if len(reps) != 2 || reps[0].Datasets[0].Name != "orders" || reps[1].Error == nil || reps[1].Error.Code != "file" {
		t.Fatalf("open files: %+v", reps)
	}
	var qr struct {
		Ref     string
		Rows    int
		Columns []struct{ Name string }
		Page    struct{ Rows [][]any }
	}
	b.call(t, "RunSQL", []any{q}, &qr)
	if qr.Rows != 4 || qr.Columns[0].Name != "region" || len(qr.Page.Rows) != 4 {
		t.Fatalf("runSQL %+v", qr)
	}
	var page struct {
		Offset int
		Rows   [][]any
	}
	b.call(t, "Page", []any{qr.Ref, 2, 10}, &page)
	if page.Offset != 2 || len(page.Rows) != 2 {
		t.Errorf("page %+v", page)
	}
	var settings map[string]any
	b.call(t, "GetSettings", []any{}, &settings)
	if settings["theme"] != "dark" || settings["hasAPIKey"] != false {
		t.Errorf("settings %v", settings)
	}

	b.fails(t, "RunSQL", []any{"DROP TABLE orders"}, http.StatusBadRequest, "refused")
	b.fails(t, "RunSQL", []any{"SELECT * FROM ordrs"}, http.StatusBadRequest, "sql")
	b.fails(t, "Page", []any{"r_gone", 0, 10}, http.StatusNotFound, "not_found")
	b.fails(t, "Nope", []any{}, http.StatusNotFound, "not_found")
	b.fails(t, "Page", []any{qr.Ref}, http.StatusBadRequest, "invalid")
	b.fails(t, "Page", []any{qr.Ref, "zero", 10}, http.StatusBadRequest, "invalid")
	b.fails(t, "Page", map[string]any{"ref": qr.Ref}, http.StatusBadRequest, "invalid")

	var chat struct{ ID string }
	b.call(t, "NewChat", []any{}, &chat)
	var ask struct{ RunID string }
	b.call(t, "Ask", []any{chat.ID, "Which region has most orders?"}, &ask)
	b.fails(t, "Ask", []any{chat.ID, "again"}, http.StatusConflict, "busy")

	// The run streams over the event stream until run_finished.
	var types []string
	deadline := time.After(20 * time.Second)
	seen := map[string]bool{}
	for done := false; !done; {
		select {
		case ev := <-b.events:
			seen[ev.name] = true
			if ev.name != app.EventRunEvents {
				continue
			}
			var batch struct {
				RunID  string `json:"runId"`
				ChatID string `json:"chatId"`
				Events []struct {
					Type     string          `json:"type"`
					RunID    string          `json:"run_id"`
					Finished json.RawMessage `json:"finished"`
				}
			}
			if err := json.Unmarshal(ev.data, &batch); err != nil {
				t.Fatal(err)
			}
			if batch.RunID != ask.RunID || batch.ChatID != chat.ID {
				t.Fatalf("batch of %s/%s", batch.RunID, batch.ChatID)
			}
			for _, e := range batch.Events {
				types = append(types, e.Type)
				done = done || e.Type == "run_finished"
			}
		case <-deadline:
			t.Fatalf("no run_finished; events so far %v", types)
		}
	}
	for _, want := range []string{"run_started", "tool_call", "tool_result", "text_delta", "run_finished"} {
		if !slices.Contains(types, want) {
			t.Errorf("stream lacks %s: %v", want, types)
		}
	}
	for _, want := range []string{app.EventLoadProgress, app.EventDatasetsChanged} {
		if !seen[want] {
			t.Errorf("no %s event over the stream", want)
		}
	}
	var got struct {
		Turns []struct {
			RunID   string `json:"runId"`
			Outcome struct{ Status string }
		}
	}
	b.call(t, "GetChat", []any{chat.ID}, &got)
	if len(got.Turns) != 1 || got.Turns[0].Outcome.Status != "done" {
		t.Errorf("chat %+v", got)
	}
	// Web mode has no native dialogs: choosing files gives none.
	var files []string
	b.call(t, "ChooseFiles", []any{}, &files)
	if files == nil || len(files) != 0 {
		t.Errorf("chooseFiles %v", files)
	}
}

func TestBridgeOnlyForLoopback(t *testing.T) {
	b := newBridge(t)
	req, _ := http.NewRequest(http.MethodPost, b.url+"/api/ListChats", strings.NewReader("[]"))
	req.Header.Set(web.TokenHeader, b.token)
	req.Host = "rebound.example:80"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a request for another host: %d", res.StatusCode)
	}
	if _, err := web.Listen("0.0.0.0:0"); err == nil {
		t.Error("listening on all interfaces must be refused")
	}
	ln, err := web.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

func TestBridgeServesTheFrontendAndListsMethods(t *testing.T) {
	b := newBridge(t)
	for path, want := range map[string]string{
		"/":              "<title>Loupe</title>",
		"/chat/42":       "<title>Loupe</title>", // client-side route
		"/assets/app.js": "console.log",
	} {
		res, err := http.Get(b.url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d %.60s", path, res.StatusCode, body)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, b.url+"/api/", nil)
	req.Header.Set(web.TokenHeader, b.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Methods []string }
	_ = json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	for _, m := range []string{"Ask", "Cancel", "RunSQL", "Page", "OpenFiles", "WriteReport", "ExportReport", "Status", "PullModel"} {
		if !slices.Contains(list.Methods, m) {
			t.Errorf("method %s missing from %v", m, list.Methods)
		}
	}
	for _, m := range []string{"Startup", "Shutdown"} {
		if slices.Contains(list.Methods, m) {
			t.Errorf("lifecycle hook %s is callable", m)
		}
	}
}
