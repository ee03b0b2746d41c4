package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/data/workspace"
)

// buildLoupe builds the command line (testdata/loupecli: cli.Main as
// main.go runs it, without the window) into dir.
func buildLoupe(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "loupe")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/loupecli")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build loupe: %v\n%s", err, out)
	}
	return bin
}

// process is a loupe command running in the background, its stdout read
// line by line.
type process struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	lines  []string
	stderr strings.Builder
	more   chan struct{}
}

func start(t *testing.T, bin string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, args...), more: make(chan struct{}, 1)}
	p.cmd.Stderr = &p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.read(out)
	return p
}

func (p *process) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		p.mu.Lock()
		p.lines = append(p.lines, sc.Text())
		p.mu.Unlock()
		select {
		case p.more <- struct{}{}:
		default:
		}
	}
}

// events returns the JSON events printed so far.
func (p *process) events() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []map[string]any
	for _, l := range p.lines {
		var ev map[string]any
		if json.Unmarshal([]byte(l), &ev) == nil {
			out = append(out, ev)
		}
	}
	return out
}

// await waits until ok holds of the printed events.
func (p *process) await(t *testing.T, what string, ok func([]map[string]any) bool) []map[string]any {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		if evs := p.events(); ok(evs) {
			return evs
		}
		select {
		case <-p.more:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no %s within a minute; printed:\n%s\nstderr: %s", what, strings.Join(p.lines, "\n"), p.stderr.String())
		}
	}
}

func count(evs []map[string]any, typ string) int {
	n := 0
	for _, e := range evs {
		if e["type"] == typ {
			n++
		}
	}
	return n
}

// printedText is the answer text the events streamed.
func printedText(evs []map[string]any) string {
	var b strings.Builder
	for _, e := range evs {
		if e["type"] == "text_delta" {
			b.WriteString(e["text"].(string))
		}
	}
	return b.String()
}

func chatOf(evs []map[string]any) string {
	for _, e := range evs {
		if e["type"] == "conversation" {
			return e["chat_id"].(string)
		}
	}
	return ""
}

// snapshot is everything stored of a conversation.
func snapshot(t *testing.T, st *store.Store, chat string) (*store.Thread, map[string]store.Blob) {
	t.Helper()
	th, err := st.Thread(context.Background(), chat)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Blobs(context.Background(), chat)
	if err != nil {
		t.Fatal(err)
	}
	return th, b
}

// Kill -9 mid-run: the store and the workspace lose nothing they had and
// hold nothing half written.
func TestCrashSafety(t *testing.T) {
	bin := buildLoupe(t, t.TempDir())
	t.Run("ask", func(t *testing.T) { killAsk(t, bin) })
	t.Run("load", func(t *testing.T) { killLoad(t, bin) })
}

const (
	slowAnswer = "North sells the most: 17 in total across its orders, ahead of South with 12, which trails by five."
	okAnswer   = "There are 3 sales.\n\nFindings:\n- 3 sales"
)

