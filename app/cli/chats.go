package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
)

func init() {
	register(command{"chats", "chats [--workspace DIR] [--json]", "list the conversations, most recent first", runChats})
	register(command{"chat", "chat show [--workspace DIR] [--json] [--sent] ID", "show a conversation: questions, answers, tool calls; --sent: what each answer sent to its model server", runChat})
	register(command{"export", "export [--workspace DIR] --chat ID [--turns 1,3] [--format md|html|pdf|xlsx] --out DIR", "export the report of a conversation (or of the questions --turns picks; written first if none covers them), and list what it removed", runExport})
}

// storeDir is the folder holding the conversations: the workspace folder.
func storeDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	return workspace.DefaultDir()
}

// openStore opens the conversations of the workspace folder dir.
func openStore(ctx context.Context, dir string) (*store.Store, error) {
	d, err := storeDir(dir)
	if err != nil {
		return nil, err
	}
	return store.OpenDir(ctx, d)
}

// chatError says what a store error means on the command line.
func chatError(err error, chatID string) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("loupe: no conversation %q here (see loupe chats; --workspace picks another folder)", chatID)
	case errors.Is(err, store.ErrBusy):
		return fmt.Errorf("loupe: conversation %s is still answering a question (in the window or another loupe ask); wait for it", chatID)
	}
	return err
}

func runChats(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("chats", e)
	asJSON := fs.Bool("json", false, "print one JSON object per conversation")
	if _, err := parse(fs, args); err != nil {
		return ExitUsage
	}
	st, err := openStore(ctx, *ws)
	if err != nil {
		return fail(e, err)
	}
	defer st.Close()
	list, err := st.Conversations(ctx)
	if err != nil {
		return fail(e, err)
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		for _, c := range list {
			if err := enc.Encode(c); err != nil {
				return fail(e, err)
			}
		}
		return ExitOK
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, `No conversations yet. Start one with: loupe ask "a question about your data"`)
		return ExitOK
	}
	fmt.Fprintf(e.stdout, "%-22s  %-16s  %8s  %s\n", "ID", "UPDATED", "MESSAGES", "NAME")
	for _, c := range list {
		fmt.Fprintf(e.stdout, "%-22s  %-16s  %8d  %s\n", c.ID, c.Updated.Local().Format("2006-01-02 15:04"), c.Messages, oneLine(c.Name, 80))
	}
	return ExitOK
}

func runChat(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("chat", e)
	asJSON := fs.Bool("json", false, "print the conversation as one JSON object")
	sent := fs.Bool("sent", false, "print, per answer, the privacy level in force and each request sent to the model server, body and all")
	pos, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) != 2 || pos[0] != "show" {
		fmt.Fprintln(e.stderr, "loupe chat: use loupe chat show ID (see loupe chats for the ids)")
		return ExitUsage
	}
	st, err := openStore(ctx, *ws)
	if err != nil {
		return fail(e, err)
	}
	defer st.Close()
	th, err := st.Thread(ctx, pos[1])
	if err != nil {
		return fail(e, chatError(err, pos[1]))
	}
	if *sent {
		return showSent(ctx, e, st, th, *asJSON)
	}
	reps, err := st.Reports(ctx, th.ID)
	if err != nil {
		return fail(e, err)
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		if reps == nil {
			reps = []store.Report{}
		}
		if err := enc.Encode(struct {
			*store.Thread
			Reports []store.Report `json:"reports"`
		}{th, reps}); err != nil {
			return fail(e, err)
		}
		return ExitOK
	}
	printThread(e.stdout, th, reps)
	return ExitOK
}

