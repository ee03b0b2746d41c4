package python

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/python/sandbox"
)

// detail is Display.Data of every run_python result: what the UI shows in
// the trace (the code, its inputs, what it printed, its files).
type detail struct {
	Code      string         `json:"code"`
	Inputs    []inputInfo    `json:"inputs,omitempty"`
	ExitCode  int            `json:"exit_code"`
	Stopped   sandbox.Stop   `json:"stopped,omitempty"` // "timeout" or "flood"
	OOMKilled bool           `json:"oom_killed,omitempty"`
	ElapsedMS float64        `json:"elapsed_ms"`
	Cold      bool           `json:"cold_start,omitempty"`
	Stdout    sandbox.Stream `json:"stdout"`
	Stderr    sandbox.Stream `json:"stderr"`
	Files     []fileInfo     `json:"files,omitempty"`
	Skipped   []string       `json:"skipped,omitempty"`
}

type inputInfo struct {
	Name   string `json:"name"`
	Rows   int64  `json:"rows"`
	Format string `json:"format"`
	SQL    string `json:"sql,omitempty"`
}

// fileInfo is one file the run wrote, kept on disk for the UI.
type fileInfo struct {
	Name      string `json:"name"` // as the code named it, under /output
	Path      string `json:"path"` // where Loupe keeps it
	Bytes     int64  `json:"bytes"`
	MediaType string `json:"media_type"`
	// Kind is "image" (shown as a chart) or "download" (offered to save).
	Kind string `json:"kind"`
	// Inline is false for an image too big to show in the chart.
	Inline bool `json:"inline,omitempty"`
}

// maxInlineImage is the largest image shown in the chart; larger ones are
// offered as downloads only.
const maxInlineImage = 2 << 20

// result builds run_python's dual result from a run's outcome.
func (t *Tool) result(ctx context.Context, code, purpose string, ex []exported, out *sandbox.Outcome) (tools.Result, error) {
	d := detail{
		Code: code, ExitCode: out.ExitCode, Stopped: out.Stopped, OOMKilled: out.OOMKilled,
		ElapsedMS: float64(out.Elapsed.Microseconds()) / 1000, Cold: out.Cold,
		Stdout: out.Stdout, Stderr: out.Stderr, Skipped: out.Skipped,
	}
	for _, e := range ex {
		d.Inputs = append(d.Inputs, inputInfo{Name: e.Name, Rows: e.Rows, Format: e.Format, SQL: e.SQL})
	}
	files, images, err := t.keepFiles(tools.ChatFrom(ctx), out.Files)
	if err != nil {
		return tools.Result{}, err
	}
	d.Files = files
	text := t.modelText(out, files, images)
	if msg := problem(out, t.sb.Limits()); msg != "" {
		return failed(msg+"\n\n"+text, summaryOf(out), d), nil
	}
	res := tools.Result{ForModel: text, Summary: summaryOf(out)}
	if len(images) > 0 {
		title := strings.TrimSpace(purpose)
		if title == "" {
			title = "Python: " + images[0].name
		}
		spec, err := imageSpec(title, images)
		if err != nil {
			return tools.Result{}, err
		}
		res.Display = tools.Display{Kind: tools.KindChart, Text: purpose, SQL: soleSQL(ex),
			Chart: &tools.Chart{Title: title, Spec: spec, Mark: "image", Rows: len(images)}}
	} else {
		res.Display = tools.Display{Kind: tools.KindText, Text: out.Stdout.String(), SQL: soleSQL(ex)}
	}
	res.Display.Data = mustJSON(d)
	return res, nil
}

