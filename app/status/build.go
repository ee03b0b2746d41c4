package status

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/tools/python/sandbox"
)

// Phases of a sandbox build, in Progress.Phase.
const (
	BuildStarting = "starting" // checking Docker
	BuildBuilding = "building"
	BuildDone     = "done"
	BuildFailed   = "failed"
	BuildCanceled = "canceled"
)

// Progress is how far the build of the Python sandbox's image is.
type Progress struct {
	Phase   string  `json:"phase"`   // starting, building, then done, failed or canceled
	Percent float64 `json:"percent"` // 0–100, an estimate
	// Message says what the build does now ("Step 3/6: RUN pip install …"),
	// or how it ended.
	Message string `json:"message"`
	// Detail is the step's latest line of output, or the megabytes it
	// moved so far.
	Detail string `json:"detail,omitempty"`
}

// Built is what Build made.
type Built struct {
	Image     string `json:"image"`
	Recipe    string `json:"recipe"`   // "dockerfile" or "offline"
	Versions  string `json:"versions"` // "python=3.12 pandas=2.2.3 …"
	SizeBytes int64  `json:"sizeBytes"`
	ElapsedMS int64  `json:"elapsedMs"`
}

// DockerError is Docker that cannot be used, or a build that failed, with
// what to do.
type DockerError struct {
	Message, Hint string
	Err           error
}

func (e *DockerError) Error() string { return e.Message }
func (e *DockerError) Unwrap() error { return e.Err }

// every is the shortest gap between two progress reports of the same step.
const every = 100 * time.Millisecond

// Build builds the Python sandbox's Docker image at host, as `loupe
// sandbox build` does: from the embedded Dockerfile (needs Docker Hub and
// PyPI; about 2 minutes), or with offline from this machine's apt mirror
// (debootstrap; Linux, as root). It reports progress as it goes (at most
// one report every 100 ms of a step, every change of step, and always the
// end: done, failed or canceled) and returns when the image is ready.
// Docker that cannot be used, and a recipe that fails, are a *DockerError;
// a canceled ctx, its error.
func Build(ctx context.Context, host string, offline bool, log *slog.Logger, report func(Progress)) (*Built, error) {
	r := &reporter{report: report}
	built, err := build(ctx, host, offline, log, r)
	switch {
	case err == nil:
		r.final(BuildDone, fmt.Sprintf("Built %s (%d MB)", built.Image, built.SizeBytes>>20))
		return built, nil
	case ctx.Err() != nil:
		r.final(BuildCanceled, "The build was canceled.")
		return nil, ctx.Err()
	}
	var de *DockerError
	if errors.As(err, &de) {
		r.final(BuildFailed, de.Message)
	} else {
		r.final(BuildFailed, upperFirst(err.Error()))
	}
	return nil, err
}

func build(ctx context.Context, host string, offline bool, log *slog.Logger, r *reporter) (*Built, error) {
	r.send(Progress{Phase: BuildStarting, Message: "Checking Docker…"}, true)
	sb, err := sandbox.New(sandbox.Config{Host: host, Logger: log})
	if err != nil {
		return nil, &DockerError{Message: "Docker cannot be used: " + err.Error(),
			Hint: "Python analysis needs Docker; everything else works without it.", Err: err}
	}
	defer sb.Close()
	if st := sb.Check(ctx); !st.OK && st.DockerVersion == "" {
		return nil, &DockerError{Message: upperFirst(st.Reason) + ".", Hint: st.Fix, Err: st.Err()}
	}
	res, err := sb.Build(ctx, sandbox.BuildOptions{Offline: offline}, r.progress)
	if err != nil {
		return nil, buildError(err)
	}
	return &Built{Image: res.Image, Recipe: res.Kind, Versions: res.Versions, SizeBytes: res.Size, ElapsedMS: res.Elapsed.Milliseconds()}, nil
}

// buildError says what failed in a build.
func buildError(err error) error {
	var be *sandbox.BuildError
	var ue *sandbox.UnavailableError
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.As(err, &be):
		return &DockerError{Message: fmt.Sprintf("The sandbox image build failed at %q: %s", be.Step, be.Msg), Hint: be.Fix, Err: err}
	case errors.As(err, &ue):
		return &DockerError{Message: upperFirst(ue.Reason) + ".", Hint: ue.Fix, Err: err}
	}
	return &DockerError{Message: "The sandbox image build failed: " + err.Error(),
		Hint: "Check that Docker works (`docker info`), then try again; `loupe sandbox build` shows the whole output.", Err: err}
}

// reporter turns the builder's progress into reports: at most one every
// `every`, and always when the step changes.
type reporter struct {
	report func(Progress)

	mu   sync.Mutex
	last Progress
	at   time.Time
}

func (r *reporter) progress(p sandbox.Progress) {
	frac := p.Fraction
	if p.Step > 0 && p.Steps > 0 && p.Total > 0 {
		// The Dockerfile recipe's estimate moves only from step to step;
		// within a step the bytes downloaded move it too. (The offline
		// recipe counts its bytes already, and is further along.)
		frac = max(frac, (float64(p.Step-1)+float64(p.Bytes)/float64(p.Total))/float64(p.Steps))
	}
	ev := Progress{Phase: BuildBuilding, Percent: min(100, max(0, 100*frac)), Message: strings.TrimSpace(p.Title), Detail: p.Line}
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

// send reports ev unless it comes too soon after the last one of the same
// step (always when force).
func (r *reporter) send(ev Progress, force bool) {
	r.mu.Lock()
	if !force && ev.Phase == r.last.Phase && ev.Message == r.last.Message && time.Since(r.at) < every {
		r.mu.Unlock()
		return
	}
	r.last, r.at = ev, time.Now()
	r.mu.Unlock()
	r.report(ev)
}

// final reports how the build ended.
func (r *reporter) final(phase, message string) {
	r.mu.Lock()
	pct := r.last.Percent
	r.mu.Unlock()
	if phase == BuildDone {
		pct = 100
	}
	r.send(Progress{Phase: phase, Percent: pct, Message: message}, true)
}
