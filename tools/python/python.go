// Package python is the run_python tool: model-written Python run in
// Loupe's locked Docker sandbox (tools/python/sandbox) over inputs the
// model names — loaded tables, or the result of a SELECT — which Loupe
// exports through the read-only guard and mounts read-only. What the code
// prints comes back capped; images it saves become a chart (evidence the
// report can cite), other files are kept for the user to download, and a
// traceback goes back to the model so it can fix its code.
package python

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/args"
	"github.com/loupeapp/loupe/tools/python/sandbox"
)

// Name is the tool's name.
const Name = "run_python"

// Config places the tool's files. Zero fields take the defaults.
type Config struct {
	// Sandbox picks the Docker daemon, the image and the limits (used by
	// Open).
	Sandbox sandbox.Config
	// ExportDir holds each session's inputs folder; it must lie inside the
	// engine's import folder, the only place the locked database writes.
	// Default: ImportDir/.python.
	ExportDir string
	// FilesDir keeps the files runs write (images and downloads), one
	// folder per run. Default: python-files beside the import folder.
	FilesDir string
	// Format forces the inputs' format, "parquet" or "csv"; empty means
	// parquet when the image reads it (it has pyarrow), else csv.
	Format string
	Logger *slog.Logger
}

// What the model sees of a run's output, in bytes: the start and the end
// of each stream (tracebacks end stderr).
const (
	modelStdoutHead = 4 << 10
	modelStdoutTail = 1536
	modelStderrHead = 1 << 10
	modelStderrTail = 3 << 10
)

// Tool is run_python. It keeps one sandbox session (a warm container) for
// its lifetime; runs take turns. Close it when the workspace closes. It is
// safe for concurrent use.
type Tool struct {
	sb  *sandbox.Sandbox
	eng Engine
	cat Catalog
	cfg Config
	log *slog.Logger

	mu      sync.Mutex // held for a whole run: the inputs folder is shared
	session *sandbox.Session
	dir     string  // this tool's inputs folder, mounted at /input
	cache   exports // tables exported there
	format  string
	closed  bool

	ownsSandbox bool // Close closes sb too (Open made it)
}

var _ tools.Tool = (*Tool)(nil)