// keepFiles saves the run's files under FilesDir/CHAT/RUN/ (removed with
// the conversation, see RemoveChatFiles) and sorts out the images that go
// into the chart.
func (t *Tool) keepFiles(chat string, fs []sandbox.File) ([]fileInfo, []image, error) {
	if len(fs) == 0 {
		return nil, nil, nil
	}
	dir := filepath.Join(t.cfg.FilesDir, chatFolder(chat), randomHex(8))
	if err := os.MkdirAll(dir, 0o700); err != nil { // in the private workspace (data/perm)
		return nil, nil, fmt.Errorf("run_python: keep the run's files: %w", err)
	}
	var (
		infos  []fileInfo
		images []image
		used   = map[string]bool{}
	)
	for _, f := range fs {
		local := localName(f.Name, used)
		p := filepath.Join(dir, local)
		if err := os.WriteFile(p, f.Data, 0o600); err != nil {
			return nil, nil, fmt.Errorf("run_python: keep %s: %w", f.Name, err)
		}
		fi := fileInfo{Name: f.Name, Path: p, Bytes: f.Size, MediaType: mediaType(f.Name), Kind: "download"}
		if img, ok := asImage(f); ok {
			fi.Kind = "image"
			if f.Size <= maxInlineImage {
				fi.Inline = true
				images = append(images, img)
			}
		}
		infos = append(infos, fi)
	}
	return infos, images, nil
}

// modelText is what the model reads: how the run went, what it printed
// (capped, said plainly), and what became of its files.
func (t *Tool) modelText(out *sandbox.Outcome, files []fileInfo, images []image) string {
	var b strings.Builder
	if out.Stopped == "" {
		fmt.Fprintf(&b, "Exit status %d after %s.\n", out.ExitCode, seconds(out.Elapsed))
	}
	writeStream(&b, "stdout", out.Stdout, modelStdoutHead, modelStdoutTail)
	writeStream(&b, "stderr", out.Stderr, modelStderrHead, modelStderrTail)
	if out.Stdout.Total == 0 && out.Stderr.Total == 0 {
		b.WriteString("It printed nothing.\n")
	}
	if len(files) > 0 {
		b.WriteString("Files in /output:\n")
		for _, f := range files {
			fate := "offered to the user for download"
			switch {
			case f.Kind == "image" && f.Inline:
				fate = "shown to the user as a chart"
				for _, img := range images {
					if img.name == f.Name && img.width > 0 {
						fate = fmt.Sprintf("%d×%d, shown to the user as a chart", img.width, img.height)
					}
				}
			case f.Kind == "image":
				fate = fmt.Sprintf("too large to show (over %d MB), offered for download", maxInlineImage>>20)
			}
			fmt.Fprintf(&b, "- %s (%s): %s\n", f.Name, size(f.Bytes), fate)
		}
	}
	for _, s := range out.Skipped {
		fmt.Fprintf(&b, "Left out: %s\n", s)
	}
	return strings.TrimRight(b.String(), "\n")
}

// writeStream writes a stream's text as the model sees it: its start and
// end within head and tail bytes, with what was left out counted.
func writeStream(b *strings.Builder, name string, s sandbox.Stream, head, tail int) {
	if s.Total == 0 {
		return
	}
	all := s.Head + s.Tail
	kept := s.Dropped <= 0 && len(all) <= head+tail
	if kept {
		fmt.Fprintf(b, "%s (%s):\n%s", name, size(s.Total), all)
	} else {
		h := s.Head[:cut(s.Head, head)]
		full := s.Head + s.Tail
		if s.Dropped > 0 {
			full = s.Tail
		}
		tl := full[len(full)-cutBack(full, tail):]
		left := s.Total - int64(len(h)) - int64(len(tl))
		sep := "\n"
		if strings.HasSuffix(h, "\n") {
			sep = ""
		}
		fmt.Fprintf(b, "%s (%s; the first %s and the last %s shown, %s left out):\n%s%s[… %s left out …]\n%s",
			name, size(s.Total), size(int64(len(h))), size(int64(len(tl))), size(left), h, sep, size(left), tl)
	}
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
}

// cut is where to end a head of at most n bytes: at the last line break
// in its second half when there is one, else without splitting a UTF-8
// character.
func cut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	if i := strings.LastIndexByte(s[:n], '\n'); i >= n/2 {
		return i + 1
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return n
}

