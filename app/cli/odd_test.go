package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/workspace"
)

// writeWide writes a CSV of cols columns and rows rows of small integers.
func writeWide(t *testing.T, dir string, cols, rows int) string {
	t.Helper()
	var b strings.Builder
	for j := 0; j < cols; j++ {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "c%d", j)
	}
	b.WriteByte('\n')
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d", (i+j)%7)
		}
		b.WriteByte('\n')
	}
	return writeFile(t, dir, fmt.Sprintf("wide_%d.csv", cols), b.String())
}

// traces lists what the workspace in dir holds: tables, views, catalog
// records and files in its import folder.
func traces(t *testing.T, dir string) []string {
	t.Helper()
	w, err := workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var out []string
	for _, q := range []string{
		"SELECT 'table ' || table_name FROM duckdb_tables() WHERE schema_name = 'main'",
		"SELECT 'view ' || view_name FROM duckdb_views() WHERE schema_name = 'main' AND NOT internal",
		"SELECT 'record ' || name FROM _loupe.datasets",
	} {
		rs, err := w.Engine.DB().Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rs.Next() {
			var s string
			_ = rs.Scan(&s)
			out = append(out, s)
		}
		rs.Close()
	}
	files, _ := os.ReadDir(w.Engine.ImportDir())
	for _, f := range files {
		out = append(out, "file "+f.Name())
	}
	return out
}

