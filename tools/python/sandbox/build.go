package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/moby/moby/api/types/build"
	"github.com/moby/moby/client"
)

// BuildOptions choose the recipe.
type BuildOptions struct {
	// Offline builds from the machine's apt mirror with debootstrap
	// (Linux, root) instead of the Dockerfile (which needs Docker Hub and
	// PyPI).
	Offline bool
	Mirror  string // offline: apt mirror URL; empty means the machine's own
	Suite   string // offline: Debian release; empty means the machine's
	// Packages replaces the offline recipe's package list (comma-separated);
	// empty means the full list. A smaller list builds faster (tests).
	Packages string
	WorkDir  string // offline: scratch folder (about 1.3 GB); empty means the system's
}

// Progress is how far a build is.
type Progress struct {
	Step  int    `json:"step"`  // 1-based
	Steps int    `json:"steps"` // how many steps the recipe has
	Title string `json:"title"` // what the step does
	Line  string `json:"line"`  // the latest line of detail
	// Bytes and Total count the image data sent to Docker (offline) or
	// downloaded (Dockerfile) in this step; Total is 0 when unknown.
	Bytes int64 `json:"bytes"`
	Total int64 `json:"total"`
	// Fraction estimates the whole build's progress, 0 to 1.
	Fraction float64 `json:"fraction"`
}

// BuildResult is what Build made.
type BuildResult struct {
	Image    string        `json:"image"`
	Kind     string        `json:"kind"`
	Versions string        `json:"versions"`
	Size     int64         `json:"size"`
	Elapsed  time.Duration `json:"elapsed"`
}

// Build builds the sandbox image from the recipe o chooses and tags it
// with the sandbox's image name, reporting progress (which may be nil)
// as it goes. Cancelling ctx stops the build and leaves no scratch files.
func (s *Sandbox) Build(ctx context.Context, o BuildOptions, progress func(Progress)) (BuildResult, error) {
	if progress == nil {
		progress = func(Progress) {}
	}
	start := time.Now()
	var (
		res BuildResult
		err error
	)
	if o.Offline {
		res, err = s.buildOffline(ctx, o, progress)
	} else {
		res, err = s.buildDockerfile(ctx, progress)
	}
	if err != nil {
		if ctx.Err() != nil {
			return BuildResult{}, ctx.Err()
		}
		return BuildResult{}, err
	}
	img, err := s.cli.ImageInspect(ctx, s.image)
	if err != nil {
		return BuildResult{}, s.wrap("inspect the new image", err)
	}
	res.Image, res.Size, res.Elapsed = s.image, img.Size, time.Since(start)
	return res, nil
}

// BuildError is a build that failed in its recipe, with what to do.
type BuildError struct {
	Step string // the step that failed
	Msg  string // what the recipe or Docker said
	Fix  string
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("sandbox image build failed at %q: %s — %s", e.Step, e.Msg, e.Fix)
}

// buildDockerfile sends the Dockerfile recipe to the daemon's classic
// builder and follows its JSON progress stream.
func (s *Sandbox) buildDockerfile(ctx context.Context, progress func(Progress)) (BuildResult, error) {
	bctx, err := tarFiles(map[string][]byte{
		"Dockerfile":       recipeFile("Dockerfile"),
		"requirements.txt": recipeFile("requirements.txt"),
	})
	if err != nil {
		return BuildResult{}, err
	}
	versions := pinnedVersions()
	labels := map[string]string{
		LabelRecipe: RecipeHash(KindDockerfile), LabelKind: KindDockerfile,
		LabelFormats: "parquet,csv", LabelVersions: versions,
	}
	res, err := s.cli.ImageBuild(ctx, bctx, client.ImageBuildOptions{
		Tags: []string{s.image}, Labels: labels, Remove: true, ForceRemove: true,
		Version: build.BuilderV1, Dockerfile: "Dockerfile",
	})
	if err != nil {
		return BuildResult{}, s.wrap("start the image build", err)
	}
	defer res.Body.Close()
	if err := followBuild(res.Body, progress); err != nil {
		return BuildResult{}, err
	}
	return BuildResult{Kind: KindDockerfile, Versions: versions}, nil
}

// buildMessage is one line of the classic builder's JSON stream.
type buildMessage struct {
	Stream   string `json:"stream"`
	Status   string `json:"status"`
	ID       string `json:"id"`
	Progress struct {
		Current int64 `json:"current"`
		Total   int64 `json:"total"`
	} `json:"progressDetail"`
	Error       string `json:"error"`
	ErrorDetail struct {
		Message string `json:"message"`
	} `json:"errorDetail"`
}

// followBuild reads the builder's messages into progress: "Step 3/8 : RUN
// …" lines set the step, download status lines the bytes.
func followBuild(r io.Reader, progress func(Progress)) error {
	dec := json.NewDecoder(r)
	p := Progress{Steps: 1}
	for {
		var m buildMessage
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("sandbox: read the build's progress: %w", err)
		}
		if m.Error != "" || m.ErrorDetail.Message != "" {
			msg := m.ErrorDetail.Message
			if msg == "" {
				msg = m.Error
			}
			fix := "Check the message above; `loupe sandbox build --offline` builds from this machine's apt mirror instead."
			if strings.Contains(msg, "pull") || strings.Contains(msg, "registry") || strings.Contains(msg, "dial") ||
				strings.Contains(msg, "resolve") || strings.Contains(msg, "Could not find a version") || strings.Contains(msg, "Network") {
				fix = "This recipe needs internet (Docker Hub and PyPI). On a machine without it, run `loupe sandbox build --offline`."
			}
			return &BuildError{Step: p.Title, Msg: strings.TrimSpace(msg), Fix: fix}
		}
		line := strings.TrimSpace(m.Stream)
		var step, steps int
		if n, _ := fmt.Sscanf(line, "Step %d/%d :", &step, &steps); n == 2 {
			p.Step, p.Steps = step, steps
			p.Title = strings.TrimSpace(line[strings.Index(line, ":")+1:])
			p.Bytes, p.Total = 0, 0
		}
		if m.Status != "" {
			line = strings.TrimSpace(m.Status + " " + m.ID)
			if m.Progress.Total > 0 {
				p.Bytes, p.Total = m.Progress.Current, m.Progress.Total
			}
		}
		if line == "" {
			continue
		}
		p.Line = line
		if p.Steps > 0 && p.Step > 0 {
			p.Fraction = float64(p.Step-1) / float64(p.Steps)
		}
		progress(p)
	}
}

// tarFiles makes a build context of files.
func tarFiles(files map[string][]byte) (io.Reader, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for name, data := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: time.Unix(0, 0)}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return &buf, nil
}