// printThread writes a conversation readably.
func printThread(w io.Writer, th *store.Thread, reps []store.Report) {
	fmt.Fprintf(w, "%s  (%s, %d messages, updated %s)\n", th.Name, th.ID, len(th.Messages), th.Updated.Local().Format("2006-01-02 15:04"))
	for _, m := range th.Messages {
		when := m.Created.Local().Format("15:04:05")
		if m.Role == store.User {
			fmt.Fprintf(w, "\n▸ You  %s\n%s\n", when, indent(m.Content))
			continue
		}
		fmt.Fprintf(w, "\n▸ Loupe  %s  [%s]\n", when, m.Status)
		for _, c := range m.ToolCalls {
			fmt.Fprintf(w, "  → %s%s\n", c.Name, callDetail(json.RawMessage(c.Arguments)))
			if !c.Skipped {
				ref := ""
				if c.Ref != "" {
					ref = "[" + c.Ref + "] "
				}
				fmt.Fprintf(w, "    %s%s\n", ref, oneLine(c.Result, 160))
			}
		}
		if strings.TrimSpace(m.Content) != "" {
			fmt.Fprintln(w, indent(m.Content))
		}
		if m.Error != "" && m.Status != store.Complete {
			fmt.Fprintf(w, "  (%s)\n", m.Error)
		}
		if m.Status == store.Interrupted || m.Status == store.Failed {
			fmt.Fprintf(w, "  Retry with: loupe ask --chat %s --retry\n", th.ID)
		}
	}
	for _, r := range reps {
		fmt.Fprintf(w, "\nReport %q (%s), %d export(s)\n", r.Title, r.Created.Local().Format("2006-01-02 15:04"), len(r.Exports))
	}
}

func runExport(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("export", e)
	cfg, o := agentFlags(fs, "writing the report")
	chatID := fs.String("chat", "", "the conversation (see loupe chats)")
	format := fs.String("format", "md", "md (a folder: report.md, charts, report.html), html (report.html alone), pdf (report.pdf: printable pages, charts as vectors) or xlsx (report.xlsx: the text and one sheet per table)")
	out := fs.String("out", "", "the folder to write into")
	turnList := fs.String("turns", "", `the questions the report covers, by number as "loupe chat show" lists them ("1,3", "2-4"; default: every answered question)`)
	if _, err := parse(fs, args); err != nil {
		return ExitUsage
	}
	if *chatID == "" || *out == "" || !slices.Contains(exportFormats, *format) {
		fmt.Fprintln(e.stderr, "loupe export: give --chat ID and --out DIR, and --format md, html, pdf or xlsx")
		return ExitUsage
	}
	var turns []int
	if *turnList != "" {
		var err error
		if turns, err = session.ParseTurns(*turnList); err != nil {
			fmt.Fprintln(e.stderr, "loupe export: --turns:", session.AsError(err).Message)
			return ExitUsage
		}
	}
	st, err := openStore(ctx, *ws)
	if err != nil {
		return fail(e, err)
	}
	defer st.Close()
	rep, why, err := storedReport(ctx, st, *chatID, turns)
	if err != nil {
		return fail(e, chatError(err, *chatID))
	}
	if rep == nil {
		fmt.Fprintln(e.stderr, why)
		m, code := openModel(e, "export", st, cfg, o)
		if m == nil {
			return code
		}
		gp, release, err := exportGuard(ctx, st, *ws, *chatID, m)
		if err != nil {
			return fail(e, err)
		}
		defer release()
		if rep, err = writeStoredReport(tools.WithChat(ctx, *chatID), st, *chatID, turns, gp, m.Config.Model, m.Level); err != nil {
			return fail(e, err)
		}
	}
	path, err := exportAs(ctx, st, rep, *format, *out)
	if err != nil {
		return fail(e, err)
	}
	printNotes(e.stderr, rep)
	fmt.Fprintln(e.stdout, path)
	return ExitOK
}

// storedReport is the conversation's newest report when it covers the
// questions turns picks (every answered one when empty), or nil and why
// one is to be written.
func storedReport(ctx context.Context, st *store.Store, chatID string, turns []int) (*session.StoredReport, string, error) {
	latest, err := session.LatestReport(ctx, st, chatID)
	if err != nil {
		return nil, "", err
	}
	if latest == nil {
		return nil, "The conversation has no report yet; writing one…", nil
	}
	c, err := session.Cover(ctx, st, chatID, turns)
	if err != nil {
		return nil, "", err
	}
	reps, err := st.Reports(ctx, chatID)
	if err != nil {
		return nil, "", err
	}
	for _, r := range reps { // newest first
		s, err := session.DecodeReport(r)
		if err != nil {
			return nil, "", err
		}
		if c.Covers(s, r.MessageID) {
			return s, "", nil
		}
	}
	return nil, fmt.Sprintf("No report of the conversation covers questions %s; writing one…", joinInts(c.Turns())), nil
}

