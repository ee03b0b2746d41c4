package retrieve_test

import (
	"context"
	"github.com/loupeapp/loupe/app/retrieve"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/remote/remotetest"
	"github.com/loupeapp/loupe/data/results"
)

// On a real PostgreSQL server with thousands of tables: a note set on the
// open connection is indexed at once (its disk index), so a question only
// the note answers finds the table; a column's note replaces the
// column's COMMENT in the prompt and in describe_table; and discovering
// the schema again keeps the notes without re-indexing anything.
func TestRemoteNotesPostgres(t *testing.T) {
	ctx := context.Background()
	p, pw := remotetest.WideDB(t, wideTables(t))
	store := remote.NewStore(filepath.Join(t.TempDir(), "connections.json"))
	if _, err := store.Put(p); err != nil {
		t.Fatal(err)
	}
	dir := store.CacheDir(p.Name)
	r, _ := openRemote(t, store, p.Name, pw)
	var target string
	for i := len(r.Schema.Tables) / 2; i < len(r.Schema.Tables); i++ {
		if tb := r.Schema.Tables[i]; tb.Kind == "table" && tb.QualifiedName() != remotetest.WideTarget {
			target = tb.QualifiedName()
			break
		}
	}
	const question = "carbon offsets bought for each flight route"
	if _, meta, err := r.Retrieve(ctx, question, retrieve.Budget{}); err != nil || len(meta.Tables) > 0 && meta.Tables[0].Name == target && meta.Tables[0].Score > 0 {
		t.Fatalf("%s ranks first before it has a note: %+v %v", target, meta.Tables, err)
	}
	set := func(table string, n catalog.Notes) {
		t.Helper()
		notes, _, err := remote.SetNotes(dir, p.Name, r.Schema, table, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.SetNotes(ctx, notes); err != nil {
			t.Fatal(err)
		}
	}
	set(target, catalog.Notes{Table: new("Carbon offsets bought per flight route")})
	set(remotetest.WideTarget, catalog.Notes{Columns: map[string]string{"p_leave": "churn score: share expected to leave, 0 to 1"}})

	check := func(r *retrieve.Remote) {
		t.Helper()
		s, meta, err := r.Retrieve(ctx, question, retrieve.Budget{})
		if err != nil || len(meta.Tables) == 0 || meta.Tables[0].Name != target || s.Tables[0].Description != "Carbon offsets bought per flight route" {
			t.Fatalf("the note should find %s: %+v %v", target, meta.Tables, err)
		}
		s, _, err = r.Retrieve(ctx, "Which subscribers are most likely to cancel next quarter?", retrieve.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		var shown string
		for _, tb := range s.Tables {
			if tb.Name == remotetest.WideTarget {
				for _, c := range tb.Columns {
					if c.Name == "p_leave" {
						shown = c.Description
					}
				}
			}
		}
		if shown != "churn score: share expected to leave, 0 to 1" {
			t.Errorf("the prompt's p_leave says %q", shown)
		}
		set, err := assemble.RemoteTools(r, results.New(results.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		tool, _ := set.Get("describe_table")
		res, err := tool.Run(ctx, []byte(`{"table": "`+remotetest.WideTarget+`"}`))
		if err != nil || !strings.Contains(res.ForModel, "— churn score: share expected to leave") ||
			strings.Contains(res.ForModel, "probability of cancellation") || !strings.Contains(res.ForModel, "Note: Likelihood that each subscriber cancels") {
			t.Errorf("describe_table: %v\n%s", err, res.ForModel)
		}
	}
	check(r)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r, st := openRemote(t, store, p.Name, pw) // discovered again
	defer r.Close()
	if st.Indexed != 0 {
		t.Errorf("re-discovery re-indexed %d tables: the notes were indexed when set", st.Indexed)
	}
	check(r)
}