// New returns run_python running code in sb over the datasets of eng and
// cat (data/workspace's Engine and *Workspace). It contacts nothing until
// the first run; Available says whether it can run.
func New(sb *sandbox.Sandbox, eng Engine, cat Catalog, cfg Config) *Tool {
	if cfg.ExportDir == "" {
		// data/workspace.SandboxInputs names this folder: it keeps readable
		// modes when the workspace is made private.
		cfg.ExportDir = filepath.Join(eng.ImportDir(), ".python")
	}
	if cfg.FilesDir == "" {
		cfg.FilesDir = FilesRoot(filepath.Dir(filepath.Clean(eng.ImportDir())))
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Tool{sb: sb, eng: eng, cat: cat, cfg: cfg, log: log.With("subsystem", "python")}
}

// FilesRoot is where run_python keeps, by default, the files runs write
// for the workspace folder dir: a folder per conversation (see
// tools.WithChat), a folder per run in it.
func FilesRoot(dir string) string { return filepath.Join(dir, "python-files") }

// RemoveChatFiles deletes the files run_python kept for the conversation
// chat in the workspace folder dir, as when the conversation is deleted.
// A conversation without files is no error.
func RemoveChatFiles(dir, chat string) error {
	if err := os.RemoveAll(filepath.Join(FilesRoot(dir), chatFolder(chat))); err != nil {
		return fmt.Errorf("remove the Python files of %s: %w", chat, err)
	}
	return nil
}

// chatFolder is the folder name of conversation chat's files: its id, or
// "_" for runs outside a conversation (and ids unfit for a file name).
func chatFolder(chat string) string {
	if chat == "" || len(chat) > 64 || strings.Trim(chat, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
		return "_"
	}
	return chat
}

// cleaned makes Open remove leftover containers once per process.
var cleaned sync.Once

// Open connects to Docker as cfg.Sandbox says ($DOCKER_HOST and
// $LOUPE_SANDBOX_IMAGE by default), removes the sandbox containers that
// crashed Loupe processes left behind (once per process), and returns
// run_python with the sandbox's status. Offer the tool to the model only
// when the status is OK; otherwise it says why, and how to fix it. Close
// the tool when the workspace closes.
func Open(ctx context.Context, eng Engine, cat Catalog, cfg Config) (*Tool, sandbox.Status, error) {
	sb, err := sandbox.New(cfg.Sandbox)
	if err != nil {
		return nil, sandbox.Status{}, err
	}
	st := sb.Check(ctx)
	if st.OK {
		cleaned.Do(func() {
			if n, err := sb.Cleanup(ctx); err != nil {
				slog.Warn("remove leftover sandbox containers", "subsystem", "python", "err", err)
			} else if n > 0 {
				slog.Info("removed leftover sandbox containers", "subsystem", "python", "count", n)
			}
		})
	}
	t := New(sb, eng, cat, cfg)
	t.ownsSandbox = true
	return t, st, nil
}

// Available reports whether Docker answers and the image is present, with
// a reason and a fix when not. Offer the tool to the model only when OK.
func (t *Tool) Available(ctx context.Context) sandbox.Status { return t.sb.Check(ctx) }

var params = args.Params{Tool: Name, List: []args.Param{
	{Name: "code", Type: args.String, Required: true, Doc: "Python 3 code to run", Aliases: []string{"script", "python", "source", "program"}},
	{Name: "inputs", Type: args.Strings, Doc: "names of loaded tables the code needs, or SELECT queries whose results it needs", Aliases: []string{"tables", "datasets", "input", "data"}},
	{Name: "purpose", Type: args.String, Doc: "what the code computes or draws, in a few words (the chart's title)", Aliases: []string{"title", "reason", "description"}},
}}

// Spec describes run_python to the model.
func (t *Tool) Spec() tools.Spec {
	l := t.sb.Limits()
	return tools.Spec{
		Name: Name,
		Description: fmt.Sprintf("Run Python 3 in a locked sandbox (no network, no internet packages; pandas, numpy, scipy, matplotlib, seaborn, openpyxl) "+
			"for statistics, models or custom charts that SQL and create_chart cannot do; use run_sql for plain queries. "+
			"Name the tables the code needs in \"inputs\" (or give a SELECT as an input, loaded as \"query\"), then load them:\n"+
			"    df = load(\"sales\")  # pandas DataFrame of input \"sales\"\n"+
			"Print what you need to read: you see about %d KB of stdout and the end of stderr. "+
			"The working folder is /output: save charts there (plt.savefig(\"chart.png\"); unsaved figures are saved for you) — images become charts the user sees; "+
			"other files (CSV, XLSX) are offered to the user for download. /tmp is scratch space. "+
			"Limits: %s, %d MB memory, 1 CPU. An error returns its traceback: fix the code and try again.",
			(modelStdoutHead+modelStdoutTail)>>10, l.Timeout, l.Memory>>20),
		Parameters: params.Schema(),
		Aliases:    []string{"python", "runcode", "executepython"},
		Evidence:   tools.EvidenceChart,
		View:       tools.View{Icon: "terminal", Doing: "Running Python", Did: "Ran Python"},
	}
}

// Run runs the code in args ({"code": …, "inputs": […], "purpose": …}).
func (t *Tool) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Code    string   `json:"code"`
		Inputs  []string `json:"inputs"`
		Purpose string   `json:"purpose"`
	}
	if err := params.Decode(raw, &a); err != nil {
		return params.Failure(err), nil
	}
	code := stripFences(a.Code)
	ins := parseInputs(a.Inputs)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return tools.Result{}, errors.New("run_python: the tool is closed")
	}
	if err := t.ensureSession(ctx); err != nil {
		return t.unavailable(ctx, err)
	}
	ex, err := exportInputs(ctx, t.eng, t.cat, t.dir, ins, t.format, t.cache)
	if err != nil {
		var ie *inputError
		if errors.As(err, &ie) {
			return failed(ie.msg+" Then call run_python again.", "bad input", detail{Code: code}), nil
		}
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Result{}, err
	}
	out, err := t.session.Run(ctx, code)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return tools.Result{}, ctx.Err()
	case errors.Is(err, sandbox.ErrCodeTooLong):
		return failed(fmt.Sprintf("The code is %d KB, over the %d KB limit: write shorter code (load data with load(), do not paste it).",
			len(code)>>10, sandbox.MaxCode>>10), "code too long", detail{Code: code}), nil
	default:
		return t.unavailable(ctx, err)
	}
	return t.result(ctx, code, a.Purpose, ex, out)
}

