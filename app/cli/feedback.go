package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/memory"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/store"
)

func init() {
	register(command{"feedback", "feedback [--workspace DIR] --chat ID [--turn N] [--note TEXT] [--json] up|down",
		"judge an answer (the last one, or question N's): up verifies its question and SQL for later questions and loupe eval --verified; down says why", runFeedback})
}

func runFeedback(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("feedback", e)
	chatID := fs.String("chat", "", "the conversation (see loupe chats)")
	turn := fs.Int("turn", 0, "the question whose answer is judged, by number as loupe chat show lists them (default: the last answered)")
	note := fs.String("note", "", "why: kept with the verdict")
	asJSON := fs.Bool("json", false, "print the verdict as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	if *chatID == "" || len(pos) != 1 || (pos[0] != store.Up && pos[0] != store.Down) || *turn < 0 {
		fmt.Fprintln(e.stderr, "loupe feedback: give --chat ID and up or down (and --turn N for another answer than the last)")
		return ExitUsage
	}
	st, err := openStore(ctx, *ws)
	if err != nil {
		return fail(e, err)
	}
	defer st.Close()
	c, err := st.Conversation(ctx, *chatID)
	if err != nil {
		return fail(e, chatError(err, *chatID))
	}
	var mem *memory.Store
	if remote.LabelName(c.Workspace) == "" { // a workspace's conversation: its query memory
		dir, err := storeDir(*ws)
		if err != nil {
			return fail(e, err)
		}
		if mem, err = memory.Open(dir); err != nil {
			return fail(e, err)
		}
	}
	fb, err := session.GiveFeedback(ctx, session.FeedbackRequest{Store: st, Memory: mem, ChatID: *chatID, Turn: *turn, Verdict: pos[0], Note: *note})
	if err != nil {
		return fail(e, err)
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(fb); err != nil {
			return fail(e, err)
		}
		return ExitOK
	}
	what := "verified"
	if fb.Verdict == store.Down {
		what = "marked wrong; its queries will not be offered again"
	}
	fmt.Fprintf(e.stdout, "Question %d (%s): %s, %d %s.\n", fb.Turn, fb.Question, what, len(fb.SQL), plural(len(fb.SQL), "query", "queries"))
	return ExitOK
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
