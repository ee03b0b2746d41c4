package python

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/tools/python/sandbox"
)

// BenchmarkMillionRows is one run_python call that loads a 1,000,000-row
// table into pandas and aggregates it, in a warm container: importing
// pandas and reading the table (sandbox-ms), the table's export being
// reused from the first call.
func BenchmarkMillionRows(b *testing.B) {
	ws := openWorkspace(b)
	path := filepath.Join(b.TempDir(), "big.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "id,region,day,amount,units")
	regions := []string{"North", "South", "East", "West"}
	for i := range 1_000_000 {
		fmt.Fprintf(w, "%d,%s,2024-%02d-%02d,%d.%02d,%d\n", i, regions[i%4], 1+i%12, 1+i%28, 100+i%900, i%100, 1+i%9)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	if _, err := ws.Loader.Load(context.Background(), path, load.Options{}); err != nil {
		b.Fatal(err)
	}
	tool := newTool(b, ws, sandbox.Limits{})
	args := map[string]any{"inputs": []string{"big"}, "code": "df = load('big')\nprint(len(df), df.groupby('region')['amount'].sum().round(2).to_dict())\n"}
	if res := call(b, tool, args); res.Failed { // start the container
		b.Fatal(res.ForModel)
	}
	var sandboxMS float64
	b.ResetTimer()
	for b.Loop() {
		res := call(b, tool, args)
		if res.Failed || runDetail(b, res).Inputs[0].Rows != 1_000_000 {
			b.Fatal(res.ForModel)
		}
		sandboxMS += runDetail(b, res).ElapsedMS
	}
	b.ReportMetric(sandboxMS/float64(b.N), "sandbox-ms/op")
}
