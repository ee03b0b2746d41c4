package session

import (
	"context"
	"fmt"

	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/workspace"
)

// Rename renames the dataset name (its table or view and its record) to
// newName, a plain identifier (ValidDatasetName; else CodeInvalid) not
// taken by another dataset, and tells Local the list changed.
func (s *Session) Rename(name, newName string) error {
	if !ValidDatasetName.MatchString(newName) {
		return NewError(CodeInvalid, fmt.Sprintf("%q cannot be a dataset name.", newName),
			"Use letters, digits and underscores, starting with a letter (at most 63 characters).")
	}
	return s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		if err := RenameDataset(ctx, ws, name, newName); err != nil {
			return err
		}
		s.Local.Changed(ctx, ws)
		return nil
	})
}

// Remove removes the dataset name from the workspace (the user's file is
// not touched) and tells Local the list changed.
func (s *Session) Remove(name string) error {
	return s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		if err := RemoveDataset(ctx, ws, name); err != nil {
			return err
		}
		s.Local.Changed(ctx, ws)
		return nil
	})
}

// Refresh loads the dataset name's file again (keeping its name and its
// import options), with send getting the load's progress, and tells Local
// the list changed; a dataset imported from a connection runs its query
// there again (RefreshImport), with importProgress(connection) getting the
// import's progress. imported names that connection ("" for a file), so
// that its failure is shaped as an import's.
func (s *Session) Refresh(name string, send func(load.Progress),
	importProgress func(conn string, rowLimit int) func(remote.ImportProgress)) (imported string, err error) {
	err = s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		d, err := Dataset(ctx, ws, name)
		if err != nil {
			return err
		}
		if conn, ok := ImportedFrom(d); ok {
			imported = conn
			return s.RefreshImport(ctx, ws, d, importProgress(conn, int(d.MaxRows)))
		}
		if _, err := LoadFile(ctx, ws, d.Source, StoredText(d), send); err != nil {
			return err
		}
		s.Local.Changed(ctx, ws)
		return nil
	})
	return imported, err
}
