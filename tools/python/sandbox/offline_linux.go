//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/moby/moby/client"
)

// buildOffline runs recipe/offline.sh (debootstrap, then a tar of the
// root filesystem on its stdout) and streams the tar into docker import.
func (s *Sandbox) buildOffline(ctx context.Context, o BuildOptions, progress func(Progress)) (BuildResult, error) {
	if os.Geteuid() != 0 {
		return BuildResult{}, &BuildError{Step: "start", Msg: "the offline recipe needs root (debootstrap and chroot)",
			Fix: "Run `sudo loupe sandbox build --offline`, or build with internet: `loupe sandbox build`."}
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		return BuildResult{}, &BuildError{Step: "start", Msg: "debootstrap is not installed",
			Fix: "Install it (`sudo apt-get install debootstrap`), then try again."}
	}
	work, err := os.MkdirTemp(o.WorkDir, "loupe-rootfs-")
	if err != nil {
		return BuildResult{}, fmt.Errorf("sandbox: scratch folder for the offline build: %w", err)
	}
	defer removeWork(work)
	cmd := exec.Command("bash", "-c", string(recipeFile("offline.sh")))
	cmd.Env = append(os.Environ(), "LOUPE_WORK="+work, "LOUPE_MIRROR="+o.Mirror, "LOUPE_SUITE="+o.Suite, "LOUPE_PACKAGES="+o.Packages)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return BuildResult{}, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return BuildResult{}, err
	}
	if err := cmd.Start(); err != nil {
		return BuildResult{}, fmt.Errorf("sandbox: start the offline recipe: %w", err)
	}
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			killGroup(cmd.Process.Pid)
		case <-stopped:
		}
	}()

	f := &offlineFollower{progress: progress, ready: make(chan struct{})}
	followed := make(chan struct{})
	go func() {
		f.follow(stderr)
		close(followed)
	}()
	var importErr error
	select {
	case <-f.ready:
		importErr = s.importRootfs(ctx, stdout, f)
	case <-followed:
	}
	// Unblock the recipe if the import stopped reading, then reap it.
	_, _ = io.Copy(io.Discard, stdout)
	<-followed
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return BuildResult{}, ctx.Err()
	}
	if waitErr != nil {
		msg := f.errLine
		if msg == "" {
			msg = fmt.Sprintf("%v (last line: %s)", waitErr, f.p.Line)
		}
		return BuildResult{}, &BuildError{Step: f.p.Title, Msg: msg, Fix: "Fix what the message says and run the build again."}
	}
	if importErr != nil {
		return BuildResult{}, importErr
	}
	return BuildResult{Kind: KindOffline, Versions: f.versions}, nil
}

// importRootfs sends the tar stream to docker import with the image's
// settings and labels.
func (s *Sandbox) importRootfs(ctx context.Context, tarStream io.Reader, f *offlineFollower) error {
	changes := []string{
		"ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"ENV HOME=/tmp MPLCONFIGDIR=/tmp/mpl MPLBACKEND=Agg PYTHONDONTWRITEBYTECODE=1 LANG=C.UTF-8",
		"USER 1000:1000",
		"WORKDIR /tmp",
		`CMD ["python3"]`,
		fmt.Sprintf("LABEL %s=%s %s=%s %s=csv %s=%s", LabelRecipe, RecipeHash(KindOffline), LabelKind, KindOffline,
			LabelFormats, LabelVersions, strconv.Quote(f.versions)),
	}
	counted := &countingReader{r: tarStream, onRead: f.sent}
	res, err := s.cli.ImageImport(ctx, client.ImageImportSource{Source: counted, SourceName: "-"}, s.image,
		client.ImageImportOptions{Changes: changes, Message: "Loupe sandbox, offline recipe"})
	if err != nil {
		return s.wrap("import the image", err)
	}
	defer res.Close()
	dec := json.NewDecoder(res)
	for {
		var m buildMessage
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("sandbox: read the import's reply: %w", err)
		}
		if m.Error != "" {
			return &BuildError{Step: "docker import", Msg: m.Error, Fix: "Check that Docker has room for about 1 GB, then try again."}
		}
	}
}