// TestLoadWideFileBoundedMemory runs `loupe load` on files of 10,000 and
// 30,000 columns in a process of its own and measures its peak resident
// memory, with the default limits and with DuckDB's memory limit set low,
// then the peak of a `loupe sql` on the dataset (which attaches the
// dataset's file). A 9,074-column file once took the process to 19-24
// GB; loaded as one table (before the wide layout, see data/load's
// wide.go) 10,000 columns peaked at 0.40-1.05 GB and 30,000 at 0.8-1.45
// GB, DuckDB's cost per column whatever the row count. In the wide
// layout most of what remained was memory DuckDB had freed and its
// allocators kept (see duck.ReleaseMemory): before they were made to give
// it back, 10,000 columns peaked at 0.27-0.47 GB and 30,000 at 0.33-0.63
// GB, the most on an idle machine, where statements follow each other
// fastest; after, side by side at load average 2-6, 217-244 MB and
// 283-304 MB. The loupe process itself takes ~0.1 GB before it reads
// anything. The load bounds are those figures and ~25% more: they catch
// a return to the allocators' hoard (0.4-0.6 GB at 30,000 columns),
// not tens of MB. The `loupe sql` peaks vary less: 126-147 MB and
// 183-214 MB (before 162-167 and 310-332 MB, the old storage format):
// the 30,000-column bound catches that format. With DuckDB's memory
// limit at 64 MB the load fails at once with a message that names the
// limit and the setting, and leaves nothing behind.
func TestLoadWideFileBoundedMemory(t *testing.T) {
	bin := buildLoupe(t, t.TempDir())
	peakBin := filepath.Join(t.TempDir(), "peak")
	if out, err := exec.Command("go", "build", "-o", peakBin, "./testdata/peak").CombinedOutput(); err != nil {
		t.Fatalf("build peak: %v\n%s", err, out)
	}
	files := map[int]string{}
	for _, cols := range []int{10000, 30000} {
		files[cols] = writeWide(t, t.TempDir(), cols, 4)
	}
	tests := []struct {
		cols  int
		limit string // LOUPE_DUCKDB_MEMORY; "" for the default
		bound int64  // peak RSS of the load allowed: what was measured and ~25% more
		sql   int64  // peak RSS of a loupe sql on the dataset allowed
		fails bool
	}{
		{10000, "", 300 << 20, 185 << 20, false},
		{30000, "", 380 << 20, 270 << 20, false},
		{30000, "128MB", 380 << 20, 270 << 20, false}, // the limit covers the buffer pool, not every allocation
		{30000, "64MB", 256 << 20, 0, true},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d columns, memory %q", tc.cols, tc.limit), func(t *testing.T) {
			ws := t.TempDir()
			// Through peak: a child started from this process (Go starts
			// it sharing this process's memory until exec) would count
			// this process's peak as its own.
			peakFile := filepath.Join(t.TempDir(), "peak")
			cmd := exec.Command(peakBin, bin, "load", "--workspace", ws, files[tc.cols])
			cmd.Env = append(os.Environ(), duck.EnvMemory+"="+tc.limit, "PEAK_OUT="+peakFile)
			start := time.Now()
			out, err := cmd.Output()
			took := time.Since(start)
			kib, rerr := os.ReadFile(peakFile)
			if rerr != nil {
				t.Fatalf("peak: %v (%v %s)", rerr, err, errOut(err))
			}
			var peak int64
			if _, err := fmt.Sscan(string(kib), &peak); err != nil {
				t.Fatalf("peak %q: %v", kib, err)
			}
			peak <<= 10 // KiB on Linux
			t.Logf("%d columns × 4 rows, memory limit %q: %s, peak RSS %d MB, exit %d", tc.cols, tc.limit, took.Round(time.Millisecond), peak>>20, cmd.ProcessState.ExitCode())
			if peak > tc.bound {
				t.Errorf("peak RSS %d MB, want under %d MB", peak>>20, tc.bound>>20)
			}
			if tc.fails {
				msg := errOut(err)
				if err == nil || !strings.Contains(msg, "more memory than the workspace allows") || !strings.Contains(msg, duck.EnvMemory) || !strings.Contains(msg, filepath.Base(files[tc.cols])) {
					t.Errorf("load past the memory limit: err %v, message %q; want one naming the file, the limit and %s", err, msg, duck.EnvMemory)
				}
				if left := traces(t, ws); len(left) != 0 {
					t.Errorf("the failed load left %v", left)
				}
				return
			}
			if err != nil {
				t.Fatalf("loupe load: %v\n%s", err, errOut(err))
			}
			var line loadLine
			if err := json.Unmarshal(out, &line); err != nil || len(line.Columns) != tc.cols || line.Rows != 4 {
				t.Fatalf("load line: %d columns, %d rows, %v; want %d, 4", len(line.Columns), line.Rows, err, tc.cols)
			}
			// In a process of its own too: this one must stay small (see
			// below).
			q := exec.Command(peakBin, bin, "sql", "--workspace", ws, "--json", fmt.Sprintf("SELECT sum(c%d) AS s FROM %s", tc.cols-1, line.Table))
			q.Env = append(os.Environ(), "PEAK_OUT="+peakFile)
			start = time.Now()
			res, err := q.Output()
			took = time.Since(start)
			if err != nil || !strings.Contains(string(res), fmt.Sprint(sumLast(tc.cols, 4))) {
				t.Errorf("sql on the wide table: %v, %s %s", err, res, errOut(err))
			}
			if kib, err = os.ReadFile(peakFile); err != nil {
				t.Fatalf("peak of sql: %v", err)
			}
			if _, err := fmt.Sscan(string(kib), &peak); err != nil {
				t.Fatalf("peak of sql %q: %v", kib, err)
			}
			peak <<= 10
			t.Logf("sql on it: %s, peak RSS %d MB", took.Round(time.Millisecond), peak>>20)
			if peak > tc.sql {
				t.Errorf("sql on the wide table: peak RSS %d MB, want under %d MB (it attaches the dataset's file)", peak>>20, tc.sql>>20)
			}
		})
	}
}

// sumLast is the sum of the last column of writeWide(cols, rows).
func sumLast(cols, rows int) int {
	s := 0
	for i := 0; i < rows; i++ {
		s += (i + cols - 1) % 7
	}
	return s
}

