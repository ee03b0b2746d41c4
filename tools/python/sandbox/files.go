package sandbox

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// File is one file the run left in the output folder.
type File struct {
	Name string `json:"name"` // path under the output folder, "/"-separated
	Size int64  `json:"size"`
	Data []byte `json:"-"`
}

// collectPy writes the output folder as a tar stream on stdout, and on
// stderr how many times the kernel has killed a process in the container
// for memory ("oom_kill=N", -1 when unknown; cgroup v1 or v2). The output
// folder is a tmpfs inside the container, which Docker's archive API
// cannot see, so the files come out through an exec.
const collectPy = `import os, sys, tarfile
def oom_kills():
    for path, key in (("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill"), ("/sys/fs/cgroup/memory.events", "oom_kill")):
        try:
            with open(path) as f:
                for line in f:
                    k, _, v = line.partition(" ")
                    if k == key:
                        return int(v)
        except (OSError, ValueError):
            pass
    return -1
sys.stderr.write("oom_kill=%d\n" % oom_kills())
sys.stderr.flush()
with tarfile.open(fileobj=sys.stdout.buffer, mode="w|") as t:
    for root, dirs, files in os.walk("/output"):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(root, f)
            if os.path.isfile(p) and not os.path.islink(p):
                t.add(p, arcname=os.path.relpath(p, "/output"))
`

// collect reads the files the run left in the output folder, keeping at
// most Limits.MaxFiles of them; skipped says what was left out and why.
// oomKills is the container's count of processes killed for memory, -1
// when unknown.
func (se *Session) collect(ctx context.Context) (files []File, skipped []string, oomKills int, err error) {
	sb := se.sb
	res, err := sb.cli.ExecCreate(ctx, se.id, client.ExecCreateOptions{
		User: User, Env: env, AttachStdout: true, AttachStderr: true,
		Cmd: []string{"python3", "-I", "-S", "-c", collectPy},
	})
	if err != nil {
		return nil, nil, -1, fmt.Errorf("list the output folder: %w", err)
	}
	att, err := sb.cli.ExecAttach(ctx, res.ID, client.ExecAttachOptions{})
	if err != nil {
		return nil, nil, -1, fmt.Errorf("read the output folder: %w", err)
	}
	defer att.Close()
	pr, pw := io.Pipe()
	var errText strings.Builder
	go func() {
		_, err := stdcopy.StdCopy(pw, &limitedBuilder{b: &errText, max: 4 << 10}, att.Reader)
		pw.CloseWithError(err)
	}()
	files, skipped, err = readTar(pr, sb.limits.MaxFiles, sb.limits.OutputSize)
	_, _ = io.Copy(io.Discard, pr)
	msg := strings.TrimSpace(errText.String())
	if err != nil {
		return nil, nil, -1, fmt.Errorf("read the output folder: %w (%s)", err, msg)
	}
	oomKills = -1
	if v, ok := strings.CutPrefix(msg, "oom_kill="); ok {
		first, _, _ := strings.Cut(v, "\n")
		if n, err := strconv.Atoi(strings.TrimSpace(first)); err == nil {
			oomKills = n
		}
	}
	return files, skipped, oomKills, nil
}

// readTar reads regular files from a tar stream: at most maxFiles, at
// most maxBytes in all.
func readTar(r io.Reader, maxFiles int, maxBytes int64) ([]File, []string, error) {
	tr := tar.NewReader(r)
	var (
		files   []File
		skipped []string
		total   int64
	)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		switch {
		case len(files) >= maxFiles:
			skipped = append(skipped, fmt.Sprintf("%s: more than %d files", name, maxFiles))
			continue
		case total+h.Size > maxBytes:
			skipped = append(skipped, fmt.Sprintf("%s: over the %d MB output limit", name, maxBytes>>20))
			continue
		}
		data, err := io.ReadAll(io.LimitReader(tr, h.Size))
		if err != nil {
			return nil, nil, err
		}
		total += int64(len(data))
		files = append(files, File{Name: name, Size: int64(len(data)), Data: data})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, skipped, nil
}

// limitedBuilder keeps the first max bytes written to it.
type limitedBuilder struct {
	b   *strings.Builder
	max int
}

func (l *limitedBuilder) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