// offlineFollower turns the recipe's stderr lines into progress.
type offlineFollower struct {
	progress func(Progress)
	mu       sync.Mutex // guards p and the progress calls
	p        Progress
	events   int   // debootstrap's per-package lines
	packages int   // "I: Retrieving" lines
	size     int64 // "SIZE" line
	versions string
	errLine  string
	ready    chan struct{} // closed when the tar stream is about to start
	bytes    atomic.Int64
	lastSent time.Time
}

// debootstrap's share of the build, and the per-package lines it prints
// about five times per package.
const (
	debootstrapShare = 0.85
	linesPerPackage  = 4.4
)

func (f *offlineFollower) follow(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f.line(strings.TrimSpace(sc.Text()))
	}
}

func (f *offlineFollower) line(line string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case strings.HasPrefix(line, "STEP "):
		var i, n int
		if k, _ := fmt.Sscanf(line, "STEP %d/%d", &i, &n); k == 2 {
			f.p.Step, f.p.Steps = i, n
			_, title, _ := strings.Cut(line[len("STEP "):], " ")
			f.p.Title = title
			f.p.Bytes, f.p.Total = 0, 0
			f.p.Fraction = max(f.p.Fraction, f.stepStart(i, n))
		}
	case strings.HasPrefix(line, "VERSIONS "):
		f.versions = strings.TrimPrefix(line, "VERSIONS ")
	case strings.HasPrefix(line, "SIZE "):
		f.size, _ = strconv.ParseInt(strings.TrimPrefix(line, "SIZE "), 10, 64)
		f.p.Total = f.size
		select {
		case <-f.ready:
		default:
			close(f.ready)
		}
	case strings.HasPrefix(line, "ERROR "):
		f.errLine = strings.TrimPrefix(line, "ERROR ")
	case strings.HasPrefix(line, "I: "):
		if strings.HasPrefix(line, "I: Retrieving") {
			f.packages++
		}
		for _, w := range []string{"I: Retrieving", "I: Validating", "I: Extracting", "I: Unpacking", "I: Configuring"} {
			if strings.HasPrefix(line, w) {
				f.events++
			}
		}
		if f.p.Step == 1 {
			expect := float64(max(f.packages, 250)) * linesPerPackage
			f.p.Fraction = min(debootstrapShare*0.99, debootstrapShare*float64(f.events)/expect)
		}
	}
	if line != "" {
		f.p.Line = line
	}
	f.progress(f.p)
}

// stepStart is the overall fraction at which step i of n begins.
func (f *offlineFollower) stepStart(i, n int) float64 {
	if i <= 1 {
		return 0
	}
	rest := (1 - debootstrapShare) / float64(max(n-1, 1))
	return debootstrapShare + rest*float64(i-2)
}

// sent notes n more bytes of the tar stream sent to Docker, reporting at
// most ten times a second.
func (f *offlineFollower) sent(n int) {
	total := f.bytes.Add(int64(n))
	if time.Since(f.lastSent) < 100*time.Millisecond {
		return
	}
	f.lastSent = time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.p
	p.Bytes, p.Total = total, f.size
	if f.size > 0 {
		share := (1 - debootstrapShare) / float64(max(p.Steps-1, 1))
		p.Fraction = min(1, f.stepStart(p.Step, p.Steps)+share*float64(total)/float64(f.size))
	}
	p.Line = fmt.Sprintf("sent %d of about %d MB to Docker", total>>20, f.size>>20)
	f.progress(p)
}

type countingReader struct {
	r      io.Reader
	onRead func(int)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.onRead(n)
	}
	return n, err
}

// killGroup stops the recipe and everything it started (debootstrap,
// chroot, tar): SIGTERM first, SIGKILL after a few seconds.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	for range 30 {
		time.Sleep(100 * time.Millisecond)
		if syscall.Kill(-pid, 0) != nil {
			return
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// removeWork deletes the scratch folder, first unmounting what a stopped
// debootstrap may have left mounted inside it (proc, sys).
func removeWork(dir string) {
	if mounts, err := mountsUnder(dir); err == nil {
		for _, m := range mounts {
			_ = syscall.Unmount(m, syscall.MNT_DETACH)
		}
	}
	_ = os.RemoveAll(dir)
}

// mountsUnder lists mount points inside dir, deepest first.
func mountsUnder(dir string) ([]string, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) > 4 && strings.HasPrefix(fields[4], abs+"/") {
			out = append(out, fields[4])
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out, nil
}
