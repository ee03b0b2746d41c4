package retrieve_test

import (
	"context"
	"database/sql"
	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/app/retrieve"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/results"
)

// crypticDB is a SQLite file whose table t_x17 says nothing of what it
// holds, among tables that say plainly what they hold.
func crypticDB(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "ops.sqlite")
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE t_x17 (k1 TEXT PRIMARY KEY, v2 INTEGER, v3 INTEGER)",
		"INSERT INTO t_x17 VALUES ('a', 1, 3), ('b', 2, 1)",
		"CREATE TABLE sales (region TEXT, amount NUMERIC, day DATE)",
		"CREATE TABLE people (name TEXT, team TEXT, started DATE)",
		"CREATE TABLE stock (sku TEXT, warehouse TEXT, units INTEGER)",
		"CREATE TABLE invoices (invoice_id INTEGER PRIMARY KEY, total NUMERIC, issued DATE)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return file
}

const (
	churnNote     = "Monthly churn of subscribers by acquisition channel"
	churnQuestion = "What was subscriber churn per acquisition channel?"
)

// A note on a connection's table is what finds it: a question worded
// like the note retrieves the table, whose note (and its columns') the
// model reads in its prompt and in describe_table; the note is indexed
// once, kept through re-discovery, and a changed note re-indexes that
// table only.
func TestRemoteRetrieveByNote(t *testing.T) {
	ctx := context.Background()
	store := remote.NewStore(filepath.Join(t.TempDir(), "cfg", "connections.json"))
	if _, err := store.Put(remote.Profile{Name: "ops", Kind: remote.SQLite, Path: crypticDB(t)}); err != nil {
		t.Fatal(err)
	}
	dir := store.CacheDir("ops")
	budget := retrieve.Budget{Tables: 2}
	first := func(r *retrieve.Remote, q string) (agent.Schema, retrieve.Meta) {
		t.Helper()
		s, meta, err := r.Retrieve(ctx, q, budget)
		if err != nil {
			t.Fatal(err)
		}
		return s, meta
	}

	r, _ := openRemote(t, store, "ops", "")
	if _, meta := first(r, churnQuestion); len(meta.Tables) > 0 && meta.Tables[0].Name == "t_x17" && meta.Tables[0].Score > 0 {
		t.Fatalf("t_x17 ranks first before it has a note: %+v", meta.Tables)
	}
	r.Close()

	c, err := remote.LoadCatalog(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := remote.SetNotes(dir, "ops", c.Schema, "t_x17", catalog.Notes{Table: new(churnNote),
		Columns: map[string]string{"v3": "3 means cancelled"}}); err != nil {
		t.Fatal(err)
	}
	if n, err := retrieve.SyncNotes(ctx, dir, "ops"); err != nil || n != 1 {
		t.Fatalf("the note should re-index t_x17 only: %d %v", n, err)
	}

	r, st := openRemote(t, store, "ops", "") // discovered again
	defer r.Close()
	if st.Indexed != 0 {
		t.Errorf("re-discovery re-indexed %d tables: the notes were indexed already", st.Indexed)
	}
	s, meta := first(r, churnQuestion)
	if len(meta.Tables) == 0 || meta.Tables[0].Name != "t_x17" {
		t.Fatalf("with the note: %+v", meta.Tables)
	}
	if s.Tables[0].Name != "t_x17" || s.Tables[0].Description != churnNote || s.Tables[0].Columns[2].Description != "3 means cancelled" {
		t.Errorf("prompt table %+v", s.Tables[0])
	}

	// The model reads the notes in its prompt and in describe_table.
	var system, described string
	srv := fake.Start(t, fake.Options{Respond: func(r fake.Request) fake.Turn {
		system = agenttest.Prompt(r)
		for _, m := range r.Messages {
			if m.Role == llm.Tool {
				described = m.Content
				return fake.Text("Churn was flat.")
			}
		}
		return fake.Calls(fake.Call{Name: "describe_table", Args: `{"table": "t_x17"}`})
	}})
	p := qwenAt(t, srv)
	a, err := assemble.RemoteAgent(r, results.New(results.Config{}), p, "qwen3:8b", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := a.Run(ctx, agent.Input{RunID: "note", Question: churnQuestion, Schema: s}, &agenttest.Recorder{})
	if out.Status != agent.Done {
		t.Fatalf("run: %s %s", out.Status, out.Reason)
	}
	if !strings.Contains(system, churnNote) || !strings.Contains(system, "— 3 means cancelled") {
		t.Errorf("system prompt lacks the notes:\n%s", system)
	}
	if !strings.Contains(described, "Note: "+churnNote) || !strings.Contains(described, "v3 INTEGER") || !strings.Contains(described, "— 3 means cancelled") {
		t.Errorf("describe_table lacks the notes:\n%s", described)
	}
	if ps := r.PromptSchema(); !hasDescription(ps, "t_x17", churnNote) {
		t.Errorf("PromptSchema lacks the note: %+v", ps.Tables)
	}

	// A changed note, set on the open connection, re-indexes its table:
	// the old wording no longer finds it, the new one does.
	c, _ = remote.LoadCatalog(dir)
	n, _, err := remote.SetNotes(dir, "ops", c.Schema, "t_x17", catalog.Notes{Table: new("Warehouse shrinkage audit findings"), Columns: map[string]string{"v3": ""}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetNotes(ctx, n); err != nil {
		t.Fatal(err)
	}
	if _, meta := first(r, churnQuestion); len(meta.Tables) > 0 && meta.Tables[0].Name == "t_x17" && meta.Tables[0].Score > 0 {
		t.Errorf("the old note still finds t_x17: %+v", meta.Tables)
	}
	if s, meta := first(r, "shrinkage audit findings"); len(meta.Tables) == 0 || meta.Tables[0].Name != "t_x17" || s.Tables[0].Columns[2].Description != "" {
		t.Errorf("the new note does not find t_x17, or the cleared column note stays: %+v %+v", meta.Tables, s.Tables)
	}
}

func hasDescription(s agent.Schema, table, text string) bool {
	for _, t := range s.Tables {
		if t.Name == table {
			return t.Description == text
		}
	}
	return false
}

// A user's note wins over the database's comment, as for datasets; the
// comment shows where there is no note; notes on tables and columns the
// database no longer has are ignored. (SQLite has no COMMENT: the
// discovered schema is given one, as PostgreSQL's COMMENT ON gives it.)
func TestRemoteNoteOverComment(t *testing.T) {
	ctx := context.Background()
	file := crypticDB(t)
	src, err := remote.Open(ctx, remote.Profile{Name: "ops", Kind: remote.SQLite, Path: file}, "")
	if err != nil {
		t.Fatal(err)
	}
	sch, err := src.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	x := sch.Table("t_x17")
	x.Comment = "legacy extract"
	x.Columns[1].Comment = "count of things"
	x.Columns[2].Comment = "status code"
	r := retrieve.NewRemote("ops", src, sch)
	defer r.Close()
	n := remote.Notes{Version: 1, Tables: map[string]remote.TableNotes{
		"t_x17":   {Note: churnNote, Columns: map[string]string{"v3": "3 means cancelled", "gone": "ignored"}},
		"dropped": {Note: "a table no longer there"},
	}}
	if err := r.SetNotes(ctx, n); err != nil {
		t.Fatal(err)
	}
	s, _, err := r.Retrieve(ctx, churnQuestion, retrieve.Budget{Tables: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := s.Tables[0]
	if got.Name != "t_x17" || got.Description != churnNote || got.Columns[1].Description != "count of things" || got.Columns[2].Description != "3 means cancelled" {
		t.Fatalf("prompt table %+v", got)
	}
	ds, _ := r.Datasets(ctx)
	if len(ds) != 5 {
		t.Fatalf("the note on a dropped table made a dataset: %d", len(ds))
	}
	set, err := assemble.RemoteTools(r, results.New(results.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := set.Get("describe_table")
	res, err := tool.Run(ctx, []byte(`{"table": "t_x17"}`))
	if err != nil || res.Failed {
		t.Fatalf("describe_table: %v %+v", err, res)
	}
	for _, want := range []string{"Note: " + churnNote, "v2 INTEGER: 0 distinct — count of things", "— 3 means cancelled"} {
		if !strings.Contains(res.ForModel, want) {
			t.Errorf("describe_table lacks %q:\n%s", want, res.ForModel)
		}
	}
	if strings.Contains(res.ForModel, "legacy extract") || strings.Contains(res.ForModel, "status code") || strings.Contains(res.ForModel, "ignored") {
		t.Errorf("describe_table shows what the notes replace:\n%s", res.ForModel)
	}
}
