package assemble_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/remote/remotetest"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/tools"
)

// On a connected database (Chinook in SQLite, and on a real PostgreSQL
// server, whose cast errors quote the value), the masked level keeps every
// customer's email, phone and last name away from the model: columns
// proposed by name, values read on the server.
func TestMaskedRemote(t *testing.T) {
	engines := []struct {
		name    string
		profile func(t *testing.T) (remote.Profile, string)
		ident   func(string) string // a Chinook name as the engine spells it
	}{
		{"sqlite", func(t *testing.T) (remote.Profile, string) {
			return remote.Profile{Name: "music", Kind: remote.SQLite, Path: chinookCopy(t)}, ""
		}, remotetest.Pascal},
		{"postgres", func(t *testing.T) (remote.Profile, string) {
			env := remotetest.Servers(t, "pg")
			url := fmt.Sprintf("postgres://%s@%s:%s/%s?sslmode=disable", env["LOUPE_PG_RO_USER"], env["LOUPE_PG_HOST"], env["LOUPE_PG_PORT"], env["LOUPE_PG_DATABASE"])
			p, _, err := remote.ParseURL("music", url)
			if err != nil {
				t.Fatal(err)
			}
			return p, env["LOUPE_PG_RO_PASSWORD"]
		}, func(s string) string { return s }},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			p, pw := e.profile(t)
			store := remote.NewStore(filepath.Join(t.TempDir(), "connections.json"))
			if _, err := store.Put(p); err != nil {
				t.Fatal(err)
			}
			r, _ := openRemote(t, store, p.Name, pw)
			defer r.Close()
			id := e.ident
			customer, email, last := id("customer"), id("email"), id("last_name")
			canaries := remoteCanaries(t, r, fmt.Sprintf("SELECT %s, %s, %s FROM %s", email, last, id("phone"), customer))

			var mu sync.Mutex
			step, answer := 0, ""
			srv := fake.Start(t, fake.Options{Respond: func(req fake.Request) fake.Turn {
				mu.Lock()
				defer mu.Unlock()
				step++
				call := func(sql string) fake.Turn {
					b, _ := json.Marshal(map[string]string{"sql": sql})
					return fake.Calls(fake.Call{Name: "run_sql", Args: strings.ReplaceAll(strings.ReplaceAll(string(b), `\u003c`, "<"), `\u003e`, ">")})
				}
				switch step {
				case 1:
					return call(fmt.Sprintf("SELECT %s, %s, %s, %s FROM %s ORDER BY %s LIMIT 5", id("first_name"), last, email, id("phone"), customer, id("customer_id")))
				case 2:
					return call(fmt.Sprintf("SELECT CAST(%s AS INTEGER) AS n FROM %s", last, customer))
				case 3:
					return call(fmt.Sprintf("SELECT count(*) AS n FROM %s WHERE %s = '%s'", customer, email, firstPlaceholder(req, "<email_")))
				}
				answer = "The first customer is " + firstPlaceholder(req, "<email_") + "."
				return fake.Text(answer)
			}})
			pr, err := provider.Open(provider.Config{Provider: provider.OpenAI, Model: "m", APIKey: "sk-test", BaseURL: srv.OpenAIURL()})
			if err != nil {
				t.Fatal(err)
			}
			a, err := assemble.RemoteAgent(r, results.New(results.Config{}), pr, "m", assemble.Options{MaxSteps: 6, Privacy: privacy.Masked})
			if err != nil {
				t.Fatal(err)
			}
			ctx := tools.WithChat(context.Background(), "chat_remote_"+e.name)
			out := a.Run(ctx, agent.Input{RunID: "run_r", ChatID: "chat_remote_" + e.name, Question: "Who are the customers?", Schema: r.PromptSchema()}, nil)
			if out.Status != agent.Done {
				t.Fatalf("run ended %s: %s", out.Status, out.Reason)
			}
			for _, q := range srv.Requests() {
				body := string(q.Body)
				for _, c := range canaries {
					if strings.Contains(body, c) || strings.Contains(body, jsonEscaped(c)) {
						t.Errorf("request %d carries %q", q.N, c)
					}
				}
			}
			if !strings.Contains(answer, "<email_") || strings.Contains(out.Answer, "<email_") || !strings.Contains(out.Answer, "@") {
				t.Errorf("the model answered %q; the user should read the real address, got %q", answer, out.Answer)
			}
			if e.name == "postgres" {
				// The server's cast error quotes a last name: the trace keeps
				// it, the requests above did not carry it.
				quoted := false
				for _, m := range out.Transcript {
					if m.Role == llm.Tool && strings.Contains(m.Content, "invalid input syntax") {
						for _, c := range canaries {
							quoted = quoted || strings.Contains(m.Content, `"`+c+`"`)
						}
					}
				}
				if !quoted {
					t.Error("the cast error in the trace should quote a real last name")
				}
			}
			var filtered string
			for _, m := range out.Transcript {
				if m.Role == llm.Tool && strings.Contains(m.Content, "n ") && strings.Contains(m.Content, "1 row") {
					filtered = m.Content
				}
			}
			if filtered == "" || !strings.Contains(filtered, "\n1\n") {
				t.Errorf("the filter by a placeholder should count one customer: %q", filtered)
			}
		})
	}
}

// remoteCanaries reads the private values the test must not see sent.
func remoteCanaries(t *testing.T, r *retrieve.Remote, sql string) []string {
	t.Helper()
	res, err := r.Source.Query(context.Background(), sql, remote.Defaults(query.Limits{MaxRows: 1000}))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, row := range res.Rows {
		for _, v := range row {
			if s, ok := v.(string); ok && len(s) >= 4 {
				out = append(out, s)
			}
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d canaries", len(out))
	}
	return out
}

func firstPlaceholder(req fake.Request, prefix string) string {
	for _, m := range req.Messages {
		if m.Role != llm.Tool {
			continue
		}
		if i := strings.Index(m.Content, prefix); i >= 0 {
			if j := strings.IndexByte(m.Content[i:], '>'); j > 0 {
				return m.Content[i : i+j+1]
			}
		}
	}
	return "nobody"
}

// A connection's column is proposed by its values when its name says
// nothing: one read of a few rows per table.
func TestRemoteProposesByValues(t *testing.T) {
	file := chinookCopy(t)
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE Lead (LeadId INTEGER PRIMARY KEY, Contact TEXT, Remarks TEXT)",
		"INSERT INTO Lead VALUES (1, 'ann@example.org', 'called'), (2, 'bob@example.net', 'no answer'), (3, 'cy@example.com', 'left message')",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	store := remote.NewStore(filepath.Join(t.TempDir(), "connections.json"))
	if _, err := store.Put(remote.Profile{Name: "music", Kind: remote.SQLite, Path: file}); err != nil {
		t.Fatal(err)
	}
	r, _ := openRemote(t, store, "music", "")
	defer r.Close()
	cs, err := assemble.RemotePrivate{R: r, Dir: store.CacheDir("music")}.Columns(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range cs {
		if c.Private {
			got[c.Table+"."+c.Column] = string(c.Kind)
		}
	}
	for col, kind := range map[string]string{"Lead.Contact": "email", "Customer.Email": "email", "Customer.LastName": "name", "Employee.Phone": "phone"} {
		if got[col] != kind {
			t.Errorf("%s: %q, want %q (private: %v)", col, got[col], kind, got)
		}
	}
	if _, ok := got["Lead.Remarks"]; ok {
		t.Error("Remarks holds no personal values")
	}
}
