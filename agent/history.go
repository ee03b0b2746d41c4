package agent

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/loupeapp/loupe/agent/llm"
)

// Past is one stored message of a conversation, as History reads it.
type Past struct {
	Role    llm.Role // llm.User or llm.Assistant
	Content string   // the user's words; the answer, its partial text, or the question the agent asked
	// Status is an answer's status in the store: "complete", "needs_input",
	// "failed" or "interrupted" (an answer still generating is left out).
	Status string
	Error  string     // why an answer failed or stopped
	Calls  []PastCall // an answer's finished tool calls, in order
	// Sent is, for an answer, what its run sent and received after the
	// system prompt (its Outcome.Transcript): the question's user turn
	// with the data it needed, the model's steps and tool results, the
	// answer. When it is set, the answer is complete or asked the user,
	// and its first message is the user's words before it, History
	// replays it as it was sent, so that a model server can serve the
	// conversation from its cache. The caller sets it only when the run
	// was made by the same model at the same privacy level as the next.
	Sent []llm.Message
}

// PastCall is a finished tool call of an earlier answer.
type PastCall struct {
	Name      string
	Arguments string // as the model wrote them, usually a JSON object
	Result    string // as the model read it (stored capped)
	Failed    bool
	Skipped   bool // answered "not run": left out of the history
}

// History defaults (seed 004: the last 10 messages, tool arguments and
// results cut to about 200 characters).
const (
	DefaultRecentMessages = 10
	DefaultCallChars      = 200
	// DefaultHistoryTokens bounds the history when the model's context
	// window is unknown.
	DefaultHistoryTokens = 4000
)

// HistoryOptions shape History; zero fields take the defaults.
type HistoryOptions struct {
	Recent    int // messages shown in detail
	CallChars int // characters each tool call's arguments and result are cut to
	MaxTokens int // the history's budget, as estimateMessages counts

	memo renders // one History call's renders of its messages
}

// renders keeps the renders of one History call's messages (by their place
// in its slice and the shape), which each compaction would make again.
type renders map[renderKey]llm.Message

type renderKey struct {
	p      *Past
	sh     shape
	detail bool
}

// of is p rendered summarized or in detail in shape sh.
func (r renders) of(p *Past, sh shape, detail bool, n int) llm.Message {
	if r == nil {
		if detail {
			return detailed(*p, n, sh)
		}
		return summarized(*p, sh)
	}
	k := renderKey{p, sh, detail}
	m, ok := r[k]
	if !ok {
		if detail {
			m = detailed(*p, n, sh)
		} else {
			m = summarized(*p, sh)
		}
		r[k] = m
	}
	return m
}

// HistoryBudget is the share of a model's context window (in tokens) the
// history of a follow-up may take: a quarter, leaving the rest to the
// system prompt, the run's own steps and the reply. 0 (unknown) gives
// DefaultHistoryTokens.
func HistoryBudget(contextTokens int) int {
	if contextTokens <= 0 {
		return DefaultHistoryTokens
	}
	return max(contextTokens/4, 256)
}

// History builds the History of a follow-up question from the stored
// messages before it, oldest first, so that each follow-up's prompt
// starts with the one before it, word for word: a model server then reads
// only what is new. Each question and its answer are added in turn: as
// they were sent (Past.Sent) when they can be, else the user's words and
// the answer with a note of its tool calls (arguments and results cut to
// o.CallChars) so that "same but for 2023" can reuse the earlier SQL.
// Nothing already added changes until the history passes o.MaxTokens;
// then it is compacted to half the budget, keeping the longest prefix it
// can: the part compacted before stays as it was and only what was added
// since is compacted (see compact), unless that part has grown past a
// quarter of the budget, when everything is compacted again. Tool calls
// outside a replayed run are written as text, never as native calls, so
// the history is valid for every provider and survives the run's own
// compaction (fit).
func History(past []Past, o HistoryOptions) []llm.Message {
	if o.Recent <= 0 {
		o.Recent = DefaultRecentMessages
	}
	if o.CallChars <= 0 {
		o.CallChars = DefaultCallChars
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultHistoryTokens
	}
	o.memo = renders{}
	msgs := usable(past)
	var out []llm.Message
	// A long conversation is followed from a start that moves by
	// foldWindow messages at a time, its earlier questions listed before:
	// the work stays bounded and the prefix changes only when it moves.
	if start := foldStart(msgs); start > 0 {
		lead := o
		lead.MaxTokens = o.MaxTokens / 4
		out = dropOldest(msgs[:start], nil, lead)
		o.MaxTokens -= estimateMessages(out)
		msgs = msgs[start:]
	}
	kept, done := len(out), 0 // out[:kept] is the compacted part, msgs[:done] what it holds
	for lo := 0; lo < len(msgs); {
		hi := lo + 1
		if msgs[lo].Role == llm.User && hi < len(msgs) && msgs[hi].Role == llm.Assistant {
			hi++
		}
		out = append(out, asSent(msgs[lo:hi], o)...)
		lo = hi
		if estimateMessages(out) <= o.MaxTokens {
			continue
		}
		out = shrink(msgs[:hi], out[:kept:kept], done, o)
		kept, done = len(out), hi
	}
	return out
}

