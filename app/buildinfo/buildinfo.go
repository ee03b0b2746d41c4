// Package buildinfo owns the version of the running binary: the one
// answer `loupe --version`, Settings › About and a report's footer give.
package buildinfo

import "runtime/debug"

// version is the release this binary was built from, set at link time:
//
//	-ldflags "-X github.com/loupeapp/loupe/app/buildinfo.version=v1.2.3"
//
// The Makefile sets it from `git describe`.
var version string

// Version returns the link-time version when set, else the module version
// the Go toolchain recorded (`go install …@v1.2.3`), else "dev" (a build
// from a source tree without the Makefile's flags).
func Version() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}
