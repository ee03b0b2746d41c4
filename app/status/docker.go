package status

import (
	"context"
	"runtime"
	"strings"

	"github.com/loupeapp/loupe/tools/python/sandbox"
)

// ActionBuildSandbox is the Check.Action of a Docker check whose daemon
// answers but whose sandbox image is missing (or was built by an older
// recipe): Build fixes it.
const ActionBuildSandbox = "build_sandbox"

// DockerHost is the Docker daemon to use: override when set, else
// $DOCKER_HOST, else the platform's default socket.
func DockerHost(override string, getenv func(string) string) string {
	if override != "" {
		return override
	}
	if h := getenv("DOCKER_HOST"); h != "" {
		return h
	}
	if runtime.GOOS == "windows" {
		return "npipe:////./pipe/docker_engine"
	}
	return "unix:///var/run/docker.sock"
}

// CheckDocker checks what run_python needs: the Docker daemon at host and
// the sandbox image (tools/python/sandbox says why not and how to fix it).
// Nothing else in Loupe needs Docker.
func CheckDocker(ctx context.Context, host string) Check {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sb, err := sandbox.New(sandbox.Config{Host: host})
	if err != nil {
		return Check{Message: "Docker at " + host + " cannot be used: " + err.Error(), Hint: "Python analysis needs Docker; everything else works without it."}
	}
	defer sb.Close()
	st := sb.Check(ctx)
	switch {
	case !st.OK && st.DockerVersion != "" && !strings.HasPrefix(st.Reason, "Docker"):
		// Docker answers (its own problems, such as Windows containers,
		// are said "Docker …"): the image is missing.
		return Check{Message: "Docker is running, but " + st.Reason, Action: ActionBuildSandbox,
			Hint: "Build the sandbox image (about 2 minutes with internet), or run `loupe sandbox build`. Python analysis needs it; everything else works without it."}
	case !st.OK:
		return Check{Message: st.Reason, Hint: st.Fix}
	case st.Stale:
		return Check{OK: true, Message: "Docker is running and the Python sandbox is ready (" + st.Image + ", built by an older recipe)",
			Hint: "Rebuild the sandbox image to bring it up to date.", Action: ActionBuildSandbox}
	}
	return Check{OK: true, Message: "Docker is running and the Python sandbox is ready (" + st.Image + ")"}
}
