package duck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
)

// Environment variables that override the workspace database's resource
// bounds (see Limits).
const (
	EnvMemory  = "LOUPE_DUCKDB_MEMORY"  // e.g. "2GB", "512MB"; DuckDB's memory_limit
	EnvThreads = "LOUPE_DUCKDB_THREADS" // a positive number
)

// Default bounds: half of the machine's memory, at most maxMemory, and at
// most maxThreads threads. DuckDB's own defaults (80% of the memory, every
// core) let one odd file freeze a laptop.
const (
	maxMemory  = 8 << 30
	minMemory  = 256 << 20
	maxThreads = 8
)

// Limits are the resource bounds of a workspace database: what DuckDB may
// hold in memory (beyond it, it spills to TempDir inside the workspace, or
// fails the statement with an out-of-memory error instead of taking the
// machine) and how many threads a statement may use. TempDir is where
// DuckDB puts its spill files by default, beside the database; it is set
// explicitly so that it never depends on DuckDB's default.
type Limits struct {
	Memory  string // DuckDB size, e.g. "4096MB"
	Threads int
	TempDir string
}

// limits works out the bounds for the workspace in dir from the machine
// and the environment.
func limits(dir string) (Limits, error) {
	l := Limits{Threads: min(runtime.NumCPU(), maxThreads), TempDir: filepath.Join(dir, FileName+".tmp")}
	mem := uint64(maxMemory)
	if total := totalMemory(); total > 0 {
		mem = min(total/2, maxMemory)
	}
	l.Memory = strconv.FormatUint(max(mem, minMemory)>>20, 10) + "MB"
	if v := strings.TrimSpace(os.Getenv(EnvMemory)); v != "" {
		if !memSize.MatchString(v) {
			return Limits{}, fmt.Errorf("%s=%q is not a size: write it as 2GB or 512MB", EnvMemory, v)
		}
		l.Memory = v
	}
	if v := strings.TrimSpace(os.Getenv(EnvThreads)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return Limits{}, fmt.Errorf("%s=%q is not a positive number of threads", EnvThreads, v)
		}
		l.Threads = n
	}
	return l, nil
}

// settings are the SET statements that apply l, and have DuckDB's
// allocator return freed memory to the system in the background.
func (l Limits) settings() []string {
	return []string{
		"SET memory_limit = " + quoteString(l.Memory),
		"SET threads = " + strconv.Itoa(l.Threads),
		"SET temp_directory = " + quoteString(l.TempDir),
		// Memory DuckDB frees (a finished statement's, a detached
		// database's) otherwise stays with its allocator until a
		// worker thread happens to flush it: a wide load detaches the
		// database it wrote to free 0.05-0.1 GB (see data/load's wide.go).
		"SET allocator_background_threads = true",
	}
}

// totalMemory is the machine's memory in bytes (Linux: /proc/meminfo), or
// 0 when unknown.
func totalMemory() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

var memSize = regexp.MustCompile(`^(?i)\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$`)
