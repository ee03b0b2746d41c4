package sandbox

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// runnerPy runs the code inside the container (see runner.py).
//
//go:embed runner.py
var runnerPy string

// bootPy compiles the runner under the name "<loupe>", so that frames of
// its load() helper are not mistaken for the code's own.
const bootPy = "import sys; exec(compile(sys.argv.pop(1), '<loupe>', 'exec'))"

// trailerPrefix starts the runner's last line on stderr: how many files
// the run left ("\x1eloupe-files=N\n").
const trailerPrefix = "\x1eloupe-files="

// MaxCode is the longest code a run takes, in bytes (it travels as one
// command-line argument, which Linux caps at 128 KiB).
const MaxCode = 100 << 10

// ErrCodeTooLong is returned by Run for code longer than MaxCode.
var ErrCodeTooLong = fmt.Errorf("the code is longer than %d KB", MaxCode>>10)

// Session is one warm container, started on first use and reused by each
// Run; runs take turns. Close removes the container. It is safe for
// concurrent use.
type Session struct {
	sb       *Sandbox
	inputDir string

	mu       sync.Mutex // held for a whole run
	id       string     // the container; empty when none runs
	oomKills int        // the container's count of memory kills after the last run
	closed   bool
}

// NewSession returns a session whose runs see inputDir (a folder on the
// daemon's machine) read-only at /input. No container starts until Run.
func (s *Sandbox) NewSession(inputDir string) *Session {
	return &Session{sb: s, inputDir: inputDir}
}

// ErrClosed is returned by Run after Close.
var ErrClosed = errors.New("sandbox: the session is closed")

// Stop says why a run was stopped from outside; empty when it ended on
// its own.
type Stop string

// Reasons a run was stopped.
const (
	StopTimeout Stop = "timeout" // ran past Limits.Timeout
	StopFlood   Stop = "flood"   // printed more than Limits.FloodLimit
)

// Outcome is what one run did.
type Outcome struct {
	ExitCode int  `json:"exit_code"` // -1 when the run was stopped
	Stopped  Stop `json:"stopped,omitempty"`
	// OOMKilled is set when the kernel killed the code for using more
	// than Limits.Memory.
	OOMKilled bool          `json:"oom_killed,omitempty"`
	Stdout    Stream        `json:"stdout"`
	Stderr    Stream        `json:"stderr"`
	Elapsed   time.Duration `json:"elapsed"`
	Cold      bool          `json:"cold"` // the container was started for this run
	Files     []File        `json:"files,omitempty"`
	// Skipped names output files left out, with why ("big.bin: over 20 files").
	Skipped []string `json:"skipped,omitempty"`
	// Recycled is set when the container was removed after the run
	// (stopped, or processes left running); the next run starts a new one.
	Recycled bool `json:"recycled,omitempty"`
}

// Stream is what a run printed on stdout or stderr: the start, and when
// it was long the end, with the count of bytes between them left out.
type Stream struct {
	Head    string `json:"head"`
	Tail    string `json:"tail,omitempty"`
	Dropped int64  `json:"dropped,omitempty"`
	Total   int64  `json:"total"`
}

// String is the stream with a marker where bytes were left out.
func (s Stream) String() string {
	if s.Dropped <= 0 {
		return s.Head + s.Tail
	}
	return fmt.Sprintf("%s\n[… %d bytes left out …]\n%s", s.Head, s.Dropped, s.Tail)
}

