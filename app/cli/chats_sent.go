package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/store"
)

// showSent prints what each answer of th sent to its model server (or, with
// asJSON, one JSON array of assemble.AnswerSent, bodies exactly as sent).
func showSent(ctx context.Context, e env, st *store.Store, th *store.Thread, asJSON bool) int {
	var all []*assemble.AnswerSent
	for _, m := range th.Messages {
		if m.Role != store.Assistant {
			continue
		}
		a, err := assemble.SentOf(ctx, st, m.ID)
		if err != nil {
			return fail(e, err)
		}
		all = append(all, a)
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		if all == nil {
			all = []*assemble.AnswerSent{}
		}
		if err := enc.Encode(all); err != nil {
			return fail(e, err)
		}
		return ExitOK
	}
	fmt.Fprintf(e.stdout, "%s  (%s): what was sent\n", th.Name, th.ID)
	question := ""
	for _, m := range th.Messages {
		if m.Role == store.User {
			question = m.Content
			continue
		}
		printSent(e.stdout, question, all[0])
		all = all[1:]
	}
	return ExitOK
}

// printSent writes one answer's requests: size, URL, then the body,
// indented when it is JSON.
func printSent(w io.Writer, question string, a *assemble.AnswerSent) {
	if a.MessageID != "" {
		fmt.Fprintf(w, "\n▸ Answer %s to %q\n", a.MessageID, oneLine(question, 80))
	}
	fmt.Fprintf(w, "  %s\n", a.Summary)
	if len(a.Requests) == 0 {
		return
	}
	fmt.Fprintf(w, "  %d request(s), %d bytes in all\n", len(a.Requests), a.Bytes)
	for i, r := range a.Requests {
		fmt.Fprintf(w, "\n  [%d] %d bytes  %s %s  %s\n", i+1, r.Size, r.Method, r.URL, r.At.Local().Format("15:04:05"))
		switch {
		case r.Dropped:
			fmt.Fprintf(w, "      (body let go to keep this conversation's record under %d MiB)\n", store.MaxOutboxBytes>>20)
		case r.Size > 0:
			fmt.Fprintln(w, "      "+strings.ReplaceAll(r.Pretty, "\n", "\n      "))
		}
	}
}
