package assemble

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/data/privacy"
)

// PrivateTargetError means a private mark names a table, or a column of a
// table, that is not there. Known lists what there is.
type PrivateTargetError struct {
	Table  string
	Column string // empty when the table is unknown
	Known  []string
}

func (e *PrivateTargetError) Error() string {
	if e.Column == "" {
		return fmt.Sprintf("no table is called %q (tables: %s)", e.Table, listSomeNames(e.Known, 12))
	}
	return fmt.Sprintf("%s has no column %q (its columns: %s)", e.Table, e.Column, listSomeNames(e.Known, 30))
}

func listSomeNames(names []string, n int) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// columnLister resolves every column of a workspace or connection.
type columnLister interface {
	Columns(ctx context.Context) ([]privacy.Column, error)
}

// findColumn returns the resolved column table.column (names matched
// ignoring case), or a *PrivateTargetError.
func findColumn(ctx context.Context, l columnLister, table, column string) (privacy.Column, error) {
	cs, err := l.Columns(ctx)
	if err != nil {
		return privacy.Column{}, err
	}
	var tables, cols []string
	seen := map[string]bool{}
	for _, c := range cs {
		if !seen[c.Table] {
			seen[c.Table] = true
			tables = append(tables, c.Table)
		}
		if strings.EqualFold(c.Table, table) {
			cols = append(cols, c.Column)
			if strings.EqualFold(c.Column, column) {
				return c, nil
			}
		}
	}
	if cols == nil {
		return privacy.Column{}, &PrivateTargetError{Table: table, Known: tables}
	}
	return privacy.Column{}, &PrivateTargetError{Table: table, Column: column, Known: cols}
}

// SetPrivate records the user's decision that table.column is private
// (on) or not, and returns the column as it now stands.
func (w WorkspacePrivate) SetPrivate(ctx context.Context, table, column string, on bool) (privacy.Column, error) {
	return setPrivate(ctx, w, w.WS.Engine.Dir(), table, column, on)
}

// SetPrivate records the user's decision on a connection's column.
func (rp RemotePrivate) SetPrivate(ctx context.Context, table, column string, on bool) (privacy.Column, error) {
	if rp.Dir == "" {
		return privacy.Column{}, fmt.Errorf("connection %s has no folder to keep private columns in", rp.R.Name)
	}
	return setPrivate(ctx, rp, rp.Dir, table, column, on)
}

func setPrivate(ctx context.Context, l columnLister, dir, table, column string, on bool) (privacy.Column, error) {
	c, err := findColumn(ctx, l, table, column)
	if err != nil {
		return privacy.Column{}, err
	}
	if err := privacy.Decide(dir, privacy.Decision{Table: c.Table, Column: c.Column, Private: on}); err != nil {
		return privacy.Column{}, err
	}
	return findColumn(ctx, l, c.Table, c.Column)
}

// TableColumns returns the columns of cs that belong to table (named
// ignoring case), or a *PrivateTargetError when there are none.
func TableColumns(cs []privacy.Column, table string) ([]privacy.Column, error) {
	var out []privacy.Column
	var tables []string
	seen := map[string]bool{}
	for _, c := range cs {
		if strings.EqualFold(c.Table, table) {
			out = append(out, c)
		}
		if !seen[c.Table] {
			seen[c.Table] = true
			tables = append(tables, c.Table)
		}
	}
	if out == nil {
		return nil, &PrivateTargetError{Table: table, Known: tables}
	}
	return out, nil
}
