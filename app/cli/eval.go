package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/eval"
	"github.com/loupeapp/loupe/app/sample"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
)

func init() {
	register(command{"eval", "eval [--provider P] [--model M[,M2,…]] [--base-url URL] (--questions FILE | --sample | --verified) [--privacy open|masked|schema] [--workspace DIR] [--json]",
		"score the agent on questions with known answers (execution accuracy, steps, tokens, latency); --verified: the answers you gave a thumbs up; several models: one table to compare them", runEval})
}

func runEval(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("eval", e)
	cfg, o := agentFlags(fs, "each question")
	file := fs.String("questions", "", "questions: JSON Lines ({question, sql | answer, db}) or a CSV in sql-eval's layout")
	useSample := fs.Bool("sample", false, "use Loupe's bundled sample data and its questions")
	useVerified := fs.Bool("verified", false, "use the workspace's verified answers (loupe feedback … up): gold is the verified SQL re-run on the data as it is now")
	asJSON := fs.Bool("json", false, "print the results as one JSON object")
	if _, err := parse(fs, args); err != nil {
		return ExitUsage
	}
	if n := btoi(*file != "") + btoi(*useSample) + btoi(*useVerified); n != 1 {
		fmt.Fprintln(e.stderr, "loupe eval: give one of --questions FILE, --sample or --verified, e.g. loupe eval --model qwen3:8b --sample")
		return ExitUsage
	}
	if models := splitModels(cfg.Model); len(models) > 1 {
		return runBakeOff(ctx, e, *ws, cfg, o, models, *file, *useSample, *asJSON)
	}
	// Every request to a model server on another machine is kept, as for
	// ask: in the workspace folder's store, for no conversation (loupe
	// outbox prints them).
	st, err := openStore(ctx, *ws)
	if err != nil {
		return fail(e, err)
	}
	defer st.Close()
	m, code := openModel(e, "eval", st, cfg, o)
	if m == nil {
		return code
	}
	p := m.Provider
	var qs []eval.Question
	dir := *ws
	if *useSample {
		if qs, err = eval.SampleQuestions(); err != nil {
			return fail(e, err)
		}
		tmp, err := os.MkdirTemp("", "loupe-eval-")
		if err != nil {
			return fail(e, err)
		}
		defer os.RemoveAll(tmp)
		if dir, err = sampleWorkspace(ctx, tmp); err != nil {
			return fail(e, err)
		}
	} else if *useVerified {
		if dir, qs, err = verifiedQuestions(dir); err != nil {
			return fail(e, err)
		}
	} else if qs, err = eval.ReadQuestions(*file); err != nil {
		return fail(e, err)
	}
	if dir == "" {
		if dir, err = workspace.DefaultDir(); err != nil {
			return fail(e, err)
		}
	}
	o2 := &opener{root: dir, p: p, model: cfg.Model, opts: *o}
	defer o2.close()
	progress := func(r eval.Result) {
		if !*asJSON {
			printEvalRow(e.stdout, r)
		}
	}
	if !*asJSON {
		fmt.Fprintf(e.stdout, "%-18s %-14s %5s %5s %8s %7s\n", "question", "result", "steps", "calls", "tokens", "seconds")
	}
	sum, err := eval.Run(ctx, qs, o2.open, progress)
	if *asJSON && sum != nil {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(sum)
	} else if sum != nil {
		printEvalSummary(e.stdout, sum)
	}
	if err != nil {
		return fail(e, err)
	}
	return ExitOK
}

// sampleWorkspace writes and loads the bundled sample into a workspace in
// dir and returns the workspace folder.
func sampleWorkspace(ctx context.Context, dir string) (string, error) {
	paths, err := sample.WriteTo(filepath.Join(dir, "files"))
	if err != nil {
		return "", err
	}
	wsDir := filepath.Join(dir, "workspace")
	w, err := workspace.Open(ctx, wsDir)
	if err != nil {
		return "", err
	}
	defer w.Close()
	for _, p := range paths {
		if _, err := w.Loader.Load(ctx, p, load.Options{}); err != nil {
			return "", err
		}
	}
	return wsDir, nil
}

// opener opens the workspace of each question's database: the folder of
// that name under root when it exists, else root itself.
type opener struct {
	root   string
	p      llm.Provider
	model  string
	opts   assemble.Options
	opened []*workspace.Workspace
}

func (o *opener) open(ctx context.Context, db string) (*eval.Env, error) {
	dir := o.root
	if db != "" {
		if st, err := os.Stat(filepath.Join(o.root, db)); err == nil && st.IsDir() {
			dir = filepath.Join(o.root, db)
		}
	}
	w, err := workspace.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	o.opened = append(o.opened, w)
	a, err := assemble.Agent(w, results.New(results.Config{}), o.p, o.model, o.opts)
	if err != nil {
		return nil, err
	}
	sch, err := assemble.WorkspaceSchema(ctx, w)
	if err != nil {
		return nil, err
	}
	if len(sch.Tables) == 0 {
		return nil, fmt.Errorf("the workspace %s holds no tables; load the question's data first (loupe load --workspace %s FILE)", dir, dir)
	}
	return &eval.Env{Agent: a, Query: w.Query, Schema: sch}, nil
}

func (o *opener) close() {
	for _, w := range o.opened {
		_ = w.Close()
	}
}

func printEvalRow(w io.Writer, r eval.Result) {
	res := "✓ pass"
	if !r.Pass {
		res = "✗ " + r.Failure
	}
	fmt.Fprintf(w, "%-18s %-14s %5d %5d %8d %7.1f\n", oneLine(r.ID, 18), res, r.Steps, r.ToolCalls, r.Tokens, r.Seconds)
	if !r.Pass && r.Detail != "" {
		fmt.Fprintf(w, "%18s %s\n", "", oneLine(r.Detail, 100))
	}
}

func printEvalSummary(w io.Writer, s *eval.Summary) {
	fmt.Fprintf(w, "\nexecution accuracy %d/%d (%.1f%%) · steps %.1f avg · tool calls %.1f avg · %d tokens · latency p50 %.1f s, p95 %.1f s\n",
		s.Passed, s.Total, s.Accuracy*100, s.AvgSteps, s.AvgCalls, s.Tokens, s.P50, s.P95)
	if len(s.Failures) > 0 {
		kinds := make([]string, 0, len(s.Failures))
		for k, n := range s.Failures {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(kinds)
		fmt.Fprintf(w, "failures: %s\n", strings.Join(kinds, ", "))
	}
}
