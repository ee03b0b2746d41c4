package cli

import (
	"context"
	"log/slog"

	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/python"
)

// pythonTool returns run_python over w when Docker is reachable and the
// sandbox image exists (`loupe doctor` says why not), and a func that
// removes its container; the run goes on without it otherwise.
func pythonTool(ctx context.Context, w *workspace.Workspace) ([]tools.Tool, func()) {
	py, st, err := python.Open(ctx, w.Engine, w, python.Config{})
	if err != nil || !st.OK {
		slog.Debug("run_python not offered", "subsystem", "cli", "reason", st.Reason, "err", err)
		return nil, func() {}
	}
	return []tools.Tool{py}, func() { _ = py.Close(context.WithoutCancel(ctx)) }
}
