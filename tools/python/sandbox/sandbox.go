// Package sandbox runs model-written Python in a locked Docker container,
// through Docker's Go client. Every container it starts has no network, a
// read-only root, all capabilities dropped, no-new-privileges, a non-root
// user, memory (512 MB, no swap), pids (128) and CPU (1) limits, and
// size-capped tmpfs folders for /tmp and the output folder; inputs are
// bind-mounted read-only. A run has a wall-clock limit that kills the
// container, and its output is capped.
//
// A Session keeps one warm container, started on first use and reused
// with exec (a cold start costs seconds, a warm run a fraction of one).
// Containers carry labels naming their owner process, so that Cleanup can
// remove the ones a crashed Loupe left behind.
//
// The image is built by Loupe itself from an embedded recipe (see Build):
// a Dockerfile for machines with internet, or debootstrap from the
// machine's apt mirror for air-gapped ones.
package sandbox

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/moby/moby/client"
)

// DefaultImage is the image Loupe builds and runs unless configured
// otherwise.
const DefaultImage = "loupe-sandbox:1"

// EnvImage names the environment variable that overrides DefaultImage.
const EnvImage = "LOUPE_SANDBOX_IMAGE"

// Labels Loupe puts on its containers and images.
const (
	LabelSandbox  = "app.loupe.sandbox"  // "1" on every sandbox container
	LabelOwner    = "app.loupe.owner"    // "HOST/PID" of the process that started it
	LabelRecipe   = "app.loupe.recipe"   // image: hash of the recipe it was built from
	LabelKind     = "app.loupe.kind"     // image: "dockerfile" or "offline"
	LabelFormats  = "app.loupe.formats"  // image: input formats it reads, "parquet,csv" or "csv"
	LabelVersions = "app.loupe.versions" // image: "python=3.11.2 pandas=1.5.3 …"
)

// Paths inside the container.
const (
	InputDir  = "/input"  // the run's inputs, read-only
	OutputDir = "/output" // the working folder; files left here come back
	TmpDir    = "/tmp"
	User      = "1000:1000" // the image's unprivileged "sandbox" user
)

// Limits bound one container and each run in it. Zero fields take
// Defaults.
type Limits struct {
	Memory     int64         // bytes of memory, swap included; 512 MiB
	Pids       int64         // processes and threads; 128
	CPUs       float64       // 1
	TmpSize    int64         // bytes of /tmp; 64 MiB
	OutputSize int64         // bytes of the output folder; 32 MiB
	Timeout    time.Duration // wall clock per run; 30 s
	// StreamHead and StreamTail are how many bytes of the start and of the
	// end of stdout and of stderr are kept; the middle is dropped and
	// counted. 64 KiB and 16 KiB.
	StreamHead, StreamTail int
	// FloodLimit stops a run whose stdout and stderr together pass it
	// (the container is killed, as on a timeout); 16 MiB.
	FloodLimit int64
	MaxFiles   int // files collected from the output folder; 20
}

// Defaults are the limits used where a Limits field is zero.
var Defaults = Limits{
	Memory: 512 << 20, Pids: 128, CPUs: 1, TmpSize: 64 << 20, OutputSize: 32 << 20,
	Timeout: 30 * time.Second, StreamHead: 64 << 10, StreamTail: 16 << 10, FloodLimit: 16 << 20, MaxFiles: 20,
}

func (l Limits) withDefaults() Limits {
	d := Defaults
	set := func(dst *int64, v int64) {
		if v > 0 {
			*dst = v
		}
	}
	set(&d.Memory, l.Memory)
	set(&d.Pids, l.Pids)
	set(&d.TmpSize, l.TmpSize)
	set(&d.OutputSize, l.OutputSize)
	set(&d.FloodLimit, l.FloodLimit)
	if l.CPUs > 0 {
		d.CPUs = l.CPUs
	}
	if l.Timeout > 0 {
		d.Timeout = l.Timeout
	}
	if l.StreamHead > 0 {
		d.StreamHead = l.StreamHead
	}
	if l.StreamTail > 0 {
		d.StreamTail = l.StreamTail
	}
	if l.MaxFiles > 0 {
		d.MaxFiles = l.MaxFiles
	}
	return d
}

// Config says which daemon and image to use.
type Config struct {
	// Host is the daemon's address (unix:///var/run/docker.sock,
	// tcp://…); empty means $DOCKER_HOST, else the platform's default.
	Host   string
	Image  string // empty means $LOUPE_SANDBOX_IMAGE, else DefaultImage
	Limits Limits
	Logger *slog.Logger
}

// Sandbox is a connection to a Docker daemon and the settings of the
// containers it starts. It is safe for concurrent use.
type Sandbox struct {
	cli    *client.Client
	image  string
	limits Limits
	owner  string
	log    *slog.Logger
}

// New returns a Sandbox for cfg. It does not contact the daemon: Check
// says whether it is usable.
func New(cfg Config) (*Sandbox, error) {
	opts := []client.Opt{client.FromEnv}
	if cfg.Host != "" {
		opts = append(opts, client.WithHost(cfg.Host))
	}
	cli, err := client.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("sandbox: Docker client for %q: %w", cfg.Host, err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	img := cfg.Image
	if img == "" {
		img = os.Getenv(EnvImage)
	}
	if img == "" {
		img = DefaultImage
	}
	return &Sandbox{cli: cli, image: img, limits: cfg.Limits.withDefaults(), owner: ownerID(), log: log.With("subsystem", "sandbox")}, nil
}

// Image is the image the sandbox runs.
func (s *Sandbox) Image() string { return s.image }

// Limits are the limits in force.
func (s *Sandbox) Limits() Limits {
	if s == nil { // a tool described before it has a sandbox
		return Defaults
	}
	return s.limits
}

// Host is the daemon's address.
func (s *Sandbox) Host() string { return s.cli.DaemonHost() }

// Close releases the client's connections. Sessions must be closed first.
func (s *Sandbox) Close() error { return s.cli.Close() }

// ownerID names this process for the owner label: "HOST/PID".
func ownerID() string {
	h, err := os.Hostname()
	if err != nil {
		h = "unknown"
	}
	return h + "/" + strconv.Itoa(os.Getpid())
}