// foldWindow is how far the start of a long conversation's history moves
// at a time (see foldStart).
const foldWindow = 200

// foldStart is where History starts following msgs in full: 0 for up to
// 2×foldWindow messages, then a multiple of foldWindow that leaves at
// least foldWindow messages after it, moved to a user message.
func foldStart(msgs []Past) int {
	if len(msgs) <= 2*foldWindow {
		return 0
	}
	start := (len(msgs) - foldWindow) / foldWindow * foldWindow
	for start > 0 && msgs[start].Role != llm.User {
		start--
	}
	return start
}

// shrink compacts the history of msgs, which went over o.MaxTokens,
// keeping the longest prefix it can: head (the compaction of msgs[:done]
// made before) and the rest compacted after it, within three quarters of
// the budget, while head takes at most half of it; else all of msgs
// compacted again, to half the budget (to three quarters, or all of it,
// rather than leave messages out). Whichever way, the last question stays
// in the user's words when the budget allows.
func shrink(msgs []Past, head []llm.Message, done int, o HistoryOptions) []llm.Message {
	half := o.MaxTokens / 2
	var tries [][]llm.Message
	if h := estimateMessages(head); len(head) > 0 && h <= half {
		if tail, dropped := compact(msgs[done:], o, o.MaxTokens*3/4-h); !dropped {
			tries = append(tries, append(head, tail...))
		}
	}
	for _, budget := range []int{half, o.MaxTokens * 3 / 4} {
		if out, dropped := compact(msgs, o, budget); !dropped {
			tries = append(tries, out)
		}
	}
	for _, out := range tries {
		if keepsLastQuestion(out, msgs) {
			return out
		}
	}
	out, _ := compact(msgs, o, o.MaxTokens)
	return out
}

// keepsLastQuestion reports whether out still holds the last question of
// msgs in the user's words.
func keepsLastQuestion(out []llm.Message, msgs []Past) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != llm.User {
			continue
		}
		for j := len(out) - 1; j >= 0 && j >= len(out)-2; j-- {
			if out[j].Role == llm.User && out[j].Content == msgs[i].Content {
				return true
			}
		}
		return false
	}
	return true
}

// asSent is a question and its answer (or a lone message) as History adds
// them: the run's messages as sent when Past.Sent can be replayed and
// takes at most a quarter of the budget (a bigger run would have the
// history compacted at nearly every follow-up), else the user's words and
// the answer in detail.
func asSent(unit []Past, o HistoryOptions) []llm.Message {
	if len(unit) == 2 {
		a := unit[1]
		if len(a.Sent) > 0 && (a.Status == "complete" || a.Status == "needs_input") &&
			a.Sent[0].Role == llm.User && UserWords(a.Sent[0].Content) == unit[0].Content &&
			estimateMessages(a.Sent) <= o.MaxTokens/4 {
			return append([]llm.Message(nil), a.Sent...)
		}
	}
	out := make([]llm.Message, 0, len(unit))
	for _, p := range unit {
		out = append(out, detailed(p, o.CallChars, shapes[0]))
	}
	return out
}

