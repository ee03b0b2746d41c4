package sandbox

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"
)

// initPy is the container's first process: it copies matplotlib's font
// cache (built into the image) to the writable /tmp, then reaps orphaned
// processes for ever. As the namespace's init it cannot be killed from
// inside (the kernel drops signals it has no handler for).
const initPy = `import os, shutil, signal
try:
    shutil.copytree("/opt/loupe/mpl", "/tmp/mpl", dirs_exist_ok=True)
except OSError:
    os.makedirs("/tmp/mpl", exist_ok=True)
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
while True:
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass
    signal.sigwait([signal.SIGCHLD])
`

// shmSize caps the container's private /dev/shm, which Python's
// multiprocessing needs for its locks; it counts against the memory limit.
const shmSize = 16 << 20

// env is every process's environment in the container.
var env = []string{
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"HOME=" + TmpDir,
	"MPLCONFIGDIR=/tmp/mpl",
	"MPLBACKEND=Agg",
	"LANG=C.UTF-8",
	"LOUPE_INPUT_DIR=" + InputDir,
	"LOUPE_OUTPUT_DIR=" + OutputDir,
}

// containerConfig is the locked configuration of a session's container.
func (s *Sandbox) containerConfig(inputDir string) (*container.Config, *container.HostConfig) {
	l := s.limits
	cfg := &container.Config{
		Image:           s.image,
		User:            User,
		Cmd:             []string{"python3", "-I", "-S", "-c", initPy},
		Env:             env,
		WorkingDir:      OutputDir,
		NetworkDisabled: true,
		Labels: map[string]string{
			LabelSandbox: "1",
			LabelOwner:   s.owner,
		},
	}
	tmpfs := func(size int64) string {
		return "rw,nosuid,nodev,noexec,size=" + strconv.FormatInt(size, 10) + ",uid=1000,gid=1000,mode=0700"
	}
	host := &container.HostConfig{
		NetworkMode:    "none",
		ReadonlyRootfs: true,
		CapDrop:        []string{"ALL"},
		SecurityOpt:    []string{"no-new-privileges"},
		IpcMode:        "private",
		ShmSize:        shmSize, // /dev/shm: multiprocessing's semaphores
		LogConfig:      container.LogConfig{Type: "none"},
		Tmpfs: map[string]string{
			TmpDir:    tmpfs(l.TmpSize),
			OutputDir: tmpfs(l.OutputSize),
		},
		Mounts: []mount.Mount{{Type: mount.TypeBind, Source: inputDir, Target: InputDir, ReadOnly: true}},
		Resources: container.Resources{
			Memory:     l.Memory,
			MemorySwap: l.Memory, // no swap on top
			NanoCPUs:   int64(l.CPUs * 1e9),
			PidsLimit:  &l.Pids,
			Ulimits: []*container.Ulimit{
				{Name: "core", Soft: 0, Hard: 0},
				{Name: "nofile", Soft: 1024, Hard: 1024},
			},
		},
	}
	return cfg, host
}

// start creates and starts a container for a session whose inputs are in
// inputDir, and returns its id.
func (s *Sandbox) start(ctx context.Context, inputDir string) (string, error) {
	cfg, host := s.containerConfig(inputDir)
	res, err := s.cli.ContainerCreate(ctx, client.ContainerCreateOptions{Config: cfg, HostConfig: host})
	if err != nil {
		return "", s.wrap("create the sandbox container", err)
	}
	if _, err := s.cli.ContainerStart(ctx, res.ID, client.ContainerStartOptions{}); err != nil {
		s.remove(res.ID)
		return "", s.wrap("start the sandbox container", err)
	}
	s.log.Debug("container started", "id", short(res.ID))
	return res.ID, nil
}

// remove kills and removes container id. It runs even when the caller's
// context has ended, bounded by its own timeout.
func (s *Sandbox) remove(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := s.cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true}); err != nil && !isNotFound(err) {
		s.log.Warn("remove the sandbox container", "id", short(id), "err", err)
	}
}

// kill stops every process in container id at once.
func (s *Sandbox) kill(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.cli.ContainerKill(ctx, id, client.ContainerKillOptions{Signal: "KILL"}); err != nil && !isNotFound(err) {
		s.log.Debug("kill the sandbox container", "id", short(id), "err", err)
	}
}

// wrap turns a daemon error into an *UnavailableError when the daemon or
// image is the problem, or adds what was being done.
func (s *Sandbox) wrap(doing string, err error) error {
	if client.IsErrConnectionFailed(err) {
		reason, fix := daemonProblem(s.cli.DaemonHost(), err)
		return &UnavailableError{Reason: reason, Fix: fix, Err: err}
	}
	if isNotFound(err) {
		return &UnavailableError{Reason: "the sandbox image " + s.image + " is missing",
			Fix: "Run `loupe sandbox build`.", Err: err}
	}
	return fmt.Errorf("sandbox: %s: %w", doing, err)
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
