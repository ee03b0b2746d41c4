package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/store"
)

func init() {
	register(command{"search", "search [--workspace DIR] [--k N] [--json] [--embed-model M [--provider P] [--base-url URL]] QUESTION",
		"ranked tables for a question, with their matching columns; with an embedding model, fused with its ranking", runSearch})
}

// runSearch prints the tables of the workspace that best match a question,
// from the schema index (brought up to date with the workspace first).
// With an embedding model (--embed-model, $LOUPE_EMBED_MODEL) the tables
// not embedded yet are embedded first, and the scores are the fused
// scores; how the tables were ranked, and what failed, goes to stderr.
func runSearch(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("search", e)
	k := fs.Int("k", 10, "how many tables")
	asJSON := fs.Bool("json", false, `print [{"table", "score", "columns": [...]}]`)
	cfg := embedFlags(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	question := strings.TrimSpace(strings.Join(pos, " "))
	if question == "" || *k <= 0 {
		fmt.Fprintln(e.stderr, `loupe search: give a question, e.g. loupe search "refunds by store last month" (and --k above 0)`)
		return ExitUsage
	}
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
	if cfg.EmbedModel != "" {
		// The embedding requests carry table and column names: kept, like
		// every request to a model server on another machine, for no
		// conversation (loupe outbox prints them).
		st, err := openStore(ctx, *ws)
		if err != nil {
			return fail(e, err)
		}
		defer st.Close()
		*cfg = config.Tee(config.Spec{Config: *cfg, Levels: &config.Flagged{Getenv: os.Getenv}, Getenv: os.Getenv,
			Store: func() (*store.Store, error) { return st, nil }})
	}
	if err := ret.UseEmbedding(ctx, *cfg); err != nil {
		return fail(e, err)
	}
	if st, err := ret.EmbedTables(ctx); err != nil {
		if ctx.Err() != nil {
			return fail(e, ctx.Err())
		}
		fmt.Fprintf(e.stderr, "loupe search: %v; tables not embedded rank by text alone\n", err)
	} else if st.Embedded > 0 {
		fmt.Fprintf(e.stderr, "loupe search: embedded %d tables with %s\n", st.Embedded, cfg.EmbedModel)
	}
	matches, notes, err := ret.Search(ctx, question, *k)
	if err != nil {
		return fail(e, err)
	}
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "loupe search: %s\n", n)
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(matches); err != nil {
			return fail(e, err)
		}
		return ExitOK
	}
	if len(matches) == 0 {
		fmt.Fprintf(e.stdout, "No table matches %q.\n", question)
		return ExitOK
	}
	for i, m := range matches {
		unit := "rows"
		if m.Rows == 1 {
			unit = "row"
		}
		fmt.Fprintf(e.stdout, "%2d. %-40s %8.3g  %s %s\n", i+1, m.Table, m.Score, groupDigits(m.Rows), unit)
		for _, c := range m.Columns {
			fmt.Fprintf(e.stdout, "      %-36s %s\n", c.Name, c.Type)
		}
	}
	return ExitOK
}

// embedFlags adds the flags of the model server that the semantic boost
// needs (--embed-model, --provider, --base-url), as ask defines them
// (agentFlags, whose other flags search has no use for).
func embedFlags(fs *flag.FlagSet) *provider.Config {
	all := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	cfg, _ := agentFlags(all, "")
	for _, name := range []string{"embed-model", "provider", "base-url"} {
		f := all.Lookup(name)
		fs.Var(f.Value, f.Name, f.Usage)
	}
	return cfg
}

// groupDigits writes n with thousands separators.
func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	var out []byte
	for i := range s {
		if i > 0 && s[i] != '-' && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
