package app

// AnswerFeedback is the user's verdict on an answer: "up" (right: its
// question and SQL are verified and offered to later questions) or
// "down" (wrong), the note saying why, and the queries it verified or
// withdrew.
type AnswerFeedback struct {
	Verdict string   `json:"verdict"`
	Note    string   `json:"note"`
	SQL     []string `json:"sql"`
}

// Feedback gives the verdict ("up" or "down", with an optional note) on
// the finished answer of runID in chatID, replacing an earlier one. Up
// verifies the question and the SQL behind the answer's findings in the
// workspace's query memory; down withdraws them.
func (a *App) Feedback(chatID, runID, verdict, note string) (*AnswerFeedback, error) {
	fb, err := a.s.FeedbackOnRun(a.life, chatID, runID, verdict, note)
	if err != nil {
		return nil, err
	}
	return &AnswerFeedback{Verdict: fb.Verdict, Note: fb.Note, SQL: append([]string{}, fb.SQL...)}, nil
}

// verdicts are the verdicts given in conversation chatID, by run
// (session.Verdicts).
func (a *App) verdicts(chatID string) (map[string]*AnswerFeedback, error) {
	fs, err := a.s.Verdicts(a.life, chatID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*AnswerFeedback, len(fs))
	for run, f := range fs {
		out[run] = &AnswerFeedback{Verdict: f.Verdict, Note: f.Note, SQL: []string{}}
	}
	return out, nil
}
