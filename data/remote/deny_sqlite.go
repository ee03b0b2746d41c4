package remote

// sqliteDeny are SQLite's functions that reach outside the database file:
// load_extension loads native code; readfile, writefile, fsdir and
// zipfile (the shell's fileio and zipfile extensions) touch files; edit
// starts an editor; fts3_tokenizer registers a native pointer.
var sqliteDeny = denyList{
	functions: merge(
		each(harmFiles, "readfile", "writefile", "fsdir", "lsdir", "zipfile"),
		each(harmPrograms, "load_extension", "edit", "fts3_tokenizer"),
	),
}
