package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loupeapp/loupe/tools/python/sandbox"
)

func init() {
	register(command{"sandbox", "sandbox build [--offline] [--image NAME] [--json] | sandbox status [--json]",
		"build the Python sandbox's Docker image, or say whether it is ready", runSandbox})
}

func runSandbox(ctx context.Context, e env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, "loupe sandbox: say build or status, e.g. loupe sandbox build")
		return ExitUsage
	}
	switch args[0] {
	case "build":
		return runSandboxBuild(ctx, e, args[1:])
	case "status":
		return runSandboxStatus(ctx, e, args[1:])
	}
	fmt.Fprintf(e.stderr, "loupe sandbox: unknown subcommand %q (build or status)\n", args[0])
	return ExitUsage
}

// sandboxFlags are the flags both subcommands take.
func sandboxFlags(name string, e env) (*flag.FlagSet, *string, *bool) {
	fs := flag.NewFlagSet("loupe sandbox "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	image := fs.String("image", "", "image name (default $"+sandbox.EnvImage+", else "+sandbox.DefaultImage+")")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	return fs, image, asJSON
}

func runSandboxBuild(ctx context.Context, e env, args []string) int {
	fs, image, asJSON := sandboxFlags("build", e)
	var o sandbox.BuildOptions
	fs.BoolVar(&o.Offline, "offline", false, "build from this machine's apt mirror with debootstrap (Linux, root; no internet needed)")
	fs.StringVar(&o.Mirror, "mirror", "", "apt mirror URL for --offline (default: this machine's)")
	fs.StringVar(&o.Suite, "suite", "", "Debian release for --offline (default: this machine's)")
	pos, err := parse(fs, args)
	if err != nil || len(pos) > 0 {
		return ExitUsage
	}
	sb, err := sandbox.New(sandbox.Config{Image: *image})
	if err != nil {
		return fail(e, err)
	}
	defer sb.Close()
	if st := sb.Check(ctx); !st.OK && st.DockerVersion == "" {
		return fail(e, fmt.Errorf("loupe sandbox build: %s — %s", st.Reason, st.Fix))
	}
	var show func(sandbox.Progress)
	switch {
	case *asJSON:
		show = jsonProgress(e.stdout)
	case isTerminal(e.stderr):
		bar := &buildBar{w: e.stderr}
		show = bar.show
		defer bar.done()
	default:
		show = lineProgress(e.stderr)
	}
	recipe := "the Dockerfile (python:3.12-slim and PyPI)"
	if o.Offline {
		recipe = "the offline recipe (debootstrap from the apt mirror)"
	}
	if !*asJSON {
		fmt.Fprintf(e.stderr, "Building %s from %s…\n", sb.Image(), recipe)
	}
	res, err := sb.Build(ctx, o, show)
	if err != nil {
		return fail(e, err)
	}
	if *asJSON {
		return encodeJSON(e, map[string]any{"type": "built", "result": res})
	}
	fmt.Fprintf(e.stdout, "Built %s in %s: %d MB (%s).\n", res.Image, res.Elapsed.Round(time.Second), res.Size>>20, res.Versions)
	return ExitOK
}

func runSandboxStatus(ctx context.Context, e env, args []string) int {
	fs, image, asJSON := sandboxFlags("status", e)
	pos, err := parse(fs, args)
	if err != nil || len(pos) > 0 {
		return ExitUsage
	}
	sb, err := sandbox.New(sandbox.Config{Image: *image})
	if err != nil {
		return fail(e, err)
	}
	defer sb.Close()
	st := sb.Check(ctx)
	code := ExitOK
	if !st.OK {
		code = ExitError
	}
	if *asJSON {
		if c := encodeJSON(e, st); c != ExitOK {
			return c
		}
		return code
	}
	if !st.OK {
		fmt.Fprintf(e.stdout, "Not ready: %s.\nFix: %s\n", st.Reason, st.Fix)
		return code
	}
	fmt.Fprintf(e.stdout, "Ready: %s (%d MB, %s recipe) on Docker %s at %s.\n%s\n", st.Image, st.ImageSize>>20, orUnknown(st.Kind), st.DockerVersion, st.Host, st.Versions)
	if st.Stale {
		fmt.Fprintln(e.stdout, "The image was built by another version of Loupe's recipe; `loupe sandbox build` brings it up to date.")
	}
	return code
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func encodeJSON(e env, v any) int {
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fail(e, err)
	}
	return ExitOK
}

// jsonProgress prints progress as JSON lines, at most about five a second
// and always when the step changes.
func jsonProgress(w io.Writer) func(sandbox.Progress) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var last time.Time
	step := -1
	return func(p sandbox.Progress) {
		if p.Step == step && time.Since(last) < 200*time.Millisecond {
			return
		}
		step, last = p.Step, time.Now()
		_ = enc.Encode(map[string]any{"type": "progress", "progress": p})
	}
}

// lineProgress prints a line when the step changes and at every tenth of
// the way, for logs.
func lineProgress(w io.Writer) func(sandbox.Progress) {
	step, tenth := -1, -1
	return func(p sandbox.Progress) {
		t := int(p.Fraction * 10)
		if p.Step == step && t == tenth {
			return
		}
		if p.Step != step {
			fmt.Fprintf(w, "[%d/%d] %s\n", p.Step, p.Steps, p.Title)
		}
		if t != tenth && p.Step == step {
			fmt.Fprintf(w, "      %3.0f%%  %s\n", p.Fraction*100, p.Line)
		}
		step, tenth = p.Step, t
	}
}

// buildBar redraws one line on a terminal:
// "[3/6] build matplotlib's font cache ██████░░░░  62%  I: Configuring…".
type buildBar struct {
	w    io.Writer
	last time.Time
	step int
}

const buildBarWidth = 24

func (b *buildBar) show(p sandbox.Progress) {
	if p.Step == b.step && time.Since(b.last) < 100*time.Millisecond {
		return
	}
	if p.Step != b.step && b.step != 0 {
		fmt.Fprintln(b.w) // keep the finished step's line
	}
	b.step, b.last = p.Step, time.Now()
	filled := min(buildBarWidth, int(p.Fraction*buildBarWidth+0.5))
	bar := strings.Repeat("█", filled) + strings.Repeat("░", buildBarWidth-filled)
	detail := p.Line
	if p.Total > 0 {
		detail = fmt.Sprintf("%d/%d MB", p.Bytes>>20, p.Total>>20)
	}
	line := fmt.Sprintf("[%d/%d] %-38s %s %3.0f%%  %s", p.Step, p.Steps, clipRunes(p.Title, 38), bar, p.Fraction*100, detail)
	fmt.Fprintf(b.w, "\r\033[K%s", clipRunes(line, 140))
}

func (b *buildBar) done() {
	if b.step != 0 {
		fmt.Fprintln(b.w)
	}
}

func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
