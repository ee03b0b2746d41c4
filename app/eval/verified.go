package eval

import (
	"fmt"

	"github.com/loupeapp/loupe/data/memory"
)

// FromVerified turns verified answers into questions: one per verified
// question (of a conversation), whose gold query is the last verified
// query of its answer, re-run on the data as it is now. IDs are v1, v2, …
// in the order the answers were verified.
func FromVerified(entries []memory.Entry) []Question {
	type key struct{ chat, question string }
	at := map[key]int{}
	var out []Question
	for _, e := range entries {
		k := key{e.Chat, e.Question}
		if i, ok := at[k]; ok {
			out[i].SQL = e.SQL // the answer's last query is its final one
			continue
		}
		at[k] = len(out)
		out = append(out, Question{ID: fmt.Sprintf("v%d", len(out)+1), Question: e.Question, SQL: e.SQL})
	}
	return out
}
