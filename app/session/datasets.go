package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/workspace"
)

// The dataset operations below belong in data/workspace (the owner of the
// catalog's invariants); they live here until it offers them.

func quoteIdent(s string) string { return duck.QuoteIdent(s) }

// ValidDatasetName is what a dataset may be named by the user: a plain
// SQL identifier, so that it can be typed in queries without quotes.
var ValidDatasetName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// objectKind is the DDL keyword of a dataset's storage.
func objectKind(d catalog.Dataset) string {
	if d.Storage == "view" {
		return "VIEW"
	}
	return "TABLE"
}

// InTransaction runs fn on the workspace's writer connection inside one
// transaction, rolled back when fn fails.
func InTransaction(ctx context.Context, ws *workspace.Workspace, fn func(c *duckdb.Conn) error) error {
	return ws.Engine.Write(ctx, func(c *duckdb.Conn) error {
		if err := duck.Exec(ctx, c, "BEGIN TRANSACTION"); err != nil {
			return err
		}
		if err := fn(c); err != nil {
			_ = duck.Exec(context.WithoutCancel(ctx), c, "ROLLBACK")
			return err
		}
		return duck.Exec(ctx, c, "COMMIT")
	})
}

// RenameDataset renames the table or view and its catalog record in one
// transaction. An unknown dataset is CodeNotFound; a name taken by another
// (in any case) is CodeInvalid. newName is not checked against
// ValidDatasetName: the caller does.
func RenameDataset(ctx context.Context, ws *workspace.Workspace, name, newName string) error {
	return InTransaction(ctx, ws, func(c *duckdb.Conn) error {
		d, err := catalog.GetOn(ctx, c, name)
		if errors.Is(err, catalog.ErrNotFound) {
			return &Error{Code: CodeNotFound, Message: fmt.Sprintf("No dataset is called %q.", name),
				Hint: "It may have been renamed or removed; the sidebar lists the datasets."}
		}
		if err != nil {
			return err
		}
		if newName == name {
			return nil
		}
		other, err := catalog.NameLike(ctx, c, newName)
		if err != nil {
			return err
		}
		if other != "" && other != name {
			return NewError(CodeInvalid, fmt.Sprintf("A dataset is already called %q.", other), "Choose another name.")
		}
		q := fmt.Sprintf("ALTER %s %s RENAME TO %s", objectKind(d), quoteIdent(name), quoteIdent(newName))
		if err := duck.Exec(ctx, c, q); err != nil {
			return fmt.Errorf("rename %s to %s: %w", name, newName, err)
		}
		if err := catalog.Delete(ctx, c, name); err != nil {
			return err
		}
		d.Name = newName
		return catalog.Put(ctx, c, d)
	})
}

// RemoveDataset drops the table or view and its record, then lets go of
// what only it used: the attached database file, the staged copy (never
// the user's file). An unknown dataset is CodeNotFound.
func RemoveDataset(ctx context.Context, ws *workspace.Workspace, name string) error {
	var (
		gone       catalog.Dataset
		stillUsed  bool
		attachUsed bool
	)
	err := InTransaction(ctx, ws, func(c *duckdb.Conn) error {
		d, err := catalog.GetOn(ctx, c, name)
		if errors.Is(err, catalog.ErrNotFound) {
			return &Error{Code: CodeNotFound, Message: fmt.Sprintf("No dataset is called %q.", name),
				Hint: "It may have been removed already."}
		}
		if err != nil {
			return err
		}
		gone = d
		stillUsed, attachUsed, err = catalog.Shares(ctx, c, d)
		if err != nil {
			return err
		}
		if err := duck.Exec(ctx, c, fmt.Sprintf("DROP %s IF EXISTS %s", objectKind(d), quoteIdent(name))); err != nil {
			return fmt.Errorf("remove %s: %w", name, err)
		}
		if err := catalog.Delete(ctx, c, name); err != nil {
			return err
		}
		return catalog.DropReader(ctx, c, d)
	})
	if err != nil {
		return err
	}
	if gone.Attach != "" && !attachUsed {
		err := ws.Engine.Write(ctx, func(c *duckdb.Conn) error {
			return duck.Exec(ctx, c, "DETACH DATABASE IF EXISTS "+quoteIdent(gone.Attach))
		})
		if err != nil {
			return fmt.Errorf("detach %s: %w", gone.Source, err)
		}
	}
	if gone.Staged != "" && !stillUsed && within(ws.Engine.ImportDir(), gone.Staged) {
		if err := os.Remove(gone.Staged); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("remove the staged copy of %s: %w", gone.Source, err)
		}
	}
	return nil
}

// within reports whether path is inside dir.
func within(dir, path string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
}
