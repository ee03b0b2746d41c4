package python

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// openWorkspace opens a workspace in a temporary folder with
// testdata/sales.csv loaded as "sales".
func openWorkspace(t testing.TB) *workspace.Workspace {
	t.Helper()
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if _, err := ws.Loader.Load(ctx, filepath.Join("testdata", "sales.csv"), load.Options{}); err != nil {
		t.Fatal(err)
	}
	return ws
}

func exportDir(t testing.TB, ws *workspace.Workspace) string {
	t.Helper()
	dir := filepath.Join(ws.Engine.ImportDir(), ".python", "t")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestExportTablesAndQueries(t *testing.T) {
	ws := openWorkspace(t)
	ctx := context.Background()
	for _, format := range []string{"csv", "parquet"} {
		t.Run(format, func(t *testing.T) {
			dir := exportDir(t, ws)
			if err := os.WriteFile(filepath.Join(dir, "stale.csv"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			ins := []input{{Name: "SALES"}, {Name: "query", SQL: "SELECT region, sum(amount) AS total FROM sales GROUP BY region"}}
			got, err := exportInputs(ctx, ws.Engine, ws, dir, ins, format, exports{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[0].Name != "sales" || got[0].Rows != 200 || got[1].Rows != 4 {
				t.Fatalf("exported %+v", got)
			}
			if _, err := os.Stat(filepath.Join(dir, "stale.csv")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a file of an earlier run is still there: %v", err)
			}
			var m map[string]exported
			b, err := os.ReadFile(filepath.Join(dir, manifestName))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			s := m["sales"]
			if s.File != "sales."+format || s.Format != format || len(s.Columns) != 5 || s.Columns[1].Name != "day" || s.Columns[1].Type != "DATE" {
				t.Errorf("manifest entry %+v", s)
			}
			fi, err := os.Stat(filepath.Join(dir, s.File))
			if err != nil || fi.Size() == 0 {
				t.Errorf("exported file: %v", err)
			}
			if format == "csv" {
				data, _ := os.ReadFile(filepath.Join(dir, "query.csv"))
				if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) != 5 || lines[0] != "region,total" {
					t.Errorf("query.csv:\n%s", data)
				}
			}
		})
	}
}

// Inputs the model gets wrong come back as an *inputError it can act on;
// nothing is written outside the inputs folder.
func TestExportRefusals(t *testing.T) {
	ws := openWorkspace(t)
	ctx := context.Background()
	outside := filepath.Join(t.TempDir(), "evil.csv")
	cases := []struct {
		name string
		in   input
		want string
	}{
		{"unknown table", input{Name: "salez"}, `no table "salez"`},
		{"write", input{Name: "q", SQL: "DELETE FROM sales"}, "refused"},
		{"copy", input{Name: "q", SQL: "COPY sales TO '" + outside + "'"}, "refused"},
		{"two statements", input{Name: "q", SQL: "SELECT 1; DROP TABLE sales"}, "refused"},
		{"break out of the wrapper", input{Name: "q", SQL: "SELECT 1) TO '" + outside + "' (FORMAT csv); --"}, "The input query"},
		{"read a file", input{Name: "q", SQL: "SELECT * FROM read_csv('/etc/passwd')"}, "refused"},
		{"bad column", input{Name: "q", SQL: "SELECT regoin FROM sales"}, "failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := exportInputs(ctx, ws.Engine, ws, exportDir(t, ws), []input{c.in}, "csv", exports{})
			var ie *inputError
			if !errors.As(err, &ie) || !strings.Contains(ie.msg, c.want) {
				t.Fatalf("got %v, want an input error with %q", err, c.want)
			}
			if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s was written", outside)
			}
		})
	}
	// The table is untouched.
	res, err := ws.Query.Run(ctx, "SELECT count(*) FROM sales", queryLimits)
	if err != nil || res.Rows[0][0] != int64(200) {
		t.Fatalf("sales after the attempts: %v %v", res, err)
	}
}

// A table exported for an earlier run is reused while it is unchanged;
// reloading it exports it again. Query results are exported every time,
// and files no run asks for are removed.
func TestExportReusesUnchangedTables(t *testing.T) {
	ws := openWorkspace(t)
	ctx := context.Background()
	dir := exportDir(t, ws)
	cache := exports{}
	export := func(ins ...input) {
		t.Helper()
		if _, err := exportInputs(ctx, ws.Engine, ws, dir, ins, "csv", cache); err != nil {
			t.Fatal(err)
		}
	}
	stamp := func(name string) time.Time {
		t.Helper()
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi.ModTime()
	}
	export(input{Name: "sales"}, input{Name: "query", SQL: "SELECT 1 AS x"})
	first := stamp("sales.csv")
	time.Sleep(20 * time.Millisecond)
	export(input{Name: "sales"})
	if !stamp("sales.csv").Equal(first) {
		t.Error("the unchanged table was exported again")
	}
	if _, err := os.Stat(filepath.Join(dir, "query.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the earlier query's file is still there: %v", err)
	}
	if _, err := ws.Loader.Load(ctx, filepath.Join("testdata", "sales.csv"), load.Options{}); err != nil {
		t.Fatal(err)
	}
	export(input{Name: "sales"})
	if stamp("sales.csv").Equal(first) {
		t.Error("the reloaded table was not exported again")
	}
	export()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 || len(cache) != 0 {
		t.Errorf("after a run without inputs: %d files, %d cached", len(entries), len(cache))
	}
}
