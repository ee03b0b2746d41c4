package app

import (
	"github.com/loupeapp/loupe/data/catalog"
)

// SetConnectionNote sets the user's note on a table of a saved connection
// and, for each column named in columns, the column's note (an empty text
// clears a note; columns not named keep theirs), as SetDatasetNote does
// for a dataset. table is named as ConnectionTables names it. The notes
// are kept beside the connection's schema (never in the database), kept
// when its schema is read again, and the agent searches and reads them, a
// note winning over the database's own comment. Errors: not_found for an
// unknown connection or table, invalid for an unknown column or a note
// over catalog.MaxNote characters, and then nothing changes; a db_* code
// when the database cannot be reached to read its tables.
func (a *App) SetConnectionNote(conn, table, note string, columns map[string]string) error {
	r, release, err := a.remote(a.life, conn)
	if err != nil {
		return err
	}
	defer release()
	return wrap(a.s.Conns.SetNote(a.life, r, table, catalog.Notes{Table: &note, Columns: columns}))
}