// writeStoredReport writes a report of the questions turns picks (every
// answered one when empty) and stores it with the last of their answers.
func writeStoredReport(ctx context.Context, st *store.Store, chatID string, turns []int, p llm.Provider, model string, level privacy.Level) (*session.StoredReport, error) {
	c, err := session.Cover(ctx, st, chatID, turns)
	if err != nil {
		return nil, err
	}
	last := c.Answers[len(c.Answers)-1].ID
	ctx = provider.WithOutbox(ctx, assemble.Outbox{Store: st, ConversationID: chatID, MessageID: last, Level: level})
	return session.WriteConversationReport(ctx, session.ConversationReportRequest{Store: st, ChatID: chatID, Turns: turns,
		MessageID: last, Provider: p, Model: model, Level: level})
}

// printNotes lists on w what the report stage removed, placed or left
// out (the report's own notes), so that nothing is dropped silently.
func printNotes(w io.Writer, rep *session.StoredReport) {
	if len(rep.Report.Notices) == 0 {
		return
	}
	fmt.Fprintln(w, "Notes on this report:")
	for _, n := range rep.Report.Notices {
		fmt.Fprintf(w, "  - %s\n", n.Listed())
	}
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// exportAs exports rep into dir and records the export: the whole folder
// (md), or report.html alone (html). It returns the path written: the
// folder's report.md, or the page.
func exportAs(ctx context.Context, st *store.Store, rep *session.StoredReport, format, dir string) (string, error) {
	if format == session.ExportFolder {
		files, err := session.Export(ctx, st, rep, format, dir)
		return files.Markdown, err
	}
	path, err := filepath.Abs(filepath.Join(dir, "report."+format))
	if err != nil {
		return "", err
	}
	files, err := session.Export(ctx, st, rep, format, path)
	switch format {
	case session.ExportPDF:
		return files.PDF, err
	case session.ExportXLSX:
		return files.XLSX, err
	}
	return files.HTML, err
}

// exportFormats are loupe export's --format values: a folder, or
// report.FORMAT in the --out folder.
var exportFormats = []string{session.ExportFolder, session.ExportHTML, session.ExportPDF, session.ExportXLSX}

// persistSink stores each event of a run (session.Recorder) before passing it
// on to be shown, so that what was shown survives the process being
// killed. A store failure is said once on stderr; the run goes on.
type persistSink struct {
	rec    *session.Recorder
	next   agent.Sink
	stderr io.Writer
	once   sync.Once
}

func (s *persistSink) Emit(ev agent.Event) {
	if err := s.rec.Record(ev); err != nil {
		s.once.Do(func() { fmt.Fprintf(s.stderr, "loupe: the conversation could not be saved: %v\n", err) })
	}
	s.next.Emit(ev)
}

var _ agent.Sink = (*persistSink)(nil)

// startAnswer adds the question to conversation chatID (a new one when
// empty, about label) — or, with retry, asks again the conversation's
// last interrupted or failed question — and claims the answer as runID.
func startAnswer(ctx context.Context, st *store.Store, chatID, question, label string, retry bool, runID string) (*store.Pair, *store.Run, bool, error) {
	created := false
	if chatID == "" {
		c, err := st.CreateConversation(ctx, "", label)
		if err != nil {
			return nil, nil, false, err
		}
		chatID, created = c.ID, true
	}
	var pair *store.Pair
	var err error
	if retry {
		pair, err = session.RetryLast(ctx, st, chatID)
	} else {
		pair, err = st.Ask(ctx, chatID, question)
	}
	if err != nil {
		return nil, nil, created, chatError(err, chatID)
	}
	run, err := st.Claim(ctx, pair.Assistant.ID, runID)
	if err != nil {
		return nil, nil, created, err
	}
	return pair, run, created, nil
}

// announce says which conversation the run answers in: a JSON line with
// --json, else a line before the trace.
func announce(e env, chatID, messageID string, created, asJSON bool) {
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(map[string]any{"type": "conversation", "chat_id": chatID, "message_id": messageID, "new": created})
		return
	}
	if created {
		fmt.Fprintf(e.stdout, "Conversation %s (new)\n", chatID)
	} else {
		fmt.Fprintf(e.stdout, "Conversation %s\n", chatID)
	}
}
