package session

import (
	"context"
	"errors"

	"github.com/loupeapp/loupe/app/status"
)

// CodeDocker is the code of an error from Docker: the daemon cannot be
// used, or the sandbox image's build failed.
const CodeDocker = "docker"

// SandboxBuildKey is the sandbox build's entry in Runs: one build at a
// time, stopped by Runs.Cancel(SandboxBuildKey).
const SandboxBuildKey = "sandbox:build"

// BuildSandbox builds the Python sandbox's Docker image on the daemon at
// host, as `loupe sandbox build` does (status.Build), handing progress
// reports to progress, and, once built, offers run_python to the next
// questions (Local.EnablePython). A second build while one runs is
// CodeBusy; a canceled one CodeCanceled; Docker that cannot be used, or
// a recipe that fails, CodeDocker with what to do.
func (s *Session) BuildSandbox(ctx context.Context, host string, offline bool, progress func(status.Progress)) (*status.Built, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !s.Runs.Add(SandboxBuildKey, cancel) {
		return nil, NewError(CodeBusy, "The sandbox image is already being built.", "Wait for it, or cancel it first.")
	}
	defer s.Runs.Remove(SandboxBuildKey)
	built, err := status.Build(ctx, host, offline, s.Log, progress)
	var de *status.DockerError
	switch {
	case err == nil:
		s.Local.EnablePython()
		return built, nil
	case ctx.Err() != nil:
		return nil, &Error{Code: CodeCanceled, Message: "The sandbox image build was canceled.", Hint: "Start it again when you are ready.", Err: err}
	case errors.As(err, &de):
		return nil, &Error{Code: CodeDocker, Message: de.Message, Hint: de.Hint, Err: err}
	}
	return nil, Wrap(err)
}
