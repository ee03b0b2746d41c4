package app

// WaitEmbedding blocks until a's background embedding of the workspace's
// tables has ended (at once when the workspace is not open).
func WaitEmbedding(a *App) {
	if ret := a.s.Local.Retrieval(); ret != nil {
		ret.WaitEmbedding()
	}
}