func errOut(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// TestSIGTERMMidProfile sends SIGTERM to `loupe load` while it profiles a
// wide file: the process exits within a second, and the workspace holds
// no trace of the file. Before, the profile ignored the cancel and ran on
// for minutes.
func TestSIGTERMMidProfile(t *testing.T) {
	bin := buildLoupe(t, t.TempDir())
	src := writeWide(t, t.TempDir(), 10000, 50)
	ws := t.TempDir()
	cmd := exec.Command(bin, "load", "--workspace", ws, src)
	cmd.Env = append(os.Environ(), "LOUPE_DEBUG=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	profiling := make(chan struct{})
	var tail []string
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		seen := false
		for sc.Scan() {
			if !seen && strings.Contains(sc.Text(), "msg=profiling") {
				seen = true
				close(profiling)
			}
			if len(tail) < 20 {
				tail = append(tail, sc.Text())
			}
		}
		if !seen {
			close(profiling)
		}
	}()
	select {
	case <-profiling:
	case <-time.After(3 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the load did not reach its profile within 3 minutes")
	}
	time.Sleep(300 * time.Millisecond)
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v (the load ended before it: %v)", err, tail)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("loupe load still running 30 s after SIGTERM")
	}
	took := time.Since(sent)
	t.Logf("loupe load exited %s after SIGTERM (exit code %d)", took.Round(time.Millisecond), cmd.ProcessState.ExitCode())
	if took > time.Second {
		t.Errorf("loupe load exited %s after SIGTERM, want < 1s", took)
	}
	if cmd.ProcessState.ExitCode() == 0 {
		t.Errorf("loupe load exited 0 after SIGTERM mid-profile; stderr %q", tail)
	}
	if left := traces(t, ws); len(left) != 0 {
		t.Errorf("the workspace keeps %v after the load was stopped", left)
	}
}

// TestLoadOddNames loads, through the CLI, headers whose names broke
// statements: each loads under a clean name with a warning when renamed,
// is queried with `loupe sql`, has statistics, and reloads into the same
// table. (The CLI has no remove; the window's test removes them.)
func TestLoadOddNames(t *testing.T) {
	long := strings.Repeat("n", 10000)
	tests := []struct {
		name, header string
		want         [2]string
		renamed      bool
	}{
		{"NUL", "col1|col\x00 2", [2]string{"col1", "col 2"}, true},
		{"control characters", "a\x10b|c\x1bd", [2]string{"a b", "c d"}, true},
		{"only a quote", `""""|x`, [2]string{`"`, "x"}, false},
		{"very long", long + "|x", [2]string{long, "x"}, false},
		{"differ only in case", "Amount|amount", [2]string{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			src := writeFile(t, t.TempDir(), "odd.csv", tc.header+"\n"+strings.Repeat("1|2\n3|4\n", 25))
			var line loadLine
			for i := 0; i < 2; i++ { // load, then reload
				code, out, errs := run(t, "", "load", "--workspace", ws, src)
				if code != ExitOK {
					t.Fatalf("load %d: exit %d: %s", i+1, code, errs)
				}
				if err := json.Unmarshal([]byte(out), &line); err != nil {
					t.Fatalf("load %d: %v: %q", i+1, err, out)
				}
				if strings.Contains(errs, "WARN") || strings.Contains(errs, "ERROR") {
					t.Errorf("load %d printed %q", i+1, errs)
				}
			}
			if len(line.Columns) != 2 {
				t.Fatalf("columns %+v, want 2", line.Columns)
			}
			a, b := line.Columns[0].Name, line.Columns[1].Name
			if tc.want[0] != "" && (a != tc.want[0] || b != tc.want[1]) {
				t.Errorf("columns %q, %q; want %q", a, b, tc.want)
			}
			if strings.EqualFold(a, b) {
				t.Errorf("columns %q and %q are one name to DuckDB", a, b)
			}
			if got := strings.Contains(strings.Join(line.Warnings, "\n"), "control characters removed"); got != tc.renamed {
				t.Errorf("renamed-columns warning %v, want %v: %q", got, tc.renamed, line.Warnings)
			}
			code, out, errs := run(t, "", "sql", "--workspace", ws, "--json",
				"SELECT sum("+duck.QuoteIdent(a)+") + sum("+duck.QuoteIdent(b)+") AS s FROM "+duck.QuoteIdent(line.Table))
			if code != ExitOK || !strings.Contains(out, "250") {
				t.Errorf("sql: exit %d, %s %s", code, out, errs)
			}
			w, err := workspace.Open(context.Background(), ws)
			if err != nil {
				t.Fatal(err)
			}
			ds, err := w.Datasets(context.Background())
			w.Close()
			if err != nil || len(ds) != 1 {
				t.Fatalf("datasets %v, %v; want one", ds, err)
			}
			if d := ds[0]; !d.Profiled || d.Columns[1].Distinct != 2 || len(d.Columns[0].Top) != 2 {
				t.Errorf("not profiled: %+v", d.Columns)
			}
		})
	}
}
