package app

import (
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/app/status"
)

// EventSandboxBuild carries a SandboxProgress while the sandbox image builds.
const EventSandboxBuild = "sandbox:build"

// CodeDocker is the code of an error from Docker: the daemon cannot be
// used, or the sandbox image's build failed.
const CodeDocker = session.CodeDocker

// ActionBuildSandbox is the Check.Action of a Docker check whose daemon
// answers but whose sandbox image is missing (or was built by an older
// recipe): BuildSandbox fixes it.
const ActionBuildSandbox = status.ActionBuildSandbox

// Phases of a sandbox build, in SandboxProgress.Phase.
const (
	BuildStarting = status.BuildStarting // checking Docker
	BuildBuilding = status.BuildBuilding
	BuildDone     = status.BuildDone
	BuildFailed   = status.BuildFailed
	BuildCanceled = status.BuildCanceled
)

// SandboxProgress is a sandbox:build event: how far the build of the
// Python sandbox's image is (status.Progress).
type SandboxProgress status.Progress

// SandboxBuilt is what BuildSandbox made (status.Built).
type SandboxBuilt status.Built

// BuildSandbox builds the Python sandbox's Docker image, as `loupe sandbox
// build` does (status.Build), reporting sandbox:build events as it goes;
// it returns when the image is ready. The status is checked again then,
// and run_python is offered from the next question on. One build runs at a
// time (a second one is refused with code "busy"); CancelSandboxBuild
// stops it (code "canceled"). Docker that cannot be used, and a recipe
// that fails, give code "docker" with what to do.
func (a *App) BuildSandbox(offline bool) (*SandboxBuilt, error) {
	built, err := a.s.BuildSandbox(a.life, a.dockerHost(), offline, func(p status.Progress) {
		a.publish(EventSandboxBuild, SandboxProgress(p))
	})
	if err != nil {
		return nil, err
	}
	a.background(a.refreshStatus)
	return (*SandboxBuilt)(built), nil
}

// CancelSandboxBuild stops the sandbox build going on, if any; its
// BuildSandbox call then fails with code "canceled".
func (a *App) CancelSandboxBuild() error {
	a.s.Runs.Cancel(session.SandboxBuildKey)
	return nil
}