// Run runs code in the session's container, starting it if needed. A run
// that fails, times out or is killed for memory is an Outcome, not an
// error; errors are for the sandbox itself (*UnavailableError when Docker
// or the image is missing), ErrCodeTooLong, ErrClosed, and ctx.Err() when
// ctx ends — the run is then killed, within a second.
func (se *Session) Run(ctx context.Context, code string) (*Outcome, error) {
	if len(code) > MaxCode {
		return nil, ErrCodeTooLong
	}
	se.mu.Lock()
	defer se.mu.Unlock()
	if se.closed {
		return nil, ErrClosed
	}
	start := time.Now()
	cold := false
	for attempt := 0; ; attempt++ {
		if se.id == "" {
			id, err := se.sb.start(ctx, se.inputDir)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return nil, err
			}
			se.id, cold = id, true
		}
		res, err := se.sb.cli.ExecCreate(ctx, se.id, client.ExecCreateOptions{
			User: User, WorkingDir: OutputDir, Env: env,
			AttachStdout: true, AttachStderr: true,
			// -I ignores PYTHON* variables and the user site; -u keeps
			// output unbuffered, so a killed run still shows what it
			// printed; -B writes no .pyc (the root is read-only anyway).
			Cmd: []string{"python3", "-I", "-u", "-B", "-c", bootPy, runnerPy, code},
		})
		var out *Outcome
		if err == nil {
			out, err = se.exec(ctx, res.ID)
			if err == nil {
				out.Cold = cold
				out.Elapsed = time.Since(start)
				return out, nil
			}
			if !errors.Is(err, errNotStarted) {
				return nil, err
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// The container died (its init was killed from outside, or the
		// daemon restarted), before or as the run started: the code did
		// not run. Start a new container, once.
		if attempt > 0 {
			se.recycle()
			return nil, se.sb.wrap("start the run", err)
		}
		se.sb.log.Info("the sandbox container had stopped; starting a new one for the run", "id", short(se.id), "err", err)
		se.recycle()
	}
}

// errNotStarted means the run's process never started: the container had
// stopped by the time the daemon started it.
var errNotStarted = errors.New("the sandbox container stopped before the run started")

// exec attaches to execID, enforces the limits while it runs, and
// gathers what it left behind.
func (se *Session) exec(ctx context.Context, execID string) (*Outcome, error) {
	sb := se.sb
	att, err := sb.cli.ExecAttach(ctx, execID, client.ExecAttachOptions{})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !se.running(ctx) {
			return nil, fmt.Errorf("%w: %w", errNotStarted, err)
		}
		return nil, sb.wrap("attach to the run", err)
	}
	defer att.Close()
	fl := newFlood(sb.limits.FloodLimit)
	stdout := newStream(sb.limits.StreamHead, sb.limits.StreamTail, fl)
	stderr := newStream(sb.limits.StreamHead, sb.limits.StreamTail, fl)
	copied := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(stdout, stderr, att.Reader)
		copied <- err
	}()
	timer := time.NewTimer(sb.limits.Timeout)
	defer timer.Stop()
	out := &Outcome{ExitCode: -1}
	var (
		stopErr error
		exited  = -1 // the exit status, once seen
	)
	select {
	case err := <-copied:
		if err != nil {
			sb.log.Debug("read the run's output", "err", err)
		}
		// The streams end when the process closes them, which is usually
		// when it exits; wait for the exit itself, within the limits.
		exited, out.Stopped, stopErr = se.waitExit(ctx, execID, timer.C)
	case <-timer.C:
		out.Stopped = StopTimeout
	case <-fl.hit:
		out.Stopped = StopFlood
	case <-ctx.Done():
		stopErr = ctx.Err()
	}
	if out.Stopped != "" || stopErr != nil {
		// Killing the container stops every process in it at once; the
		// next run starts a fresh one.
		se.recycle()
		att.Close()
		<-copied
		out.Recycled = true
	}
	out.Stdout = streamOf(stdout)
	out.Stderr = streamOf(stderr)
	if stopErr != nil {
		return nil, stopErr
	}
	if out.Stopped != "" {
		return out, nil
	}
	// The bookkeeping below must finish even if ctx ends now: the run is
	// over and its files are in the container.
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if exited < 0 {
		ins, err := sb.cli.ExecInspect(bctx, execID, client.ExecInspectOptions{})
		if err != nil {
			se.recycle()
			return nil, sb.wrap("read the run's exit status", err)
		}
		exited = ins.ExitCode
	}
	if exited == execNotStarted && !se.running(bctx) {
		return nil, fmt.Errorf("%w (exit status %d): %s", errNotStarted, exited, strings.TrimSpace(out.Stdout.String()+out.Stderr.String()))
	}
	out.ExitCode = exited
	files, finished := takeTrailer(&out.Stderr)
	if finished && files == 0 {
		// The runner ran to its end and saw no files: nothing to collect.
		if !se.clean(bctx) {
			se.recycle()
			out.Recycled = true
		}
		return out, nil
	}
	var oom int
	out.Files, out.Skipped, oom, err = se.collect(bctx)
	if oom >= 0 {
		// The kernel kills the biggest process when the memory limit is
		// hit; it shows as SIGKILL (137) with the count gone up.
		out.OOMKilled = out.ExitCode == 137 && oom > se.oomKills
		se.oomKills = oom
	}
	if err != nil {
		se.recycle()
		out.Recycled = true
		out.Skipped = append(out.Skipped, "the output folder could not be read: "+err.Error())
	}
	if !out.Recycled && !se.clean(bctx) {
		se.recycle()
		out.Recycled = true
	}
	return out, nil
}

