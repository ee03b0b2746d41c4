package app

// Retry answers again the last question of a chat whose last answer did
// not finish: it was stopped, cut off by a crash (the store marks such an
// answer interrupted when it next opens), failed, or hit a limit. The new
// answer follows the old one, which stays as it was, and streams like
// Ask's; it sees the same history the first attempt saw. Like Ask it is
// refused with code "busy" while the chat has a run going; a chat whose
// last answer finished has nothing to retry (code "invalid").
func (a *App) Retry(chatID string) (*AskResult, error) {
	m, err := a.runModel()
	if err != nil {
		return nil, err
	}
	st, pair, err := a.s.Chats.Repose(a.life, chatID)
	if err != nil {
		return nil, err
	}
	return a.launch(st, pair, m)
}
