package sqlite

import "github.com/loupeapp/loupe/data/guard"

// refused turns SQLite's read-only error into a refusal.
func refused(err error) error {
	return &guard.RefusedError{Reason: "SQLite refused it: the file is open read-only (" + err.Error() + "); Loupe only reads data"}
}
