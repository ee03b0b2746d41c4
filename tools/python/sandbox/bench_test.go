package sandbox_test

import (
	"context"
	"testing"

	"github.com/loupeapp/loupe/tools/python/sandbox"
)

// BenchmarkColdRun is the first run of a session: the container's start,
// a trivial script, and the container's removal.
func BenchmarkColdRun(b *testing.B) {
	sb := newSandbox(b, sandbox.Limits{})
	dir := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		se := sb.NewSession(dir)
		out, err := se.Run(context.Background(), "print('hello')")
		if err != nil || out.ExitCode != 0 || !out.Cold {
			b.Fatalf("%v %+v", err, out)
		}
		b.StopTimer()
		se.Close(context.Background())
		b.StartTimer()
	}
}

// BenchmarkWarmRun is a trivial script in a session's warm container.
func BenchmarkWarmRun(b *testing.B) {
	sb := newSandbox(b, sandbox.Limits{})
	se := newSession(b, sb, nil)
	mustSucceed(b, run(b, se, "pass"))
	b.ResetTimer()
	for b.Loop() {
		out := run(b, se, "print('hello')")
		if out.ExitCode != 0 || out.Cold {
			b.Fatalf("%+v", out)
		}
	}
}

// BenchmarkWarmRunWithFigure imports pandas and matplotlib and saves a
// PNG, which is then collected.
func BenchmarkWarmRunWithFigure(b *testing.B) {
	sb := newSandbox(b, sandbox.Limits{})
	se := newSession(b, sb, nil)
	mustSucceed(b, run(b, se, "pass"))
	b.ResetTimer()
	for b.Loop() {
		out := run(b, se, "import pandas as pd, matplotlib.pyplot as plt\npd.Series([1, 3, 2]).plot()\nplt.savefig('a.png')\n")
		if out.ExitCode != 0 || len(out.Files) != 1 {
			b.Fatalf("%+v", out)
		}
	}
}
