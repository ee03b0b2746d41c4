package remote

import "strings"

// QuoteIdent quotes name as an identifier of kind's SQL: the one way
// Loupe puts a schema, table or column name of a connected database into
// SQL it builds for it. Names come from the database (a hostile one
// included): any name makes one identifier and cannot end the statement.
// MySQL and MariaDB quote with backticks (Loupe's sessions never set
// ANSI_QUOTES, under which "…" is a name), PostgreSQL and SQLite with
// double quotes; the quote inside is doubled. A NUL, which no engine takes
// in a name, becomes U+FFFD.
func QuoteIdent(k Kind, name string) string {
	name = strings.ReplaceAll(name, "\x00", "\uFFFD")
	if k == MySQL {
		return "`" + strings.ReplaceAll(name, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