func killAsk(t *testing.T, bin string) {
	ctx := context.Background()
	ws := askWorkspace(t)
	var killed atomic.Bool
	srv := fake.Start(t, fake.Options{Respond: func(r fake.Request) fake.Turn {
		last := r.Last()
		switch {
		case last.Role == llm.Tool && !killed.Load(): // the answer being killed: slow
			return fake.Turn{Content: slowAnswer, Chunks: 40, ChunkDelay: 150 * time.Millisecond}
		case last.Role == llm.Tool:
			return fake.Text(slowAnswer)
		case agent.UserWords(last.Content) == "Which region sells most?":
			return fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql":"` + askSQL + `"}`})
		}
		return fake.Text("What is in the table: regions and amounts.")
	}})
	common := []string{"ask", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--json"}
	done, _ := askJSON(t, "--workspace", ws, "--base-url", srv.OllamaURL(), "What is in the table?")
	st, err := store.OpenDir(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	doneBefore, doneBlobs := snapshot(t, st, done)
	// Another conversation has an answer going on in a live process (this
	// one): the recovery after the crash must leave it alone.
	busy, err := st.CreateConversation(ctx, "", ws)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := st.Ask(ctx, busy.ID, "How many sales?")
	if err != nil {
		t.Fatal(err)
	}
	going, err := st.Claim(ctx, pair.Assistant.ID, "run_going")
	if err != nil {
		t.Fatal(err)
	}
	if err := going.Text(ctx, "There are"); err != nil {
		t.Fatal(err)
	}
	defer st.Close() // going writes through it

	victim := start(t, bin, append(common, "Which region sells most?")...)
	evs := victim.await(t, "text mid-answer", func(evs []map[string]any) bool {
		return count(evs, "tool_result") == 1 && count(evs, "text_delta") >= 4
	})
	evs = victim.events() // everything printed up to the kill
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatalf("kill: %v", err)
	}
	if err := victim.cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("the run was not killed mid-answer: %v", err)
	}
	killed.Store(true)
	said := strings.TrimSpace(printedText(evs))
	if said == "" || strings.HasPrefix(slowAnswer, said) && len(said) == len(slowAnswer) {
		t.Fatalf("killed with %q said: not mid-answer", said)
	}

	// Reopen: the killed answer is interrupted with all it had said and
	// its finished call; the live process's answer is left alone.
	st, err = store.OpenDir(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	th, _ := snapshot(t, st, chatOf(evs))
	if len(th.Messages) != 2 {
		t.Fatalf("%d messages after the kill", len(th.Messages))
	}
	a := th.Messages[1]
	if th.Messages[0].Content != "Which region sells most?" || a.Status != store.Interrupted || !strings.HasPrefix(a.Content, said) ||
		!strings.HasPrefix(slowAnswer, a.Content) || a.Error == "" {
		t.Fatalf("killed answer: %s %q (it had said %q), error %q", a.Status, a.Content, said, a.Error)
	}
	if len(a.ToolCalls) != 1 || a.ToolCalls[0].Name != "run_sql" || !strings.Contains(a.ToolCalls[0].Arguments, askSQL) ||
		!strings.Contains(a.ToolCalls[0].Result, "north") || a.PromptTokens == 0 {
		t.Errorf("finished tool call lost: %+v (prompt tokens %d)", a.ToolCalls, a.PromptTokens)
	}
	if after, blobs := snapshot(t, st, done); !reflect.DeepEqual(after, doneBefore) || !reflect.DeepEqual(blobs, doneBlobs) {
		t.Errorf("the finished conversation changed:\nbefore %+v\nafter  %+v", doneBefore, after)
	}
	if th, _ := snapshot(t, st, busy.ID); th.Messages[1].Status != store.Generating || th.Messages[1].Content != "There are" {
		t.Errorf("the live answer of another conversation was touched: %s %q", th.Messages[1].Status, th.Messages[1].Content)
	}
	if err := going.Finish(ctx, store.Final{Status: store.Complete, Content: okAnswer}); err != nil {
		t.Errorf("the live answer cannot finish after the recovery: %v", err)
	}

	// The interrupted answer is retried.
	code, out, errs := run(t, "", "ask", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--chat", th.ID, "--retry")
	if code != ExitOK || !strings.Contains(out, "North sells the most") {
		t.Fatalf("retry: %d %s\n%s", code, errs, out)
	}
	th, _ = snapshot(t, st, th.ID)
	if len(th.Messages) != 3 || th.Messages[1].Status != store.Interrupted || th.Messages[2].Status != store.Complete || th.Messages[2].ParentID != th.Messages[0].ID {
		t.Errorf("after the retry: %+v", th.Messages)
	}
}

// writeBig writes a CSV of n rows.
func writeBig(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, "id,region,amount,day")
	for i := range n {
		fmt.Fprintf(w, "%d,r%d,%d.%02d,2024-01-%02d\n", i, i%17, i/3, i%100, i%28+1)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// tables lists the workspace database's tables and views.
func tables(t *testing.T, ws *workspace.Workspace) []string {
	t.Helper()
	rows, err := ws.Engine.DB().Query(`SELECT table_schema || '.' || table_name FROM information_schema.tables ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func killLoad(t *testing.T, bin string) {
	ctx := context.Background()
	dir := t.TempDir()
	csv := filepath.Join(t.TempDir(), "big.csv")
	empty, err := workspace.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	baseline := tables(t, empty)
	_ = empty.Close()

	// Kill the load 1.5 s in. If it had already committed (and was, say,
	// computing statistics), its table must be whole; then try a larger
	// file until the kill lands inside the transaction, which must leave
	// nothing behind.
	var ws *workspace.Workspace
	for rows := 3_000_000; ; rows *= 2 {
		writeBig(t, csv, rows)
		p := start(t, bin, "load", "--workspace", dir, csv)
		time.Sleep(1500 * time.Millisecond)
		if err := p.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = p.cmd.Wait()
		ws, err = workspace.Open(ctx, dir)
		if err != nil {
			t.Fatalf("the workspace does not open after the kill: %v", err)
		}
		ds, err := ws.Datasets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) == 0 {
			if got := tables(t, ws); !reflect.DeepEqual(got, baseline) {
				t.Errorf("after a kill inside the load: tables %v (an empty workspace has %v)", got, baseline)
			}
			break
		}
		var n int64
		if err := ws.Engine.DB().QueryRow(`SELECT count(*) FROM big`).Scan(&n); err != nil || n != int64(rows) || ds[0].Rows != int64(rows) {
			t.Fatalf("a load killed after its commit left %d rows (catalog says %d), want all %d: %v", n, ds[0].Rows, rows, err)
		}
		_ = ws.Close()
		if rows > 30_000_000 {
			t.Fatalf("the load of %d rows always committed within 1.5 s", rows)
		}
		t.Logf("the load of %d rows had committed before the kill (its table is whole); trying a larger file", rows)
		dir = t.TempDir()
	}
	_ = ws.Close()
	// The same file loads whole afterwards.
	code, out, errs := run(t, "", "load", "--workspace", dir, csv)
	if code != ExitOK || !strings.Contains(out, `"table":"big"`) {
		t.Fatalf("load after the kill: %d %s", code, errs)
	}
	var got struct {
		Rows int64 `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Rows < 3_000_000 {
		t.Errorf("reloaded %d rows (%v)", got.Rows, err)
	}
}