// ensureSession makes the inputs folder and the session on first use, and
// removes inputs folders that processes no longer running left behind.
func (t *Tool) ensureSession(ctx context.Context) error {
	if t.session != nil {
		return nil
	}
	st := t.sb.Check(ctx)
	if !st.OK {
		return st.Err()
	}
	t.format = t.cfg.Format
	if t.format == "" {
		t.format = "csv"
		if strings.Contains(st.Formats, "parquet") {
			t.format = "parquet"
		}
	}
	if err := os.MkdirAll(t.cfg.ExportDir, 0o755); err != nil {
		return fmt.Errorf("run_python: create %s: %w", t.cfg.ExportDir, err)
	}
	removeStaleDirs(t.cfg.ExportDir, t.log)
	dir := filepath.Join(t.cfg.ExportDir, strconv.Itoa(os.Getpid())+"-"+randomHex(4))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("run_python: create the inputs folder: %w", err)
	}
	t.dir, t.cache = dir, exports{}
	t.session = t.sb.NewSession(dir)
	return nil
}

// unavailable turns a sandbox failure into a result: Docker or the image
// missing is something the model cannot fix but can work around.
func (t *Tool) unavailable(ctx context.Context, err error) (tools.Result, error) {
	if ctx.Err() != nil {
		return tools.Result{}, ctx.Err()
	}
	var ue *sandbox.UnavailableError
	if errors.As(err, &ue) {
		msg := fmt.Sprintf("Python is not available: %s. Continue without run_python (use run_sql and create_chart), and tell the user: %s", ue.Reason, ue.Fix)
		return failed(msg, "Python unavailable: "+ue.Reason, detail{}), nil
	}
	return tools.Result{}, err
}

// Close removes the session's container and inputs folder.
func (t *Tool) Close(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	var err error
	if t.session != nil {
		err = t.session.Close(ctx)
		t.session = nil
	}
	if t.dir != "" {
		if rerr := os.RemoveAll(t.dir); rerr != nil && err == nil {
			err = rerr
		}
		t.dir = ""
	}
	if t.ownsSandbox {
		t.ownsSandbox = false
		if cerr := t.sb.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	return err
}

// parseInputs reads the inputs argument: table names, and SELECT queries
// (named "query", "query_2", …). Duplicates are dropped.
func parseInputs(items []string) []input {
	var out []input
	seen := map[string]bool{}
	q := 0
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" || seen[strings.ToLower(it)] {
			continue
		}
		seen[strings.ToLower(it)] = true
		if looksLikeSQL(it) {
			q++
			name := "query"
			if q > 1 {
				name = "query_" + strconv.Itoa(q)
			}
			out = append(out, input{Name: name, SQL: it})
			continue
		}
		out = append(out, input{Name: strings.Trim(it, "\"`'")})
	}
	return out
}

func looksLikeSQL(s string) bool {
	first, _, _ := strings.Cut(strings.TrimLeft(s, "( \t\n"), " ")
	first, _, _ = strings.Cut(first, "\n")
	switch strings.ToUpper(first) {
	case "SELECT", "WITH", "FROM", "VALUES", "SUMMARIZE", "PIVOT", "UNPIVOT":
		return true
	}
	return false
}

// stripFences takes the code out of a Markdown code block, which models
// often send.
func stripFences(code string) string {
	s := strings.TrimSpace(code)
	if !strings.HasPrefix(s, "```") {
		return code
	}
	s = strings.TrimPrefix(s, "```")
	if nl := strings.IndexByte(s, '\n'); nl >= 0 {
		s = s[nl+1:] // the language tag line
	} else {
		return code
	}
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "```")
	return s + "\n"
}

// removeStaleDirs deletes inputs folders ("PID-xxxx") of processes that
// no longer run.
func removeStaleDirs(root string, log *slog.Logger) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		p, _, ok := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(p)
		if !e.IsDir() || !ok || err != nil || pid == os.Getpid() || sandbox.ProcessExists(pid) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
			log.Warn("remove a leftover inputs folder", "dir", e.Name(), "err", err)
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
}
