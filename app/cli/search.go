package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/tools/search"
)

func init() {
	register(command{"search", "search [--workspace DIR] [--k N] [--json] QUESTION",
		"ranked tables for a question, with their matching columns", runSearch})
}

// runSearch prints the tables of the workspace that best match a question,
// from the schema index (brought up to date with the workspace first).
func runSearch(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("search", e)
	k := fs.Int("k", 10, "how many tables")
	asJSON := fs.Bool("json", false, `print [{"table", "score", "columns": [...]}]`)
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
	idx, err := index.Open(w.Engine.Dir())
	if err != nil {
		return fail(e, err)
	}
	defer idx.Close()
	matches, err := search.Tables(ctx, w, idx, question, *k)
	if err != nil {
		return fail(e, err)
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
		fmt.Fprintf(e.stdout, "%2d. %-40s %8.3g  %s rows\n", i+1, m.Table, m.Score, groupDigits(m.Rows))
		for _, c := range m.Columns {
			fmt.Fprintf(e.stdout, "      %-36s %s\n", c.Name, c.Type)
		}
	}
	return ExitOK
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
