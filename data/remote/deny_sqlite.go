package remote

// sqliteDeny are SQLite's functions that reach outside the database file:
// load_extension loads native code; readfile, writefile, fsdir and
// zipfile (the shell's fileio and zipfile extensions) touch files; edit
// starts an editor; fts3_tokenizer registers a native pointer. The file
// table functions are also refused as bare table names: SQLite reads an
// eponymous virtual table's arguments from its WHERE clause
// (SELECT * FROM fsdir WHERE name = '/etc').
var sqliteDeny = denyList{
	functions: merge(
		each(harmFiles, "readfile", "writefile", "fsdir", "lsdir", "zipfile"),
		each(harmPrograms, "load_extension", "edit", "fts3_tokenizer"),
	),
	relations: each(harmFiles, "fsdir", "lsdir", "zipfile"),
}
