//go:build !unix

package remotetest

import "os"

// The test servers run on Unix only (scripts/dbservers.sh).
func lockShared(*os.File) error    { return nil }
func lockExclusive(*os.File) error { return nil }
func unlock(*os.File) error        { return nil }
