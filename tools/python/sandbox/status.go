package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// ErrUnavailable is matched (errors.Is) by every *UnavailableError.
var ErrUnavailable = errors.New("the Python sandbox is not available")

// UnavailableError says why the sandbox cannot run, and how to fix it.
type UnavailableError struct {
	Reason string // "Docker is not running"
	Fix    string // "Start Docker Desktop (or `sudo systemctl start docker`)."
	Err    error  // the underlying error, if any
}

func (e *UnavailableError) Error() string { return e.Reason + " — " + e.Fix }

// Is makes errors.Is(err, ErrUnavailable) true.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

func (e *UnavailableError) Unwrap() error { return e.Err }

// Status is what Check found.
type Status struct {
	OK            bool   `json:"ok"`
	Reason        string `json:"reason,omitempty"` // why not OK
	Fix           string `json:"fix,omitempty"`    // how to make it OK
	Host          string `json:"host"`
	DockerVersion string `json:"docker_version,omitempty"`
	Image         string `json:"image"`
	ImageID       string `json:"image_id,omitempty"`
	ImageSize     int64  `json:"image_size,omitempty"`
	Kind          string `json:"kind,omitempty"`     // recipe the image was built from
	Versions      string `json:"versions,omitempty"` // "python=3.11.2 pandas=1.5.3 …"
	Formats       string `json:"formats,omitempty"`  // input formats the image reads
	// Stale is set when the image was built from another recipe than the
	// one this Loupe embeds; it still runs, a rebuild brings it up to date.
	Stale bool `json:"stale,omitempty"`
}

// Err is nil when the status is OK, else an *UnavailableError.
func (st Status) Err() error {
	if st.OK {
		return nil
	}
	return &UnavailableError{Reason: st.Reason, Fix: st.Fix}
}

// checkTimeout bounds each call Check makes.
const checkTimeout = 3 * time.Second

// Check reports whether the daemon answers and the image is present, with
// a reason and a fix when not.
func (s *Sandbox) Check(ctx context.Context) Status {
	st := Status{Host: s.cli.DaemonHost(), Image: s.image}
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	v, err := s.cli.ServerVersion(cctx, client.ServerVersionOptions{})
	if err != nil {
		st.Reason, st.Fix = daemonProblem(st.Host, err)
		return st
	}
	st.DockerVersion = v.Version
	if v.Os != "" && v.Os != "linux" {
		st.Reason = "Docker runs " + v.Os + " containers"
		st.Fix = "Switch Docker Desktop to Linux containers."
		return st
	}
	img, err := s.cli.ImageInspect(cctx, s.image)
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			st.Reason = "the sandbox image " + s.image + " is not built yet"
			st.Fix = "Run `loupe sandbox build` (about 2 minutes with internet; `loupe sandbox build --offline` builds from this machine's apt mirror)."
			return st
		}
		st.Reason, st.Fix = daemonProblem(st.Host, err)
		return st
	}
	st.OK = true
	st.ImageID = img.ID
	st.ImageSize = img.Size
	if img.Config != nil {
		l := img.Config.Labels
		st.Kind, st.Versions, st.Formats = l[LabelKind], l[LabelVersions], l[LabelFormats]
		if r := l[LabelRecipe]; r != "" && r != RecipeHash(st.Kind) {
			st.Stale = true
		}
	}
	return st
}

// daemonProblem explains an error talking to the daemon at host.
func daemonProblem(host string, err error) (reason, fix string) {
	msg := err.Error()
	switch {
	case client.IsErrConnectionFailed(err), errors.Is(err, os.ErrNotExist), strings.Contains(msg, "connection refused"),
		strings.Contains(msg, "no such file or directory"):
		return "Docker is not running (nothing answers at " + host + ")", startDockerFix()
	case errors.Is(err, os.ErrPermission) || strings.Contains(msg, "permission denied"):
		return "Loupe may not use Docker at " + host + " (permission denied)",
			"Add your user to the docker group (`sudo usermod -aG docker $USER`, then log in again), or use rootless Docker."
	case errors.Is(err, context.DeadlineExceeded):
		return "Docker does not answer at " + host, "Restart Docker; if it is starting, wait until it is ready."
	}
	return fmt.Sprintf("Docker at %s failed: %v", host, err), "Check that Docker works (`docker info`), then try again."
}

func startDockerFix() string {
	switch runtime.GOOS {
	case "darwin", "windows":
		return "Start Docker Desktop, wait until it says it is running, then try again. Everything but Python analysis works without it."
	}
	return "Start Docker (`sudo systemctl start docker`), or set DOCKER_HOST to a running daemon. Everything but Python analysis works without it."
}
