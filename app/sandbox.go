package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/tools/python/sandbox"
)

// EventSandboxBuild carries a SandboxProgress while the sandbox image builds.
const EventSandboxBuild = "sandbox:build"

// CodeDocker is the code of an error from Docker: the daemon cannot be
// used, or the sandbox image's build failed.
const CodeDocker = "docker"

// ActionBuildSandbox is the Check.Action of a Docker check whose daemon
// answers but whose sandbox image is missing (or was built by an older
// recipe): BuildSandbox fixes it.
const ActionBuildSandbox = "build_sandbox"

// Phases of a sandbox build, in SandboxProgress.Phase.
const (
	BuildStarting = "starting" // checking Docker
	BuildBuilding = "building"
	BuildDone     = "done"
	BuildFailed   = "failed"
	BuildCanceled = "canceled"
)

// SandboxProgress is a sandbox:build event: how far the build of the
// Python sandbox's image is.
type SandboxProgress struct {
	Phase   string  `json:"phase"`   // starting, building, then done, failed or canceled
	Percent float64 `json:"percent"` // 0–100, an estimate
	// Message says what the build does now ("Step 3/6: RUN pip install …"),
	// or how it ended.
	Message string `json:"message"`
	// Detail is the step's latest line of output, or the megabytes it
	// moved so far.
	Detail string `json:"detail,omitempty"`
}

// SandboxBuilt is what BuildSandbox made.
type SandboxBuilt struct {
	Image     string `json:"image"`
	Recipe    string `json:"recipe"`   // "dockerfile" or "offline"
	Versions  string `json:"versions"` // "python=3.12 pandas=2.2.3 …"
	SizeBytes int64  `json:"sizeBytes"`
	ElapsedMS int64  `json:"elapsedMs"`
}

// sandboxBuildKey is the sandbox build's entry in the run registry: one
// build at a time, canceled by CancelSandboxBuild.
const sandboxBuildKey = "sandbox:build"

// sandboxEvery is the shortest gap between two sandbox:build events of the
// same step.
const sandboxEvery = 100 * time.Millisecond

// BuildSandbox builds the Python sandbox's Docker image, as `loupe sandbox
// build` does: from the embedded Dockerfile (needs Docker Hub and PyPI;
// about 2 minutes), or with offline from this machine's apt mirror
// (debootstrap; Linux, as root). It reports sandbox:build events as it
// goes and returns when the image is ready; the status is checked again
// then, and run_python is offered from the next question on. One build
// runs at a time (a second one is refused with code "busy");
// CancelSandboxBuild stops it (code "canceled"). Docker that cannot be
// used, and a recipe that fails, give code "docker" with what to do.
func (a *App) BuildSandbox(offline bool) (*SandboxBuilt, error) {
	ctx, cancel := context.WithCancel(a.life)
	defer cancel()
	if !a.runs.add(sandboxBuildKey, cancel) {
		return nil, newError(CodeBusy, "The sandbox image is already being built.", "Wait for it, or cancel it first.")
	}
	defer a.runs.remove(sandboxBuildKey)
	pr := &buildReporter{publish: a.publish}
	built, err := a.buildSandbox(ctx, offline, pr)
	switch {
	case err == nil:
		pr.final(BuildDone, fmt.Sprintf("Built %s (%d MB)", built.Image, built.SizeBytes>>20))
		a.ws.enablePython(a.life)
		a.background(a.refreshStatus)
		return built, nil
	case ctx.Err() != nil:
		pr.final(BuildCanceled, "The build was canceled.")
		return nil, &Error{Code: CodeCanceled, Message: "The sandbox image build was canceled.", Hint: "Start it again when you are ready.", Err: err}
	}
	e := AsError(err)
	pr.final(BuildFailed, e.Message)
	return nil, e
}

// CancelSandboxBuild stops the sandbox build going on, if any; its
// BuildSandbox call then fails with code "canceled".
func (a *App) CancelSandboxBuild() error {
	a.runs.cancel(sandboxBuildKey)
	return nil
}

