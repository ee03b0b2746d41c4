package sandbox

import (
	"context"
	"os"
	"strconv"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// Cleanup removes sandbox containers that no live Loupe process owns: the
// ones a crashed or killed Loupe left behind on this machine, and stopped
// ones from anywhere. Containers of other running Loupe processes are
// left alone. Call it once at start; it returns how many it removed.
func (s *Sandbox) Cleanup(ctx context.Context) (int, error) {
	list, err := s.cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", LabelSandbox+"=1"),
	})
	if err != nil {
		return 0, s.wrap("list sandbox containers", err)
	}
	host, _ := os.Hostname()
	n := 0
	for _, c := range list.Items {
		if c.State == "running" && ownerAlive(c.Labels[LabelOwner], host) {
			continue
		}
		s.remove(c.ID)
		s.log.Info("removed a leftover sandbox container", "id", short(c.ID), "owner", c.Labels[LabelOwner])
		n++
	}
	return n, nil
}

// ownerAlive reports whether owner ("HOST/PID") may still be running: it
// is this process, or a process that exists on this host. Containers of
// other hosts (a shared daemon) are assumed alive.
func ownerAlive(owner, host string) bool {
	h, p, ok := strings.Cut(owner, "/")
	if !ok {
		return false
	}
	if h != host {
		return true
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return false
	}
	return pid == os.Getpid() || ProcessExists(pid)
}

func isErrNotFound(err error) bool { return cerrdefs.IsNotFound(err) }
