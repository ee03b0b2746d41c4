//go:build !linux

package sandbox

import "context"

// buildOffline needs debootstrap, which only runs on Linux.
func (s *Sandbox) buildOffline(context.Context, BuildOptions, func(Progress)) (BuildResult, error) {
	return BuildResult{}, &BuildError{Step: "start", Msg: "the offline recipe needs Linux (debootstrap)",
		Fix: "Build with internet instead: `loupe sandbox build`."}
}