func (a *App) buildSandbox(ctx context.Context, offline bool, pr *buildReporter) (*SandboxBuilt, error) {
	pr.send(SandboxProgress{Phase: BuildStarting, Message: "Checking Docker…"}, true)
	sb, err := sandbox.New(sandbox.Config{Host: a.dockerHost(), Logger: a.log})
	if err != nil {
		return nil, &Error{Code: CodeDocker, Message: "Docker cannot be used: " + err.Error(),
			Hint: "Python analysis needs Docker; everything else works without it.", Err: err}
	}
	defer sb.Close()
	if st := sb.Check(ctx); !st.OK && st.DockerVersion == "" {
		return nil, &Error{Code: CodeDocker, Message: capitalize(st.Reason) + ".", Hint: st.Fix, Err: st.Err()}
	}
	res, err := sb.Build(ctx, sandbox.BuildOptions{Offline: offline}, pr.progress)
	if err != nil {
		return nil, buildError(err)
	}
	return &SandboxBuilt{Image: res.Image, Recipe: res.Kind, Versions: res.Versions, SizeBytes: res.Size, ElapsedMS: res.Elapsed.Milliseconds()}, nil
}

// buildError shapes a failed build for the frontend.
func buildError(err error) error {
	var be *sandbox.BuildError
	var ue *sandbox.UnavailableError
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.As(err, &be):
		return &Error{Code: CodeDocker, Message: fmt.Sprintf("The sandbox image build failed at %q: %s", be.Step, be.Msg), Hint: be.Fix, Err: err}
	case errors.As(err, &ue):
		return &Error{Code: CodeDocker, Message: capitalize(ue.Reason) + ".", Hint: ue.Fix, Err: err}
	}
	return &Error{Code: CodeDocker, Message: "The sandbox image build failed: " + err.Error(),
		Hint: "Check that Docker works (`docker info`), then try again; `loupe sandbox build` shows the whole output.", Err: err}
}

// buildReporter turns the builder's progress into sandbox:build events:
// at most one every sandboxEvery, and always when the step changes.
type buildReporter struct {
	publish func(name string, data any)

	mu   sync.Mutex
	last SandboxProgress
	at   time.Time
}

func (r *buildReporter) progress(p sandbox.Progress) {
	frac := p.Fraction
	if p.Step > 0 && p.Steps > 0 && p.Total > 0 {
		// The Dockerfile recipe's estimate moves only from step to step;
		// within a step the bytes downloaded move it too. (The offline
		// recipe counts its bytes already, and is further along.)
		frac = max(frac, (float64(p.Step-1)+float64(p.Bytes)/float64(p.Total))/float64(p.Steps))
	}
	ev := SandboxProgress{Phase: BuildBuilding, Percent: min(100, max(0, 100*frac)), Message: strings.TrimSpace(p.Title), Detail: p.Line}
	if p.Step > 0 && p.Steps > 0 {
		head := fmt.Sprintf("Step %d/%d", p.Step, p.Steps)
		ev.Message = head + ": " + ev.Message
		if strings.HasPrefix(ev.Detail, head) { // the builder's own line for the step: said already
			ev.Detail = ""
		}
	}
	if p.Total > 0 {
		ev.Detail = fmt.Sprintf("%d of %d MB", p.Bytes>>20, p.Total>>20)
	}
	r.send(ev, false)
}

// send publishes ev unless it comes too soon after the last one of the
// same step (always when force).
func (r *buildReporter) send(ev SandboxProgress, force bool) {
	r.mu.Lock()
	if !force && ev.Phase == r.last.Phase && ev.Message == r.last.Message && time.Since(r.at) < sandboxEvery {
		r.mu.Unlock()
		return
	}
	r.last, r.at = ev, time.Now()
	r.mu.Unlock()
	r.publish(EventSandboxBuild, ev)
}

// final publishes how the build ended.
func (r *buildReporter) final(phase, message string) {
	r.mu.Lock()
	pct := r.last.Percent
	r.mu.Unlock()
	if phase == BuildDone {
		pct = 100
	}
	r.send(SandboxProgress{Phase: phase, Percent: pct, Message: message}, true)
}

// enablePython offers run_python in the open workspace when it was not
// offered yet (the image was missing when the workspace opened).
func (h *wsHolder) enablePython(ctx context.Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ws == nil || h.closed || h.python != nil {
		return
	}
	h.python, h.closePy = pythonTool(ctx, h.ws)
}

// capitalize upper-cases the first letter of s (the sandbox's reasons
// start in lower case, made to follow other words).
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
