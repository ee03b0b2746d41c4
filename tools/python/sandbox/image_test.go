package sandbox_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/tools/python/sandbox"
	"github.com/loupeapp/loupe/tools/python/sandbox/sandboxtest"
)

// The offline recipe's image is present, labelled with the recipe it was
// built from, and says what it holds.
func TestImageFromOfflineRecipe(t *testing.T) {
	host, image := sandboxtest.Image(t)
	sb, err := sandbox.New(sandbox.Config{Host: host, Image: image})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	st := sb.Check(context.Background())
	if !st.OK || st.Stale || st.Kind != sandbox.KindOffline || st.Formats != "csv" {
		t.Fatalf("status: %+v", st)
	}
	for _, p := range []string{"python=3", "pandas=", "numpy=", "matplotlib=", "seaborn=", "scipy=", "openpyxl="} {
		if !strings.Contains(st.Versions, p) {
			t.Errorf("versions %q lack %q", st.Versions, p)
		}
	}
	t.Logf("image %s: %d MB, %s", image, st.ImageSize>>20, st.Versions)
}
