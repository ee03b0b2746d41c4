package validate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loupeapp/loupe/tools/validate"
)

// BenchmarkValidateFinding measures one validation of the kidney-stone
// comparison: the query, its parse tree, the per-group counts and the
// subgroup queries for the automatically chosen columns.
func BenchmarkValidateFinding(b *testing.B) {
	ws := open(b)
	tool := validate.New(ws, ws.Query)
	args, _ := json.Marshal(map[string]any{"finding": "Treatment B has a higher recovery rate than A", "sql": kidneySQL})
	ctx := context.Background()
	for b.Loop() {
		res, err := tool.Run(ctx, args)
		if err != nil || res.Failed {
			b.Fatal(err, res.ForModel)
		}
	}
}
