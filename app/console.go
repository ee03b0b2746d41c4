package app

// CancelSQL stops the SQL console's running query: DuckDB is interrupted
// and RunSQL returns an error with code "canceled". It reports whether a
// query was running.
func (a *App) CancelSQL() (bool, error) {
	return a.s.Console.Stop(), nil
}