// takeTrailer removes the runner's last line from stderr and returns the
// file count it gives; ok is false when the runner did not reach its end
// (killed, or the code called os._exit).
func takeTrailer(s *Stream) (files int, ok bool) {
	text := &s.Tail
	if s.Dropped <= 0 {
		s.Head, s.Tail = s.Head+s.Tail, ""
		text = &s.Head
	}
	i := strings.LastIndex(*text, trailerPrefix)
	if i < 0 || !strings.HasSuffix(*text, "\n") {
		return 0, false
	}
	n, err := strconv.Atoi((*text)[i+len(trailerPrefix) : len(*text)-1])
	if err != nil {
		return 0, false
	}
	s.Total -= int64(len(*text) - i)
	*text = (*text)[:i]
	return n, true
}

// waitExit waits until exec execID has exited, checking every 50 ms, and
// returns its exit status (-1 when it could not be read), or stops when
// the timeout fires (StopTimeout) or ctx ends (its error).
func (se *Session) waitExit(ctx context.Context, execID string, timeout <-chan time.Time) (int, Stop, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		ins, err := se.sb.cli.ExecInspect(ctx, execID, client.ExecInspectOptions{})
		switch {
		case ctx.Err() != nil:
			return -1, "", ctx.Err()
		case err != nil:
			return -1, "", nil // read again, and reported, after the run
		case !ins.Running:
			return ins.ExitCode, "", nil
		}
		select {
		case <-tick.C:
		case <-timeout:
			return -1, StopTimeout, nil
		case <-ctx.Done():
			return -1, "", ctx.Err()
		}
	}
}

func streamOf(s *stream) Stream {
	h, t, d := s.text()
	return Stream{Head: h, Tail: t, Dropped: d, Total: s.total}
}

// recycle kills and removes the container; the next run starts another.
func (se *Session) recycle() {
	if se.id == "" {
		return
	}
	se.sb.kill(se.id)
	se.sb.remove(se.id)
	se.id, se.oomKills = "", 0
}

// execNotStarted is the exit status the daemon gives an exec it could not
// start (runc's "cannot exec in a stopped state").
const execNotStarted = 126

// running reports whether the session's container is running.
func (se *Session) running(ctx context.Context) bool {
	ins, err := se.sb.cli.ContainerInspect(ctx, se.id, client.ContainerInspectOptions{})
	return err == nil && ins.Container.State != nil && ins.Container.State.Running
}

// clean reports whether only the container's init is left running: a run
// that leaves processes behind (a fork bomb, a daemon) gets the container
// recycled rather than sharing it with the next run.
func (se *Session) clean(ctx context.Context) bool {
	top, err := se.sb.cli.ContainerTop(ctx, se.id, client.ContainerTopOptions{})
	if err != nil {
		se.sb.log.Debug("list the container's processes", "err", err)
		return false
	}
	return len(top.Processes) == 1
}

// Close removes the session's container. Runs after it fail with
// ErrClosed.
func (se *Session) Close(ctx context.Context) error {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.closed = true
	se.recycle()
	return nil
}

func isNotFound(err error) bool {
	if err == nil {
		return false
	}
	return strings.Contains(strings.ToLower(err.Error()), "no such container") || isErrNotFound(err)
}
