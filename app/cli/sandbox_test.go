package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/tools/python/sandbox"
	"github.com/loupeapp/loupe/tools/python/sandbox/sandboxtest"
)

func TestSandboxStatus(t *testing.T) {
	host, image := sandboxtest.Image(t)
	t.Setenv("DOCKER_HOST", host)
	code, out, errs := run(t, "", "sandbox", "status", "--image", image)
	if code != ExitOK || !strings.HasPrefix(out, "Ready: "+image) || !strings.Contains(out, "pandas=") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = run(t, "", "sandbox", "status", "--image", "loupe-sandbox:never-built", "--json")
	var st sandbox.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != ExitError || st.OK || !strings.Contains(st.Fix, "loupe sandbox build") {
		t.Errorf("missing image: exit %d %v %+v", code, err, st)
	}
	if code, _, _ := run(t, "", "sandbox"); code != ExitUsage {
		t.Errorf("no subcommand: exit %d", code)
	}
}

// Without internet the Dockerfile recipe cannot pull its base image: the
// build fails at once and points to the offline recipe.
func TestSandboxBuildWithoutInternet(t *testing.T) {
	host, _ := sandboxtest.Image(t)
	t.Setenv("DOCKER_HOST", host)
	code, out, errs := run(t, "", "sandbox", "build", "--image", "loupe-sandbox:cli-test", "--json")
	if code != ExitError || !strings.Contains(errs, "python:3.12-slim") || !strings.Contains(errs, "--offline") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	var first struct {
		Type     string
		Progress sandbox.Progress
	}
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &first); err != nil || first.Type != "progress" || first.Progress.Step != 1 {
		t.Errorf("progress line: %v %q", err, out)
	}
}

// The progress displays: a redrawn bar on a terminal, a line per step and
// per tenth in logs.
func TestBuildProgressDisplay(t *testing.T) {
	steps := []sandbox.Progress{
		{Step: 1, Steps: 6, Title: "debootstrap bookworm", Line: "I: Retrieving libc6", Fraction: 0.05},
		{Step: 1, Steps: 6, Title: "debootstrap bookworm", Line: "I: Unpacking python3", Fraction: 0.5},
		{Step: 6, Steps: 6, Title: "write the image", Line: "sent", Bytes: 400 << 20, Total: 800 << 20, Fraction: 0.93},
	}
	var logs bytes.Buffer
	show := lineProgress(&logs)
	for _, p := range steps {
		show(p)
	}
	want := "[1/6] debootstrap bookworm\n       50%  I: Unpacking python3\n[6/6] write the image\n"
	if logs.String() != want {
		t.Errorf("log lines:\n%q\nwant\n%q", logs.String(), want)
	}
	var term bytes.Buffer
	bar := &buildBar{w: &term}
	for _, p := range steps {
		bar.show(p)
	}
	bar.done()
	s := term.String()
	if !strings.Contains(s, "\r\033[K[6/6] write the image") || !strings.Contains(s, "400/800 MB") || !strings.Contains(s, " 93%") ||
		strings.Count(s, "\n") != 2 {
		t.Errorf("bar output %q", s)
	}
}
