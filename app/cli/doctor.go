package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/status"
	"github.com/loupeapp/loupe/tools/python/sandbox"
)

func init() {
	register(command{"doctor", "doctor [--provider P] [--model M] [--base-url URL] [--image NAME] [--json]",
		"check the model server, Docker and the Python sandbox image; exit 1 if any is not ready", runDoctor})
}

// checkResult is one line of loupe doctor.
type checkResult struct {
	Name    string `json:"name"`
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// doctorTimeout bounds each check.
const doctorTimeout = 5 * time.Second

func runDoctor(ctx context.Context, e env, args []string) int {
	fs, image, asJSON := sandboxFlags("doctor", e)
	fs.Init("loupe doctor", fs.ErrorHandling())
	cfg := provider.FromEnv(os.Getenv)
	fs.StringVar(&cfg.Provider, "provider", cfg.Provider, "ollama or openai (default $LOUPE_PROVIDER, else ollama)")
	fs.StringVar(&cfg.Model, "model", cfg.Model, "model name (default $LOUPE_MODEL)")
	fs.StringVar(&cfg.BaseURL, "base-url", cfg.BaseURL, "model server URL (default $LOUPE_BASE_URL, $OLLAMA_HOST or the provider's)")
	pos, err := parse(fs, args)
	if err != nil || len(pos) > 0 {
		return ExitUsage
	}
	checks := []checkResult{checkModel(ctx, cfg)}
	checks = append(checks, checkSandbox(ctx, *image)...)
	code := ExitOK
	for _, c := range checks {
		if !c.OK {
			code = ExitError
		}
	}
	if *asJSON {
		if c := encodeJSON(e, map[string]any{"ok": code == ExitOK, "checks": checks}); c != ExitOK {
			return c
		}
		return code
	}
	for _, c := range checks {
		mark := "✓"
		if !c.OK {
			mark = "✗"
		}
		fmt.Fprintf(e.stdout, "%s %-14s %s\n", mark, c.Name, c.Message)
		if c.Fix != "" {
			fmt.Fprintf(e.stdout, "  %-14s fix: %s\n", "", c.Fix)
		}
	}
	return code
}

// checkModel lists the model server's models and looks for the chosen one.
func checkModel(ctx context.Context, cfg provider.Config) checkResult {
	r := checkResult{Name: "model server"}
	want := cfg.Model
	p, err := config.OpenListing(config.Spec{Config: cfg})
	if err != nil {
		r.Message, r.Fix = explain(err)
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	models, err := p.Models(ctx)
	where := p.Name()
	if cfg.BaseURL != "" {
		where += " at " + cfg.BaseURL
	}
	if err != nil {
		r.Message, r.Fix = explain(err)
		if cfg.BaseURL == "" || !strings.Contains(r.Message, cfg.BaseURL) {
			r.Message = where + ": " + r.Message
		}
		if llm.KindOf(err) == llm.Unreachable && p.Name() == provider.Ollama {
			r.Fix = "Start Ollama (open the Ollama app, or run `ollama serve`), or point OLLAMA_HOST / --base-url at it."
		}
		return r
	}
	switch {
	case want == "":
		r.Message = fmt.Sprintf("%s answers with %d models, but no model is chosen", where, len(models))
		r.Fix = "Set LOUPE_MODEL (or --model) to one of them, or pick one in Settings."
	case p.Name() == provider.Ollama && !slices.ContainsFunc(models, func(m llm.Model) bool { return status.SameModel(m.Name, want) }):
		r.Message = fmt.Sprintf("%s is not installed in %s", want, where)
		r.Fix = fmt.Sprintf("Run `ollama pull %s`, or choose an installed model.", want)
	default:
		r.OK = true
		r.Message = fmt.Sprintf("%s on %s", want, where)
	}
	return r
}

// explain splits an error into a message and a fix where it carries one.
func explain(err error) (msg, fix string) {
	var le *llm.Error
	var ce *provider.ConfigError
	switch {
	case errors.As(err, &le):
		return le.Message, le.Hint
	case errors.As(err, &ce):
		return ce.Message, ce.Hint
	}
	return err.Error(), ""
}

// checkSandbox checks Docker, then the sandbox image.
func checkSandbox(ctx context.Context, image string) []checkResult {
	docker := checkResult{Name: "docker"}
	img := checkResult{Name: "sandbox image"}
	sb, err := sandbox.New(sandbox.Config{Image: image})
	if err != nil {
		docker.Message = err.Error()
		docker.Fix = "Set DOCKER_HOST to a valid address (unix:///var/run/docker.sock, tcp://host:2375)."
		img.Message = "not checked: no Docker"
		return []checkResult{docker, img}
	}
	defer sb.Close()
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	st := sb.Check(ctx)
	if st.DockerVersion == "" {
		docker.Message, docker.Fix = st.Reason, st.Fix
		img.Message = "not checked: Docker is not reachable"
		return []checkResult{docker, img}
	}
	docker.OK = true
	docker.Message = fmt.Sprintf("Docker %s at %s", st.DockerVersion, st.Host)
	if !st.OK {
		img.Message, img.Fix = st.Reason, st.Fix
		return []checkResult{docker, img}
	}
	img.OK = true
	img.Message = fmt.Sprintf("%s (%d MB): %s", st.Image, st.ImageSize>>20, st.Versions)
	if st.Stale {
		img.Fix = "Built by another version of Loupe's recipe; `loupe sandbox build` brings it up to date (optional)."
	}
	return []checkResult{docker, img}
}
