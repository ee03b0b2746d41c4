package assemble_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/tools/tooltest"
)

// TestPrimeCost measures what masking adds to a run over a table with as
// many distinct names and emails as a run learns (assemble.PrivateValues): reading the private values once per
// conversation, and masking an 8 KB tool result. It fails only past
// generous bounds; the figures are logged.
func TestPrimeCost(t *testing.T) {
	if testing.Short() {
		t.Skip("measures a 50,000-row load")
	}
	var b strings.Builder
	b.WriteString("id,email,full_name,amount\n")
	for i := range assemble.PrivateValues {
		fmt.Fprintf(&b, "%d,user%d@example.org,Person Number%d,%d\n", i, i, i, i%1000)
	}
	path := filepath.Join(t.TempDir(), "people.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := tooltest.Empty(t)
	tooltest.Load(t, ws, path)
	src := assemble.WorkspacePrivate{WS: ws}
	ctx := context.Background()
	cols, err := src.PrivateColumns(ctx)
	if err != nil || len(cols) != 2 {
		t.Fatalf("private columns %v %v", cols, err)
	}
	m := privacy.NewMasker()
	start := time.Now()
	for _, c := range cols {
		vs, err := src.PrivateValues(ctx, c, assemble.PrivateValues)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			m.Mask(v, c.Kind)
		}
	}
	primed := time.Since(start)
	var text strings.Builder
	for i := 0; text.Len() < 8<<10; i++ {
		fmt.Fprintf(&text, "Person Number%d | user%d@example.org | %d\n", i*7, i*7, i)
	}
	start = time.Now()
	const n = 50
	var out string
	for range n {
		out = m.MaskText(text.String())
	}
	perText := time.Since(start) / n
	t.Logf("primed %d values in %s; masking 8 KB of text takes %s", m.Len(), primed.Round(time.Millisecond), perText.Round(time.Microsecond))
	if strings.Contains(out, "@example.org") || strings.Contains(out, "Person Number") {
		t.Errorf("values left in the masked text: %.200s", out)
	}
	if primed > 10*time.Second || perText > 200*time.Millisecond {
		t.Errorf("masking is too slow: prime %s, 8 KB %s", primed, perText)
	}
}
