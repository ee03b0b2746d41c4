package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/secret"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/tools"
)

func init() {
	register(command{"ask", "ask [--workspace DIR | --connection NAME] [--chat ID [--retry]] [--provider P] [--model M] [--base-url URL] [--embed-model M] [--privacy open|masked|schema] [--json] [--report DIR] QUESTION",
		"run the agent on a question in a new conversation (its id is printed) or, with --chat, a follow-up; --json prints one event per line", runAsk})
}

func runAsk(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("ask", e)
	cfg, o := agentFlags(fs, "the run")
	asJSON := fs.Bool("json", false, "print one JSON event per line instead of a readable trace")
	reportDir := fs.String("report", "", "write the report (report.md, charts, report.html) into this folder")
	conn := fs.String("connection", "", "ask about a connected database (see loupe connect) instead of the workspace")
	chatID := fs.String("chat", "", "continue this conversation (see loupe chats); without it a new one is started")
	retry := fs.Bool("retry", false, "with --chat: answer again its last question, whose answer was interrupted or failed")
	pos, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	question := strings.TrimSpace(strings.Join(pos, " "))
	switch {
	case *retry && (*chatID == "" || question != ""):
		fmt.Fprintln(e.stderr, "loupe ask: --retry takes --chat ID and no question: it asks that conversation's last question again")
		return ExitUsage
	case question == "" && !*retry:
		fmt.Fprintln(e.stderr, `loupe ask: give a question, e.g. loupe ask --model qwen3:8b "Which region sold most in 2024?"`)
		return ExitUsage
	}
	st, err := openStore(ctx, *ws)
	if err != nil {
		return fail(e, err)
	}
	defer st.Close()
	// Every request to a model server on another machine is kept: with
	// its answer once there is one, else with no conversation.
	m, code := openModel(e, "ask", st, cfg, o)
	if m == nil {
		return code
	}
	res := results.New(results.Config{})
	var (
		target  session.Target
		private assemble.Private // the private columns, for the report's privacy gate
	)
	if *conn != "" {
		r, err := openConnection(ctx, *conn)
		if err != nil {
			return fail(e, err)
		}
		defer r.Close()
		target, private = &session.Connection{Remote: r}, assemble.RemotePrivate{R: r, Dir: r.Dir}
	} else {
		w, err := openWorkspace(ctx, *ws)
		if err != nil {
			return fail(e, err)
		}
		defer w.Close()
		ret, err := retrieve.OpenRetrieval(w)
		if err != nil {
			return fail(e, err)
		}
		defer ret.Close()
		py, closePy := session.PythonTool(ctx, w)
		defer closePy()
		target, private = &session.Workspace{WS: w, Retrieval: ret, Extra: py, Embedding: &m.Config}, assemble.WorkspacePrivate{WS: w}
	}
	label := remote.Label(*conn) // what the conversation is about
	if *conn == "" {
		if label, err = storeDir(*ws); err != nil {
			return fail(e, err)
		}
	}
	runID := store.NewID("run")
	pair, claim, created, err := startAnswer(ctx, st, *chatID, question, label, *retry, runID)
	if err != nil {
		return fail(e, err)
	}
	rec := session.NewRecorder(claim)
	rec.MergeDeltas = true
	failed := func(err error) int {
		_ = rec.Record(agent.Event{Type: agent.RunFinished, RunID: runID, Finished: &agent.Outcome{RunID: runID, Status: agent.Failed, Reason: err.Error()}})
		return fail(e, err)
	}
	ctx, err = assemble.SendFor(ctx, st, pair.User.ConversationID, pair.Assistant.ID, m.Level, m.Server())
	if err != nil {
		return failed(err)
	}
	trace := &traceSink{w: e.stdout}
	var sink agent.Sink = trace
	if *asJSON {
		sink = newJSONSink(e.stdout)
	}
	chat := pair.User.ConversationID
	out, err := session.Ask(ctx, session.AskRequest{Store: st, Pair: pair, Recorder: rec, Target: target, Results: res,
		Provider: m.Provider, Model: m.Config.Model, Options: *o, Sink: &persistSink{rec: rec, next: sink, stderr: e.stderr},
		Ready: func(agent.Input) { announce(e, chat, pair.Assistant.ID, created, *asJSON) },
		Forgot: func(err error) {
			fmt.Fprintf(e.stderr, "loupe ask: the answer stands, but its queries were not kept for follow-ups: %v\n", err)
		}})
	if err != nil {
		return failed(err)
	}
	if !*asJSON {
		printOutcome(e.stdout, out, trace.streamed(out))
		fmt.Fprintf(e.stdout, "Conversation %s — continue it with: loupe ask --chat %s QUESTION\n", chat, chat)
	}
	if *reportDir != "" && out.Status == agent.Done {
		rp, err := m.Guard(private)
		if err != nil {
			return fail(e, err)
		}
		if err := writeReport(tools.WithChat(context.WithoutCancel(ctx), chat), e, st, chat, claim.MessageID, rp, cfg.Model, *reportDir, *asJSON); err != nil {
			return fail(e, err)
		}
	}
	switch out.Status {
	case agent.Done, agent.NeedsInput:
		return ExitOK
	}
	if *asJSON {
		fmt.Fprintf(e.stderr, "loupe ask: %s: %s\n", out.Status, out.Reason)
	}
	return ExitError
}

