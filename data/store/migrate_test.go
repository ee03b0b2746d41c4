package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// schemaOf is the normalised SQL of every table and index in db.
func schemaOf(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	rows, err := db.Query(`SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'`)
	must(t, err)
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, q string
		must(t, rows.Scan(&name, &q))
		q = strings.ReplaceAll(q, "CREATE TABLE IF NOT EXISTS", "CREATE TABLE")
		out[name] = strings.Join(strings.Fields(q), " ")
	}
	must(t, rows.Err())
	return out
}

// The fixtures are copies of what the migrations really made at their
// version, not schemas written by hand.
func TestFixturesAreTheOlderSchemas(t *testing.T) {
	for v, name := range map[int]string{1: "v1.sql", 2: "v2.sql", 3: "v3.sql"} {
		t.Run(name, func(t *testing.T) {
			fixture := rawDB(t, fromFixture(t, name))
			var got int
			must(t, fixture.QueryRow("PRAGMA user_version").Scan(&got))
			if got != v {
				t.Fatalf("%s is version %d, want %d", name, got, v)
			}
			fresh := rawDB(t, t.TempDir()+"/fresh.db")
			must(t, migrateTo(context.Background(), fresh, v))
			want, have := schemaOf(t, fresh), schemaOf(t, fixture)
			if len(want) != len(have) {
				t.Errorf("%d objects, migrations make %d", len(have), len(want))
			}
			for k, w := range want {
				if have[k] != w {
					t.Errorf("%s differs:\nfixture:    %s\nmigrations: %s", k, have[k], w)
				}
			}
		})
	}
}

func TestMigrateFromV1(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, fromFixture(t, "v1.sql"))
	must(t, err)
	defer s.Close()
	if v, _ := s.SchemaVersion(ctx); v != Version {
		t.Fatalf("version %d after Open, want %d", v, Version)
	}
	list, err := s.Conversations(ctx)
	must(t, err)
	if len(list) != 2 || list[0].ID != "chat_00000000000000b2" || list[1].Messages != 4 || !list[1].Named {
		t.Fatalf("conversations %+v", list)
	}
	th, err := s.Thread(ctx, "chat_00000000000000a1")
	must(t, err)
	a := th.Messages[1]
	if a.ParentID != "msg_0000000000000a01" || a.Status != Complete || a.PromptTokens != 1500 || a.CompletionTokens != 120 ||
		len(a.Datasets) != 1 || a.Datasets[0] != "orders" || len(a.ToolCalls) != 2 {
		t.Fatalf("answer after migration: %+v", a)
	}
	sqlCall := a.ToolCalls[0]
	var args map[string]string
	must(t, json.Unmarshal([]byte(sqlCall.Arguments), &args))
	if sqlCall.Name != "run_sql" || !strings.HasPrefix(args["sql"], "SELECT region") || sqlCall.Result != "4 rows: West 400, East 300, North 200, South 100" {
		t.Errorf("tool call %+v", sqlCall)
	}
	if n := len(a.ToolCalls[1].Result); n != MaxToolText {
		t.Errorf("a long result kept %d characters, want the cap %d", n, MaxToolText)
	}
	failed := th.Messages[3]
	if failed.Status != Failed || failed.Error != "the model server did not answer" || failed.ParentID != "msg_0000000000000a03" {
		t.Errorf("failed answer %+v", failed)
	}
	// v1 could not resume an answer: one left generating is interrupted,
	// with its partial text and finished call, and can be retried.
	th, err = s.Thread(ctx, "chat_00000000000000b2")
	must(t, err)
	left := th.Messages[1]
	if left.Status != Interrupted || left.Content != "Counting the orders of" || len(left.ToolCalls) != 1 || left.Error == "" {
		t.Fatalf("answer left generating by v1: %+v", left)
	}
	p, err := s.Retry(ctx, left.ID)
	must(t, err)
	if p.User.Content != "How many orders last month?" || p.Assistant.Seq != 3 {
		t.Errorf("retry %+v", p)
	}
}

