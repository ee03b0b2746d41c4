package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/eval"
	"github.com/loupeapp/loupe/data/memory"
	"github.com/loupeapp/loupe/data/workspace"
)

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// splitModels reads --model a,b,c.
func splitModels(s string) []string {
	var out []string
	for _, m := range strings.Split(s, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// verifiedQuestions are the verified answers of the workspace in dir (the
// default one when empty) as questions, and the workspace folder.
func verifiedQuestions(dir string) (string, []eval.Question, error) {
	if dir == "" {
		var err error
		if dir, err = workspace.DefaultDir(); err != nil {
			return "", nil, err
		}
	}
	mem, err := memory.Open(dir)
	if err != nil {
		return "", nil, err
	}
	qs := eval.FromVerified(mem.Verified())
	if len(qs) == 0 {
		return "", nil, errors.New("loupe eval: this workspace has no verified answer yet; give a right answer a thumbs up (in the window, or loupe feedback --chat ID up)")
	}
	return dir, qs, nil
}

// modelSummary is one model's line of a bake-off.
type modelSummary struct {
	Model   string        `json:"model"`
	Summary *eval.Summary `json:"summary,omitempty"`
	Error   string        `json:"error,omitempty"`
}

// runBakeOff runs the questions against each model in turn and prints one
// table: accuracy, steps, tokens and latency per model.
func runBakeOff(ctx context.Context, e env, ws string, cfg *provider.Config, o *assemble.Options, models []string, file string, useSample, asJSON bool) int {
	st, err := openStore(ctx, ws)
	if err != nil {
		return fail(e, err)
	}
	defer st.Close()
	var qs []eval.Question
	dir := ws
	switch {
	case useSample:
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
	case file != "":
		if qs, err = eval.ReadQuestions(file); err != nil {
			return fail(e, err)
		}
	default:
		if dir, qs, err = verifiedQuestions(dir); err != nil {
			return fail(e, err)
		}
	}
	if dir == "" {
		if dir, err = workspace.DefaultDir(); err != nil {
			return fail(e, err)
		}
	}
	var rows []modelSummary
	for _, model := range models {
		c, opts := *cfg, *o
		c.Model = model
		m, code := openModel(e, "eval", st, &c, &opts)
		if m == nil {
			return code
		}
		if !asJSON {
			fmt.Fprintf(e.stderr, "loupe eval: %s, %d questions…\n", model, len(qs))
		}
		op := &opener{root: dir, p: m.Provider, model: model, opts: opts}
		sum, err := eval.Run(ctx, qs, op.open, nil)
		op.close()
		row := modelSummary{Model: model, Summary: sum}
		if err != nil {
			if ctx.Err() != nil {
				return fail(e, err)
			}
			row.Error = err.Error()
		}
		rows = append(rows, row)
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(map[string]any{"models": rows}); err != nil {
			return fail(e, err)
		}
		return ExitOK
	}
	printBakeOff(e.stdout, rows)
	return ExitOK
}

// printBakeOff writes one line per model.
func printBakeOff(w io.Writer, rows []modelSummary) {
	fmt.Fprintf(w, "%-24s %9s %7s %6s %9s %7s %7s\n", "model", "accuracy", "passed", "steps", "tokens", "p50 s", "p95 s")
	for _, r := range rows {
		s := r.Summary
		if s == nil {
			fmt.Fprintf(w, "%-24s failed: %s\n", oneLine(r.Model, 24), oneLine(r.Error, 80))
			continue
		}
		fmt.Fprintf(w, "%-24s %8.1f%% %3d/%-3d %6.1f %9d %7.1f %7.1f\n", oneLine(r.Model, 24), s.Accuracy*100, s.Passed, s.Total, s.AvgSteps, s.Tokens, s.P50, s.P95)
		if r.Error != "" {
			fmt.Fprintf(w, "%24s stopped: %s\n", "", oneLine(r.Error, 80))
		}
	}
}