// agentFlags adds the model and limit flags that ask and eval share;
// what names what the time limit bounds. The config starts from the
// environment (provider.FromEnv).
func agentFlags(fs *flag.FlagSet, what string) (*provider.Config, *assemble.Options) {
	cfg := provider.FromEnv(os.Getenv)
	fs.Var(providerFlag{&cfg, os.Getenv}, "provider", "ollama or openai (default $LOUPE_PROVIDER, else ollama)")
	fs.StringVar(&cfg.Model, "model", cfg.Model, "model name (default $LOUPE_MODEL)")
	fs.StringVar(&cfg.BaseURL, "base-url", cfg.BaseURL, "model server URL (default $LOUPE_BASE_URL, $OLLAMA_HOST or the provider's)")
	fs.StringVar(&cfg.EmbedModel, "embed-model", cfg.EmbedModel, "embedding model for semantic table search, e.g. nomic-embed-text (default $LOUPE_EMBED_MODEL; off when empty)")
	var o assemble.Options
	fs.Var(levelFlag{&o.Privacy}, "privacy", "what the model may see of your data: open, masked or schema (default $"+EnvPrivacy+
		", else open for a model on this machine and masked for any other)")
	fs.IntVar(&o.MaxSteps, "max-steps", 0, fmt.Sprintf("step limit (default %d)", agent.DefaultMaxSteps))
	fs.DurationVar(&o.Timeout, "timeout", 0, fmt.Sprintf("time limit for %s (default %s)", what, agent.DefaultTimeout))
	return &cfg, &o
}

// writeReport runs the report stage on the conversation chatID once its
// answer messageID is finished (a report of every question it holds),
// stores the report with that answer and exports it into dir, printing
// where the files are (or a JSON line with --json) and the report's notes.
func writeReport(ctx context.Context, e env, st *store.Store, chatID, messageID string, p llm.Provider, model, dir string, asJSON bool) error {
	if !asJSON {
		fmt.Fprintln(e.stdout, "\nWriting the report…")
	}
	rep, err := session.WriteConversationReport(ctx, session.ConversationReportRequest{Store: st, ChatID: chatID, MessageID: messageID, Provider: p, Model: model})
	if err != nil {
		return err
	}
	printNotes(e.stderr, rep)
	files, err := session.Export(ctx, st, rep, session.ExportFolder, dir)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{"type": "report", "files": files})
	}
	fmt.Fprintf(e.stdout, "Report: %s\n        %s\n", files.Markdown, files.HTML)
	return nil
}

// openConnection connects to the saved connection name, discovers its
// schema and keeps it as the connection's catalog and schema index. The
// caller closes the returned Remote.
func openConnection(ctx context.Context, name string) (*retrieve.Remote, error) {
	store, keeper, err := connections()
	if err != nil {
		return nil, err
	}
	p, err := store.Get(name)
	if err != nil {
		return nil, err
	}
	password := ""
	if p.Kind != remote.SQLite {
		pw, _, err := keeper.Get(p.Name)
		if err != nil && !errors.Is(err, secret.ErrNotFound) {
			return nil, err
		}
		password = pw
	}
	src, err := remote.Open(ctx, p, password)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", p.Name, err)
	}
	r, _, err := retrieve.OpenRemote(ctx, p.Name, src, store.CacheDir(p.Name))
	if err != nil {
		src.Close()
		return nil, err
	}
	return r, nil
}
