package retrieve_test

import (
	"context"
	"database/sql"
	"errors"
	"github.com/loupeapp/loupe/app/retrieve"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, to change the copy under test

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/remote"
	_ "github.com/loupeapp/loupe/data/remote/pg"     // registers the PostgreSQL connector
	_ "github.com/loupeapp/loupe/data/remote/sqlite" // registers the SQLite connector
	"github.com/loupeapp/loupe/data/results"
)

// chinookCopy copies the Chinook SQLite file into a fresh folder, so that
// a test may change it.
func chinookCopy(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../data/remote/sqlite/testdata/Chinook_Sqlite.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "chinook.sqlite")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// openRemote opens the saved connection name and keeps its schema in its
// cache folder, as `loupe ask --connection` does.
func openRemote(t *testing.T, store *remote.Store, name, password string) (*retrieve.Remote, retrieve.CatalogStats) {
	t.Helper()
	ctx := context.Background()
	p, err := store.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	src, err := remote.Open(ctx, p, password)
	if err != nil {
		t.Fatal(err)
	}
	r, st, err := retrieve.OpenRemote(ctx, name, src, store.CacheDir(name))
	if err != nil {
		src.Close()
		t.Fatal(err)
	}
	return r, st
}

func described(s agent.Schema) []string {
	var out []string
	for _, t := range s.Tables {
		if len(t.Columns) > 0 {
			out = append(out, t.Name)
		}
	}
	return out
}

func hasPath(s agent.Schema, from, fromCol, to, toCol string) bool {
	for _, p := range s.JoinPaths {
		if p.From == from && p.FromColumn == fromCol && p.To == to && p.ToColumn == toCol && p.Declared {
			return true
		}
	}
	return false
}

// A connection's schema is kept as its catalog and index when it is
// opened, brought up to date when it is discovered again (new tables
// indexed, dropped ones removed, unchanged ones left), searched by
// search_schema and retrieval, and removed with the connection.
func TestRemoteCatalogLifecycle(t *testing.T) {
	ctx := context.Background()
	file := chinookCopy(t)
	store := remote.NewStore(filepath.Join(t.TempDir(), "cfg", "connections.json"))
	if _, err := store.Put(remote.Profile{Name: "music", Kind: remote.SQLite, Path: file}); err != nil {
		t.Fatal(err)
	}
	dir := store.CacheDir("music")

	r, st := openRemote(t, store, "music", "")
	if st.Tables != 11 || st.Indexed != 11 || st.Removed != 0 || st.CatalogBytes == 0 {
		t.Fatalf("first discovery: %+v", st)
	}
	set, err := assemble.RemoteTools(r, results.New(results.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	tool, ok := set.Get("search_schema")
	if !ok {
		t.Fatalf("no search_schema among %v", set.Names())
	}
	res, err := tool.Run(ctx, []byte(`{"query": "music genres"}`))
	if err != nil || res.Failed || !strings.Contains(res.ForModel, "1. Genre") {
		t.Fatalf("search_schema: %v %+v", err, res)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	first, err := remote.LoadCatalog(dir)
	if err != nil || len(first.Schema.Tables) != 11 || first.Connection != "music" || time.Since(first.DiscoveredAt) > time.Minute {
		t.Fatalf("catalog: %+v %v", first, err)
	}

	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE Refund (RefundId INTEGER PRIMARY KEY, InvoiceId INTEGER NOT NULL REFERENCES Invoice (InvoiceId), Amount NUMERIC(10,2), Reason TEXT)",
		"DROP TABLE PlaylistTrack",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	r, st = openRemote(t, store, "music", "")
	defer r.Close()
	if st.Tables != 11 || st.Indexed != 1 || st.Removed != 1 {
		t.Fatalf("re-discovery should index the new table and remove the dropped one only: %+v", st)
	}
	again, err := remote.LoadCatalog(dir)
	if err != nil || again.Schema.Table("Refund") == nil || again.Schema.Table("PlaylistTrack") != nil || !again.DiscoveredAt.After(first.DiscoveredAt) {
		t.Fatalf("catalog after re-discovery: %v %v", again, err)
	}
	s, meta, err := r.Retrieve(ctx, "refund amounts per invoice", retrieve.Budget{Tables: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := described(s); len(got) < 2 || got[0] != "Refund" || !hasPath(s, "Refund", "InvoiceId", "Invoice", "InvoiceId") {
		t.Fatalf("retrieved %v with paths %+v (meta %+v)", got, s.JoinPaths, meta)
	}
	if s.Dialect != "SQLite" || !strings.Contains(s.Where, "connection music") || meta.Total != 11 || meta.PromptTokens == 0 {
		t.Fatalf("header %q %q, meta %+v", s.Dialect, s.Where, meta)
	}
	if res, err := tool.Run(ctx, []byte(`{"query": "playlist track"}`)); err == nil {
		t.Fatalf("the closed Remote's search_schema should fail, not search stale tables: %s", res.ForModel)
	}

	if err := store.Remove("music"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the catalog and index outlive the connection: %v", err)
	}
}

// Retrieval over the connection works without a kept index too
// (NewRemote). A question names the things it is about, never the table
// that joins them: the declared keys bring it in (writes, whose columns
// a and p are named after nothing), with the paths to both.
func TestRemoteRetrieveBridges(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "papers.sqlite")
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE author (aid INTEGER PRIMARY KEY, name TEXT, homepage TEXT)",
		"CREATE TABLE paper (pid INTEGER PRIMARY KEY, title TEXT, year INTEGER)",
		"CREATE TABLE writes (a INTEGER REFERENCES author (aid), p INTEGER REFERENCES paper (pid), PRIMARY KEY (a, p))",
		"CREATE TABLE venue (vid INTEGER PRIMARY KEY, label TEXT)",
		"CREATE TABLE keyword (kid INTEGER PRIMARY KEY, word TEXT)",
		"CREATE TABLE city (cid INTEGER PRIMARY KEY, label TEXT, country TEXT)",
		"CREATE TABLE grant_award (gid INTEGER PRIMARY KEY, funder TEXT, amount NUMERIC)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	src, err := remote.Open(ctx, remote.Profile{Name: "papers", Kind: remote.SQLite, Path: file}, "")
	if err != nil {
		t.Fatal(err)
	}
	sch, err := src.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := retrieve.NewRemote("papers", src, sch)
	defer r.Close()
	s, meta, err := r.Retrieve(ctx, "how many papers has each author published", retrieve.Budget{Tables: 3})
	if err != nil {
		t.Fatal(err)
	}
	got := described(s)
	if len(got) != 3 || meta.Bridges != 1 || got[2] != "writes" ||
		!hasPath(s, "writes", "a", "author", "aid") || !hasPath(s, "writes", "p", "paper", "pid") {
		t.Fatalf("described %v, paths %+v, meta %+v", got, s.JoinPaths, meta)
	}
	if s.Others != 0 || len(s.Tables) != 7 {
		t.Fatalf("the 4 other tables should be listed one line each: %d tables, %d others", len(s.Tables), s.Others)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
