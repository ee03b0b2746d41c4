package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/refresh"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/tools"
)

func init() {
	register(command{"report", "report refresh --chat ID --out DIR [--format md|html|pdf|xlsx] [--no-model] | report versions --chat ID | report diff --chat ID A B  [--workspace DIR] [--json]",
		"refresh a conversation's report on the current data (a new version with what changed), list its versions, compare two", runReport})
}

// reportFlags are the flags of loupe report's subcommands.
type reportFlags struct {
	ws, chat, out, format *string
	noModel, asJSON       *bool
	cfg                   *provider.Config
	opts                  *assemble.Options
}

func runReport(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("report", e)
	cfg, o := agentFlags(fs, "wording what changed")
	f := reportFlags{ws: ws, cfg: cfg, opts: o,
		chat:    fs.String("chat", "", "the conversation (see loupe chats)"),
		out:     fs.String("out", "", "refresh: the folder to export the new version into"),
		format:  fs.String("format", "md", "refresh: md (a folder: report.md, charts, report.html), or html, pdf or xlsx (report.FORMAT in --out)"),
		noModel: fs.Bool("no-model", false, "refresh: word what changed without a model (the numbers are Loupe's either way)"),
		asJSON:  fs.Bool("json", false, "print the result as JSON")}
	pos, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	usage := func(msg string) int {
		fmt.Fprintln(e.stderr, "loupe report: "+msg)
		return ExitUsage
	}
	if len(pos) == 0 {
		return usage("use loupe report refresh|versions|diff --chat ID")
	}
	if *f.chat == "" {
		return usage("give --chat ID (see loupe chats)")
	}
	switch pos[0] {
	case "refresh":
		if len(pos) != 1 || *f.out == "" || !slices.Contains(exportFormats, *f.format) {
			return usage("refresh takes --chat ID --out DIR, and --format md, html, pdf or xlsx")
		}
		return reportRefresh(ctx, e, f)
	case "versions":
		if len(pos) != 1 {
			return usage("versions takes --chat ID")
		}
		return reportVersions(ctx, e, f)
	case "diff":
		if len(pos) != 3 {
			return usage("diff takes --chat ID and two version numbers (see loupe report versions)")
		}
		a, errA := strconv.Atoi(pos[1])
		b, errB := strconv.Atoi(pos[2])
		if errA != nil || errB != nil {
			return usage("diff takes two version numbers, like 1 3")
		}
		return reportDiff(ctx, e, f, a, b)
	}
	return usage(fmt.Sprintf("unknown subcommand %q: use refresh, versions or diff", pos[0]))
}

// reportRefresh refreshes the conversation's newest report on the
// workspace (files changed on disk loaded again) or its connection, keeps
// the new version and exports it.
func reportRefresh(ctx context.Context, e env, f reportFlags) int {
	st, err := openStore(ctx, *f.ws)
	if err != nil {
		return fail(e, err)
	}
	defer st.Close()
	c, err := st.Conversation(ctx, *f.chat)
	if err != nil {
		return fail(e, chatError(err, *f.chat))
	}
	req := session.RefreshRequest{Store: st, ChatID: *f.chat}
	var private assemble.Private
	if name := remote.LabelName(c.Workspace); name != "" {
		r, err := openConnection(ctx, name)
		if err != nil {
			return fail(e, err)
		}
		defer r.Close()
		req.Run, private = r, assemble.RemotePrivate{R: r, Dir: r.Dir}
	} else {
		w, err := openWorkspace(ctx, *f.ws)
		if err != nil {
			return fail(e, err)
		}
		defer w.Close()
		req.Run, private = w.Query, assemble.WorkspacePrivate{WS: w}
		req.Reload = func(ctx context.Context, sqls []string) ([]string, error) { return session.ReloadChanged(ctx, w, sqls) }
	}
	if !*f.noModel {
		if req.Prose = cliProse(e, st, *f.chat, private, f); req.Prose == nil {
			return ExitUsage
		}
	}
	rep, err := session.RefreshReport(ctx, req)
	if err != nil {
		return fail(e, err)
	}
	path, err := exportAs(ctx, st, rep, *f.format, *f.out)
	if err != nil {
		return fail(e, err)
	}
	if *f.asJSON {
		return printJSON(e, struct {
			ID      string         `json:"id"`
			Path    string         `json:"path"`
			Changes report.Changes `json:"changes"`
		}{rep.ID, path, rep.Report.Refresh.Changes})
	}
	printChanges(e.stdout, &rep.Report.Refresh.Changes)
	printNotes(e.stderr, rep)
	fmt.Fprintln(e.stdout, path)
	return ExitOK
}

