package session

import (
	"strconv"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/data/store"
)

// RefsBefore counts the evidence refs the answers stored before seq in th
// took (the highest q and c numbers of their tool calls and charts), so a
// new run numbers its queries and charts after them and a ref names one
// thing in the whole conversation. A conversation stored before refs were
// numbered across it restarts at q1 with each answer; the highest number
// is still the one to continue from.
func RefsBefore(th *store.Thread, seq int) agent.RefBase {
	var b agent.RefBase
	take := func(ref string) {
		if len(ref) < 2 {
			return
		}
		n, err := strconv.Atoi(ref[1:])
		if err != nil || n < 0 {
			return
		}
		switch ref[0] {
		case 'q':
			b.Queries = max(b.Queries, n)
		case 'c':
			b.Charts = max(b.Charts, n)
		}
	}
	for _, m := range th.Messages {
		if m.Seq >= seq || m.Role != store.Assistant {
			continue
		}
		for _, c := range m.ToolCalls {
			take(c.Ref)
		}
		for _, c := range m.Charts {
			take(c.Ref)
		}
	}
	return b
}