// compact is msgs within budget tokens: the last o.Recent messages in
// detail, older ones summarized (the user's words kept, each answer cut
// to its opening and its last query); when that is over budget, in order:
// shorter summaries, the older questions as one list, tool results left
// out, answers cut, and finally the oldest messages dropped (saying how
// many). It reports whether it had to drop messages.
func compact(msgs []Past, o HistoryOptions, budget int) (out []llm.Message, dropped bool) {
	if len(msgs) == 0 {
		return nil, false
	}
	o.MaxTokens = max(budget, 1)
	split := max(len(msgs)-o.Recent, 0)
	if split > 0 && msgs[split].Role == llm.Assistant {
		split-- // keep an answer with its question
	}
	older, recent := msgs[:split], msgs[split:]
	for _, sh := range shapes {
		out = render(older, recent, o, sh)
		if estimateMessages(out) <= o.MaxTokens {
			return out, false
		}
	}
	return dropOldest(older, recent, o), true
}

// usable leaves out answers still generating and empty messages.
func usable(past []Past) []Past {
	out := make([]Past, 0, len(past))
	for _, p := range past {
		if p.Role != llm.User && p.Role != llm.Assistant || p.Status == "generating" {
			continue
		}
		if strings.TrimSpace(p.Content) == "" && len(p.Calls) == 0 && p.Error == "" {
			continue
		}
		out = append(out, p)
	}
	return out
}

// shape is one level of compaction.
type shape struct {
	olderAnswer int  // characters of an older answer's summary
	olderSQL    bool // an older answer's summary names its last query
	collapse    bool // the older questions become one list, their answers left out
	results     bool // recent tool calls show their results
	answerCut   int  // recent answers cut to this many characters (0: whole)
}

var shapes = []shape{
	{olderAnswer: 200, olderSQL: true, results: true},
	{olderAnswer: 100, results: true},
	{collapse: true, results: true},
	{collapse: true},
	{collapse: true, answerCut: 400},
}

func render(older, recent []Past, o HistoryOptions, sh shape) []llm.Message {
	out := make([]llm.Message, 0, len(older)+len(recent)+1)
	if sh.collapse {
		if m, ok := questionList(older, 0); ok {
			out = append(out, m)
		}
	} else {
		for i := range older {
			out = append(out, o.memo.of(&older[i], sh, false, o.CallChars))
		}
	}
	for i := range recent {
		out = append(out, o.memo.of(&recent[i], sh, true, o.CallChars))
	}
	return out
}

// dropOldest is the last resort: the older questions as a list and the
// recent messages most compact, dropping the oldest until the estimate
// fits (the last message always stays, cut if it must be).
func dropOldest(older, recent []Past, o HistoryOptions) []llm.Message {
	sh := shapes[len(shapes)-1]
	rest := render(nil, recent, o, sh)
	with := func(skip int) []llm.Message {
		if m, ok := questionList(older, skip); ok {
			return append([]llm.Message{m}, rest...)
		}
		return rest
	}
	// the fewest older questions to leave out (fewer lines, a shorter list)
	skip := sort.Search(len(older)+1, func(skip int) bool { return estimateMessages(with(skip)) <= o.MaxTokens })
	if skip <= len(older) {
		return with(skip)
	}
	if len(recent) == 0 {
		return []llm.Message{omitted(len(older))}
	}
	for len(recent) > 1 {
		recent = recent[1:]
		if recent[0].Role == llm.Assistant && len(recent) > 1 {
			recent = recent[1:]
		}
		out := render(nil, recent, o, sh)
		out = append([]llm.Message{omitted(len(older) + 1)}, out...)
		if estimateMessages(out) <= o.MaxTokens {
			return out
		}
	}
	last := detailed(recent[0], o.CallChars, sh)
	last.Content = cut(last.Content, max(o.MaxTokens*4-200, 200))
	return []llm.Message{omitted(len(older) + 1), last}
}

func omitted(n int) llm.Message {
	return llm.Message{Role: llm.User, Content: fmt.Sprintf("[Loupe: earlier parts of this conversation (%d+ messages) were left out to fit the model's context.]", n)}
}