// cliProse words what changed with the model the flags name, behind the
// privacy gate of its level (none at the schema level: the changes are
// values). nil when the flags are wrong (said on stderr).
func cliProse(e env, st *store.Store, chatID string, private assemble.Private, f reportFlags) refresh.Prose {
	m, _ := openModel(e, "report", st, f.cfg, f.opts)
	if m == nil {
		return nil
	}
	return func(ctx context.Context, title string, c *report.Changes) (string, error) {
		if m.Level == privacy.Schema {
			return "", fmt.Errorf("at the schema privacy level the model sees no values")
		}
		p, err := m.Guard(private)
		if err != nil {
			return "", err
		}
		latest, err := session.LatestReport(ctx, st, chatID)
		if err != nil || latest == nil {
			return "", fmt.Errorf("read the report: %v", err)
		}
		ctx = provider.WithOutbox(tools.WithChat(ctx, chatID), assemble.Outbox{Store: st, ConversationID: chatID, MessageID: latest.MessageID, Level: m.Level})
		return report.WriteChangesProse(ctx, p, m.Config.Model, title, c)
	}
}

// printChanges writes the "What changed" of a refresh as lines.
func printChanges(w io.Writer, c *report.Changes) {
	fmt.Fprintln(w, "What changed:")
	prose := c.Prose
	if prose == "" {
		prose = c.Summary()
	}
	fmt.Fprintln(w, "  "+prose)
	if len(c.Reloaded) > 0 {
		fmt.Fprintf(w, "  Loaded again (the file changed): %v\n", c.Reloaded)
	}
	for _, l := range c.Lines() {
		fmt.Fprintln(w, "  - "+l)
	}
}

func reportVersions(ctx context.Context, e env, f reportFlags) int {
	st, err := openStore(ctx, *f.ws)
	if err != nil {
		return fail(e, err)
	}
	defer st.Close()
	vs, err := session.ReportVersions(ctx, st, *f.chat)
	if err != nil {
		return fail(e, chatError(err, *f.chat))
	}
	if *f.asJSON {
		out := make([]versionLine, len(vs))
		for i := range vs {
			out[i] = lineOf(&vs[i])
		}
		return printJSON(e, out)
	}
	if len(vs) == 0 {
		fmt.Fprintln(e.stdout, "The conversation has no report yet (loupe export writes one).")
		return ExitOK
	}
	for i := range vs {
		l := lineOf(&vs[i])
		fmt.Fprintf(e.stdout, "%d\t%s\t%s\t%s\n", l.Number, l.Created.Local().Format("2006-01-02 15:04"), l.What, l.Title)
	}
	return ExitOK
}

// versionLine is a version as loupe report versions lists it.
type versionLine struct {
	Number  int       `json:"number"`
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Created time.Time `json:"created"`
	Of      int       `json:"of,omitempty"`
	What    string    `json:"what"`
}

func lineOf(v *session.ReportVersion) versionLine {
	return versionLine{Number: v.Number, ID: v.ID, Title: v.Title, Created: v.Report.Created, Of: v.Of, What: session.VersionWhat(v)}
}

func reportDiff(ctx context.Context, e env, f reportFlags, a, b int) int {
	st, err := openStore(ctx, *f.ws)
	if err != nil {
		return fail(e, err)
	}
	defer st.Close()
	d, err := session.DiffVersions(ctx, st, *f.chat, a, b)
	if err != nil {
		return fail(e, chatError(err, *f.chat))
	}
	if *f.asJSON {
		return printJSON(e, d.Diff)
	}
	fmt.Fprintf(e.stdout, "From version %d to version %d:\n", a, b)
	c := d.Diff.Changes
	fmt.Fprintln(e.stdout, "  "+c.Since(fmt.Sprintf("version %d", a)))
	for _, l := range c.Lines() {
		fmt.Fprintln(e.stdout, "  - "+l)
	}
	fmt.Fprintf(e.stdout, "\n--- version %d\n+++ version %d\n", a, b)
	for _, h := range report.Hunks(d.Diff.Lines, 2) {
		fmt.Fprintln(e.stdout, "@@")
		for _, l := range h {
			fmt.Fprintln(e.stdout, l.Op+l.Text)
		}
	}
	return ExitOK
}
