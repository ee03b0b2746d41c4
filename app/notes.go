package app

import (
	"context"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/workspace"
)

// SetDatasetNote sets the user's note on a dataset and, for each column
// named in columns, the column's note (an empty text clears a note;
// columns not named keep theirs). The notes help the agent find and
// understand the table. Errors: not_found for an unknown dataset,
// invalid for an unknown column or a note over catalog.MaxNote
// characters, and then nothing changes. Emits datasets:changed.
func (a *App) SetDatasetNote(name, note string, columns map[string]string) error {
	return wrap(a.s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		if err := session.SetDatasetNotes(ctx, ws, name, catalog.Notes{Table: new(note), Columns: columns}); err != nil {
			return err
		}
		a.s.Local.Changed(ctx, ws)
		return nil
	}))
}