func TestMigrateFromV2(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, fromFixture(t, "v2.sql"))
	must(t, err)
	defer s.Close()
	th, err := s.Thread(ctx, "chat_00000000000000c3")
	must(t, err)
	if len(th.Messages) != 6 || th.Messages[1].Status != NeedsInput || th.Messages[3].Status != Complete {
		t.Fatalf("messages %+v", th.Messages)
	}
	// The answer whose process is gone is interrupted on Open.
	if m := th.Messages[5]; m.Status != Interrupted || m.Content != "Grouping by" || len(m.ToolCalls) != 1 {
		t.Errorf("left generating: %+v", m)
	}
	b, err := s.BlobOf(ctx, "msg_0000000000000c04")
	must(t, err)
	if string(b.Outcome) != `{"status":"done"}` {
		t.Errorf("blob %q", b.Outcome)
	}
	// What v3 added works on the migrated data.
	r, err := s.SaveReport(ctx, "msg_0000000000000c04", "Top customers", "# Top customers\n", []byte(`{}`))
	must(t, err)
	must(t, s.RecordExport(ctx, r.ID, "md", "/tmp/out"))
	reps, err := s.Reports(ctx, "chat_00000000000000c3")
	must(t, err)
	if len(reps) != 1 || len(reps[0].Exports) != 1 {
		t.Errorf("reports %+v", reps)
	}
	// A conversation not yet named is named by its first question.
	p, err := s.Ask(ctx, "chat_00000000000000d4", "Sales by month?")
	must(t, err)
	c, err := s.Conversation(ctx, p.User.ConversationID)
	must(t, err)
	if c.Name != "Sales by month?" {
		t.Errorf("name %q", c.Name)
	}
}

func TestANewerSchemaIsRefused(t *testing.T) {
	path := t.TempDir() + "/" + FileName
	db := rawDB(t, path)
	_, err := db.Exec(`PRAGMA user_version = 99`)
	must(t, err)
	_, err = Open(context.Background(), path)
	wantErr(t, err, ErrNewerSchema)
}

// Processes opening the same file at once (the window and `loupe ask`)
// all succeed: a new file is created and switched to WAL mode once, an old
// one is migrated once.
func TestConcurrentOpens(t *testing.T) {
	for _, tc := range []struct {
		name string
		path func(t *testing.T) string
	}{
		{"new file", func(t *testing.T) string { return filepath.Join(t.TempDir(), FileName) }},
		{"version 1 file", func(t *testing.T) string { return fromFixture(t, "v1.sql") }},
		{"version 3 file", func(t *testing.T) string { return fromFixture(t, "v3.sql") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// One round rarely races; twenty make the race near certain.
			for range 20 {
				path := tc.path(t)
				openAtOnce(t, path, 4)
				s, err := Open(context.Background(), path)
				must(t, err)
				var mode string
				must(t, s.db.QueryRow("PRAGMA journal_mode").Scan(&mode))
				if v, err := s.SchemaVersion(context.Background()); err != nil || v != Version || mode != "wal" {
					t.Fatalf("after concurrent opens: version %d (%v), journal mode %q", v, err, mode)
				}
				must(t, s.Close())
			}
		})
	}
}

// Migrating once leaves the old rows intact.
func TestConcurrentOpensMigrateOnce(t *testing.T) {
	path := fromFixture(t, "v1.sql")
	openAtOnce(t, path, 4)
	s, err := Open(context.Background(), path)
	must(t, err)
	defer s.Close()
	th, err := s.Thread(context.Background(), "chat_00000000000000a1")
	must(t, err)
	if len(th.Messages) != 4 || len(th.Messages[1].ToolCalls) != 2 {
		t.Errorf("after concurrent migrations: %d messages, %d calls", len(th.Messages), len(th.Messages[1].ToolCalls))
	}
}

// openAtOnce opens and closes path from n goroutines at once, each with its
// own connection pool as a separate process would have.
func openAtOnce(t *testing.T, path string, n int) {
	t.Helper()
	errs := make(chan error, n)
	for range n {
		go func() {
			s, err := Open(context.Background(), path)
			if err == nil {
				err = s.Close()
			}
			errs <- err
		}()
	}
	for range n {
		must(t, <-errs)
	}
}
