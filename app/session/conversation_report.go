package session

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/buildinfo"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/tools"
)

// A report covers a conversation's analysis, not its last message: by
// default every question with a finished answer, or the questions the user
// picks, numbered from 1 in the order they were asked (as `loupe chat
// show` lists them).

// NoticeLeftOut: a question of the conversation has no finished answer,
// so the report does not cover it.
const NoticeLeftOut = "question_left_out"

// Covered is the questions of a conversation a report covers: each with
// its finished answer, and the questions left out with why.
type Covered struct {
	Asked []assemble.Asked
	// Answers are the stored answers of Asked, in the same order.
	Answers []store.Message
	// LeftOut says which questions are not covered and why (the report's
	// notes list them).
	LeftOut []report.Notice
}

// Turns are the numbers of the covered questions.
func (c *Covered) Turns() []int {
	out := make([]int, len(c.Asked))
	for i, a := range c.Asked {
		out[i] = a.Turn
	}
	return out
}

// Cover reads the questions turns of conversation chatID (all of them when
// turns is empty) with their last finished answers. A picked question that
// does not exist or has no finished answer is CodeInvalid; by default such
// questions are left out and said so. A conversation with no finished
// answer at all is CodeInvalid.
func Cover(ctx context.Context, st *store.Store, chatID string, turns []int) (*Covered, error) {
	th, err := st.Thread(ctx, chatID)
	if err != nil {
		return nil, StoreError(err, chatID)
	}
	var questions []store.Message
	answer := map[string]store.Message{} // question id → its last finished answer
	for _, m := range th.Messages {
		switch {
		case m.Role == store.User:
			questions = append(questions, m)
		case m.Status == store.Complete:
			answer[m.ParentID] = m
		}
	}
	edits, err := st.ChartEdits(ctx, chatID)
	if err != nil {
		return nil, err
	}
	picked := len(turns) > 0
	if !picked {
		for i := range questions {
			turns = append(turns, i+1)
		}
	}
	c := &Covered{}
	for _, n := range dedupe(turns) {
		if n < 1 || n > len(questions) {
			return nil, NewError(CodeInvalid, fmt.Sprintf("The conversation has no question %d.", n),
				fmt.Sprintf("Pick questions between 1 and %d.", len(questions)))
		}
		q := questions[n-1]
		a, ok := answer[q.ID]
		if !ok {
			if picked {
				return nil, NewError(CodeInvalid, fmt.Sprintf("Question %d has no finished answer.", n),
					"Ask it again (or retry it), or leave it out of the report.")
			}
			c.LeftOut = append(c.LeftOut, report.Notice{Kind: NoticeLeftOut,
				Text: fmt.Sprintf("Question %d (%s) has no finished answer, so the report does not cover it.", n, clip(q.Content, 80))})
			continue
		}
		b, err := st.BlobOf(ctx, a.ID)
		if err != nil {
			return nil, fmt.Errorf("read the answer to question %d: %w", n, err)
		}
		out, err := OutcomeOf(b)
		if err != nil {
			return nil, fmt.Errorf("read the answer to question %d: %w", n, err)
		}
		if out == nil {
			out = outcomeOf(a)
		}
		for _, ed := range edits[a.ID] { // the report draws the charts as the user edited them
			outcomeWithEdit(out, ed.CallID, &tools.Chart{Title: ed.Title, Spec: ed.Spec, Mark: ed.Mark, Rows: rowsOf(ed.Spec), Edited: true})
		}
		c.Asked = append(c.Asked, assemble.Asked{Turn: n, Question: q.Content, Outcome: out})
		c.Answers = append(c.Answers, a)
	}
	if len(c.Asked) == 0 {
		return nil, NewError(CodeInvalid, "The conversation has no finished answer to write a report from.", "Ask a question first, then write the report.")
	}
	return c, nil
}

// Questions are the questions of conversation chatID in the order asked:
// question n is Questions[n-1], as Cover numbers them.
func Questions(ctx context.Context, st *store.Store, chatID string) ([]string, error) {
	th, err := st.Messages(ctx, chatID)
	if err != nil {
		return nil, StoreError(err, chatID)
	}
	out := []string{}
	for _, m := range th.Messages {
		if m.Role == store.User {
			out = append(out, m.Content)
		}
	}
	return out, nil
}

// ConversationReportRequest is what writing the report of a conversation
// needs.
type ConversationReportRequest struct {
	Store  *store.Store
	ChatID string
	// Turns picks the questions (from 1); empty covers every question with
	// a finished answer.
	Turns []int
	// MessageID is the answer the report is kept with (the one the user
	// asked for it on); empty keeps it with the last covered answer.
	MessageID string
	Provider  llm.Provider
	Model     string
	Level     privacy.Level
	Stream    report.Options
}

// WriteConversationReport writes the report of the questions r picks (one
// model call without tools) and saves it in the store with r.MessageID.
// Questions left out are listed among the report's notices. The report is
// returned even when saving it failed (with the error).
func WriteConversationReport(ctx context.Context, r ConversationReportRequest) (*StoredReport, error) {
	c, err := Cover(ctx, r.Store, r.ChatID, r.Turns)
	if err != nil {
		return nil, err
	}
	keep := r.MessageID
	if keep == "" {
		keep = c.Answers[len(c.Answers)-1].ID
	}
	exp := assemble.ConversationExploration(c.Asked, r.Level)
	opts := r.Stream
	opts.Version = buildinfo.Version() // the report's footer names it
	rep, err := report.WriteWith(ctx, r.Provider, r.Model, exp, opts)
	if err != nil {
		return nil, fmt.Errorf("write the report: %w", err)
	}
	rep.Notices = append(rep.Notices, c.LeftOut...)
	id, err := SaveReport(ctx, r.Store, keep, rep)
	return &StoredReport{ID: id, Report: rep}, err
}

// Covers reports whether rep covers exactly the questions c does. A
// report written before reports covered several questions covers the one
// answer it was written from.
func (c *Covered) Covers(s *StoredReport, messageID string) bool {
	got := s.Report.Exploration.Turns
	if len(got) == 0 {
		return len(c.Answers) == 1 && c.Answers[0].ID == messageID
	}
	return slices.Equal(got, c.Turns())
}

// ParseTurns reads a list of question numbers ("1,3", "2-4", "1, 2").
func ParseTurns(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err != nil || a < 1 || b < a {
			return nil, NewError(CodeInvalid, fmt.Sprintf("%q is not a question number or range.", part), `Write question numbers from 1, like "1,3" or "2-4".`)
		}
		for n := a; n <= b; n++ {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, NewError(CodeInvalid, "No question picked.", `Write question numbers from 1, like "1,3" or "2-4".`)
	}
	return out, nil
}

// dedupe sorts turns and drops repeats: a report follows the
// conversation's order.
func dedupe(turns []int) []int {
	out := slices.Clone(turns)
	slices.Sort(out)
	return slices.Compact(out)
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