// questionList is the older questions in the user's words, as one
// message, leaving out the first skip of them.
func questionList(older []Past, skip int) (llm.Message, bool) {
	var qs []string
	for _, p := range older {
		if p.Role == llm.User {
			qs = append(qs, p.Content)
		}
	}
	if len(qs) == 0 {
		return llm.Message{}, false
	}
	var b strings.Builder
	b.WriteString("[Loupe: earlier in this conversation the user asked, in order (the answers are left out to fit the model's context):")
	if skip > 0 {
		fmt.Fprintf(&b, "\n(%d earlier questions left out)", min(skip, len(qs)))
	}
	for i, q := range qs[min(skip, len(qs)):] {
		fmt.Fprintf(&b, "\n%d. %s", skip+i+1, cut(oneLineText(q), 300))
	}
	b.WriteString("]")
	return llm.Message{Role: llm.User, Content: b.String()}, true
}

// summarized is an older message: the user's words as written (up to 2,000
// characters), or an answer cut to its opening, with its last query.
func summarized(p Past, sh shape) llm.Message {
	if p.Role == llm.User {
		return llm.Message{Role: llm.User, Content: cut(p.Content, 2000)}
	}
	var b strings.Builder
	b.WriteString("[Earlier answer, summarized] ")
	if s := statusNote(p); s != "" {
		b.WriteString(s + " ")
	}
	b.WriteString(cut(oneLineText(p.Content), sh.olderAnswer))
	if sh.olderSQL {
		if q := lastSQL(p.Calls); q != "" {
			b.WriteString("\nLast query: " + cut(oneLineText(q), sh.olderAnswer))
		}
	}
	return llm.Message{Role: llm.Assistant, Content: strings.TrimSpace(b.String())}
}

// detailed is a recent message: the user's words as written, or an answer
// with a note of its tool calls before its text.
func detailed(p Past, n int, sh shape) llm.Message {
	if p.Role == llm.User {
		return llm.Message{Role: llm.User, Content: p.Content}
	}
	var b strings.Builder
	var calls []PastCall
	for _, c := range p.Calls {
		if !c.Skipped {
			calls = append(calls, c)
		}
	}
	if len(calls) > 0 {
		b.WriteString("[Tools used for this answer]\n")
		for i, c := range calls {
			fmt.Fprintf(&b, "%d. %s %s", i+1, c.Name, renderArgs(c.Arguments, n))
			if sh.results {
				mark := "→"
				if c.Failed {
					mark = "→ failed:"
				}
				fmt.Fprintf(&b, " %s %s", mark, cut(oneLineText(c.Result), n))
			}
			b.WriteString("\n")
		}
		b.WriteString("[Answer]\n")
	}
	if s := statusNote(p); s != "" {
		b.WriteString(s + "\n")
	}
	text := p.Content
	if sh.answerCut > 0 {
		text = cut(text, sh.answerCut)
	}
	b.WriteString(text)
	return llm.Message{Role: llm.Assistant, Content: strings.TrimSpace(b.String())}
}

// statusNote says how an answer that did not complete ended.
func statusNote(p Past) string {
	why := ""
	if p.Error != "" {
		why = ": " + cut(oneLineText(p.Error), 200)
	}
	switch p.Status {
	case "failed":
		return "[This answer failed" + why + "]"
	case "interrupted":
		return "[This answer was interrupted before it finished" + why + "]"
	case "needs_input":
		return "[I asked the user:]"
	}
	return ""
}

// renderArgs writes a call's arguments as key="value" pairs (sql first),
// cut to n characters in all; not as JSON, so that a model reading the
// history is not led to write calls as text.
func renderArgs(args string, n int) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return cut(oneLineText(args), n)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if (keys[i] == "sql") != (keys[j] == "sql") {
			return keys[i] == "sql"
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v, ok := m[k].(string)
		if !ok {
			b, _ := json.Marshal(m[k])
			v = string(b)
		}
		parts = append(parts, fmt.Sprintf("%s=%q", k, oneLineText(v)))
	}
	return cut(strings.Join(parts, " "), n)
}

// lastSQL is the SQL of the last query among calls, if any.
func lastSQL(calls []PastCall) string {
	for i := len(calls) - 1; i >= 0; i-- {
		var m map[string]any
		if calls[i].Failed || json.Unmarshal([]byte(calls[i].Arguments), &m) != nil {
			continue
		}
		if q, ok := m["sql"].(string); ok && strings.TrimSpace(q) != "" {
			return q
		}
	}
	return ""
}

// cut clips s to n runes, marking the cut with "…".
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:max(n-1, 0)]) + "…"
}

// oneLineText collapses all whitespace in s to single spaces.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
