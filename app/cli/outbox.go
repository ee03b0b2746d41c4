package cli

import (
	"context"
	"fmt"

	"github.com/loupeapp/loupe/app/assemble"
)

func init() {
	register(command{"outbox", "outbox [--workspace DIR]",
		"print the requests sent to a model server on another machine for no conversation (status checks, model listing, table embeddings, loupe eval); per answer: loupe chat show --sent ID", runOutbox})
}

func runOutbox(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("outbox", e)
	if _, err := parse(fs, args); err != nil {
		return ExitUsage
	}
	st, err := openStore(ctx, *ws)
	if err != nil {
		return fail(e, err)
	}
	defer st.Close()
	loose, err := st.SentLoose(ctx)
	if err != nil {
		return fail(e, err)
	}
	if len(loose) == 0 {
		fmt.Fprintln(e.stdout, "Nothing was sent for no conversation.")
		return ExitOK
	}
	a := &assemble.AnswerSent{Known: true}
	for _, r := range loose {
		a.Requests = append(a.Requests, assemble.SentRequest{At: r.At, Method: r.Method, URL: r.URL, Size: r.Size,
			Body: string(r.Body), Pretty: assemble.Pretty(r.Body), Dropped: r.Dropped})
		a.Bytes += r.Size
	}
	a.Summary = fmt.Sprintf("Sent for no conversation, at the level then in force (%s for the last).", loose[len(loose)-1].Level)
	printSent(e.stdout, "", a)
	return ExitOK
}
