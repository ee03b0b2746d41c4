package cli

import (
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/tools/python/sandbox"
	"github.com/loupeapp/loupe/tools/python/sandbox/sandboxtest"
)

// closedURL is an address where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestDoctor(t *testing.T) {
	host, image := sandboxtest.Image(t)
	models := fake.Start(t, fake.Options{Models: []fake.Model{{Name: "qwen3:8b", Tools: true}}})
	cases := []struct {
		name                  string
		model, base, docker   string
		image                 string
		exit                  int
		lines                 []string // each must appear in the output
		modelOK, dockOK, imOK bool
	}{
		{"all ready", "qwen3:8b", models.OllamaURL(), host, image, ExitOK,
			[]string{"✓ model server   qwen3:8b on ollama", "✓ docker         Docker ", "✓ sandbox image  " + image}, true, true, true},
		{"nothing runs", "qwen3:8b", closedURL(t), "unix://" + filepath.Join(t.TempDir(), "docker.sock"), image, ExitError,
			[]string{"✗ model server   Ollama is not running at", "fix: Start Ollama", "✗ docker         Docker is not running", "fix: Start Docker",
				"✗ sandbox image  not checked"}, false, false, false},
		{"model and image missing", "llama9:70b", models.OllamaURL(), host, "loupe-sandbox:never-built", ExitError,
			[]string{"✗ model server   llama9:70b is not installed", "fix: Run `ollama pull llama9:70b`", "✓ docker",
				"✗ sandbox image  the sandbox image loupe-sandbox:never-built is not built yet", "fix: Run `loupe sandbox build`"}, false, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("DOCKER_HOST", c.docker)
			t.Setenv(sandbox.EnvImage, c.image)
			t.Setenv("LOUPE_PROVIDER", "ollama")
			t.Setenv("LOUPE_MODEL", c.model)
			t.Setenv("LOUPE_BASE_URL", c.base)
			code, out, errs := run(t, "", "doctor")
			if code != c.exit {
				t.Errorf("exit %d, want %d\n%s%s", code, c.exit, out, errs)
			}
			for _, l := range c.lines {
				if !strings.Contains(out, l) {
					t.Errorf("output lacks %q:\n%s", l, out)
				}
			}
			code, out, _ = run(t, "", "doctor", "--json")
			var res struct {
				OK     bool
				Checks []checkResult
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil || code != c.exit || len(res.Checks) != 3 {
				t.Fatalf("--json: exit %d %v\n%s", code, err, out)
			}
			got := []bool{res.Checks[0].OK, res.Checks[1].OK, res.Checks[2].OK}
			if got[0] != c.modelOK || got[1] != c.dockOK || got[2] != c.imOK || res.OK != (c.exit == ExitOK) {
				t.Errorf("--json checks %+v", res.Checks)
			}
			for _, ch := range res.Checks {
				if !ch.OK && ch.Fix == "" && !strings.HasPrefix(ch.Message, "not checked") {
					t.Errorf("%s is not ready but has no fix: %+v", ch.Name, ch)
				}
			}
		})
	}
}