// cutBack is the length of a tail of at most n bytes: from the first line
// break in its first half when there is one, else from a character
// boundary.
func cutBack(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	i := len(s) - n
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 && j < n/2 {
		return n - j - 1
	}
	for i < len(s) && s[i]&0xC0 == 0x80 {
		i++
	}
	return len(s) - i
}

// problem says why a run failed, with how to fix it; empty when it ran to
// exit status 0.
func problem(out *sandbox.Outcome, l sandbox.Limits) string {
	switch {
	case out.Stopped == sandbox.StopTimeout:
		return fmt.Sprintf("The code was stopped after the %s time limit (the sandbox was restarted: files in /tmp are gone). "+
			"Make it faster: aggregate or filter in SQL first (give a SELECT as the input), sample, or replace loops over rows with vectorised pandas.", l.Timeout)
	case out.Stopped == sandbox.StopFlood:
		return fmt.Sprintf("The code was stopped: it printed more than %d MB. Print summaries (df.head(), df.describe(), aggregates), not whole tables; "+
			"write big results to a CSV file in /output instead.", l.FloodLimit>>20)
	case out.OOMKilled:
		return fmt.Sprintf("The code was killed for using more than the %d MB memory limit. Load less: give a SELECT input with only the columns and rows needed "+
			"(or aggregated in SQL), or process the data in chunks.", l.Memory>>20)
	case out.ExitCode == 137:
		return "The code was killed (SIGKILL). If it started many processes or threads, it hit the process limit; use fewer."
	case out.ExitCode != 0:
		return fmt.Sprintf("The code failed with exit status %d; the error is at the end of stderr below. Fix the code and call run_python again.", out.ExitCode)
	}
	return ""
}

func summaryOf(out *sandbox.Outcome) string {
	switch {
	case out.Stopped == sandbox.StopTimeout:
		return "timed out after " + seconds(out.Elapsed)
	case out.Stopped == sandbox.StopFlood:
		return "stopped: output flood"
	case out.OOMKilled:
		return "killed: out of memory"
	case out.ExitCode != 0:
		if line := lastLine(out.Stderr.String()); line != "" {
			return clip(line, 100)
		}
		return fmt.Sprintf("exit status %d", out.ExitCode)
	}
	s := "ran in " + seconds(out.Elapsed)
	if n := len(out.Files); n > 0 {
		s += fmt.Sprintf(", %d %s", n, plural(n, "file", "files"))
	}
	return s
}

// failed is tools.Failed with the run's detail for the UI.
func failed(msg, summary string, d detail) tools.Result {
	r := tools.Failed(msg, summary, "")
	r.Display.Data = mustJSON(d)
	return r
}

// soleSQL is the query behind the run when it had exactly one input and
// that was a query, so the chart can be tied to it.
func soleSQL(ex []exported) string {
	if len(ex) == 1 {
		return ex[0].SQL
	}
	return ""
}

var unsafePart = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// localName flattens a path under /output into one safe file name.
func localName(name string, used map[string]bool) string {
	parts := strings.Split(path.Clean(name), "/")
	for i, p := range parts {
		parts[i] = strings.Trim(unsafePart.ReplaceAllString(p, "_"), "._")
	}
	n := strings.Trim(strings.Join(parts, "_"), "_")
	if n == "" {
		n = "file"
	}
	ext := path.Ext(name)
	base := strings.TrimSuffix(n, ext)
	for i := 2; used[n]; i++ {
		n = fmt.Sprintf("%s_%d%s", base, i, ext)
	}
	used[n] = true
	return n
}

func mediaType(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".png":
		return "image/png"
	case ".svg":
		return "image/svg+xml"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".csv":
		return "text/csv"
	case ".xlsx":
		return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	case ".json":
		return "application/json"
	case ".txt", ".md":
		return "text/plain"
	case ".html":
		return "text/html"
	case ".parquet":
		return "application/vnd.apache.parquet"
	}
	return "application/octet-stream"
}

func size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
