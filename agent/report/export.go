package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/agent/report/vega"
)

// Export writes rep as a folder:
//
//	dir/report.md           the report; charts as image links, the appendix of every query
//	dir/report.html         the same, self-contained: interactive charts, no network
//	dir/charts/REF.svg      each chart, drawn without a browser
//	dir/.loupe-report.json  the manifest: what Loupe wrote here
//
// The folder is written whole or not at all: everything goes into a hidden
// sibling folder first, which then takes dir's place by rename, so a
// failure or cancel midway leaves dir exactly as it was and no temporary
// files behind.
//
// dir may be missing, empty, or a folder Loupe exported before (its
// manifest lists every file in it; Finder/Explorer droppings such as
// .DS_Store are tolerated). Any other folder is refused with a
// *FolderInUseError (errors.Is ErrFolderInUse) and left untouched: Loupe
// never deletes files it did not write. A chart Vega cannot draw does not
// fail the export: its ChartFile says why, report.md says so in its place,
// and report.html still tries to draw it.
func Export(ctx context.Context, rep *Report, dir string) (Files, error) {
	return exportWith(ctx, rep, dir, vega.Shared(), nil)
}

// Files is what Export wrote, as absolute paths.
type Files struct {
	Dir      string      `json:"dir"`
	Markdown string      `json:"markdown"`
	HTML     string      `json:"html"`
	Charts   []ChartFile `json:"charts,omitempty"`
	// PDF and XLSX are the file of a PDF or workbook export (WritePDF,
	// Sheets), set by the caller that wrote it.
	PDF  string `json:"pdf,omitempty"`
	XLSX string `json:"xlsx,omitempty"`
}

// ChartFile is one chart's image.
type ChartFile struct {
	Ref   string `json:"ref"`
	SVG   string `json:"svg,omitempty"`   // path; empty when the chart could not be drawn
	Error string `json:"error,omitempty"` // why it could not be drawn
}

// ErrFolderInUse is matched by a *FolderInUseError.
var ErrFolderInUse = errors.New("report: the folder holds files Loupe did not write")

// FolderInUseError refuses to export into a folder that holds other files.
type FolderInUseError struct {
	Dir     string
	Foreign []string // a few of the files Loupe did not write
}

func (e *FolderInUseError) Error() string {
	return fmt.Sprintf("report: %s holds files Loupe did not write (%s) — choose an empty or new folder",
		e.Dir, strings.Join(e.Foreign, ", "))
}

func (e *FolderInUseError) Is(target error) bool { return target == ErrFolderInUse }

const (
	manifestName = ".loupe-report.json"
	mdName       = "report.md"
	htmlName     = "report.html"
	chartsDir    = "charts"
)

type manifest struct {
	LoupeReport int       `json:"loupe_report"` // format version
	Title       string    `json:"title"`
	Created     time.Time `json:"created"`
	Files       []string  `json:"files"` // slash-separated, relative to the folder
}

// osDroppings are files desktops leave in folders a user browsed.
var osDroppings = map[string]bool{".DS_Store": true, "Thumbs.db": true, "desktop.ini": true}

// exportHook, when set by tests, runs after each step of an export
// ("render", a file written such as "charts/c1.svg", "swap") and can fail it.
var exportHook func(step string) error

func hook(step string) error {
	if exportHook == nil {
		return nil
	}
	return exportHook(step)
}

func exportWith(ctx context.Context, rep *Report, dir string, r *vega.Renderer, log *slog.Logger) (Files, error) {
	if log == nil {
		log = slog.Default()
	}
	start := time.Now()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Files{}, fmt.Errorf("report: export folder %q: %w", dir, err)
	}
	exists, err := checkTarget(abs)
	if err != nil {
		return Files{}, err
	}
	images, chartFiles := renderCharts(ctx, rep, r, abs)
	if err := ctx.Err(); err != nil {
		return Files{}, err
	}
	if err := hook("render"); err != nil {
		return Files{}, err
	}
	page, err := rep.html(images)
	if err != nil {
		return Files{}, err
	}
	files := map[string][]byte{
		mdName:   []byte(rep.markdownExport(images)),
		htmlName: page,
	}
	for ref, img := range images {
		if img.SVG != nil {
			files[chartsDir+"/"+ref+".svg"] = img.SVG
		}
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return Files{}, fmt.Errorf("report: export: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".loupe-tmp-")
	if err != nil {
		return Files{}, fmt.Errorf("report: export: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	if err := writeAll(ctx, tmp, rep, files); err != nil {
		return Files{}, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it private
		return Files{}, fmt.Errorf("report: export: %w", err)
	}
	if err := swapIn(tmp, abs, exists); err != nil {
		return Files{}, err
	}
	done = true
	out := Files{Dir: abs, Markdown: filepath.Join(abs, mdName), HTML: filepath.Join(abs, htmlName), Charts: chartFiles}
	log.Info("report exported", "subsystem", "report", "dir", abs, "charts", len(chartFiles),
		"ms", time.Since(start).Milliseconds())
	return out, nil
}

// markdownExport is report.md, saying in place of a chart that could not be
// drawn why not.
func (r *Report) markdownExport(images map[string]chartImage) string {
	return r.markdown(func(ch *Chart, fig int) string {
		img := images[ch.Ref]
		if img.SVG == nil {
			return mdChart(ch, fig, "", img.Err)
		}
		return mdChart(ch, fig, chartsDir+"/"+ch.Ref+".svg", "")
	})
}

// renderCharts draws every chart of the exploration. A chart that cannot be
// drawn gets an Err; ctx ending is checked by the caller.
func renderCharts(ctx context.Context, rep *Report, r *vega.Renderer, abs string) (map[string]chartImage, []ChartFile) {
	charts := rep.Exploration.Charts
	imgs := make([]chartImage, len(charts))
	var wg sync.WaitGroup
	for i, ch := range charts {
		wg.Go(func() {
			svg, err := r.SVG(ctx, ch.Spec)
			switch {
			case err == nil:
				imgs[i] = chartImage{SVG: svg}
			case ctx.Err() != nil:
				imgs[i] = chartImage{Err: ctx.Err().Error()}
			default:
				var se *vega.SpecError
				if errors.As(err, &se) {
					imgs[i] = chartImage{Err: se.Msg}
				} else {
					imgs[i] = chartImage{Err: err.Error()}
				}
			}
		})
	}
	wg.Wait()
	out := make(map[string]chartImage, len(charts))
	files := make([]ChartFile, len(charts))
	for i, ch := range charts {
		out[ch.Ref] = imgs[i]
		files[i] = ChartFile{Ref: ch.Ref, Error: imgs[i].Err}
		if imgs[i].SVG != nil {
			files[i].SVG = filepath.Join(abs, chartsDir, ch.Ref+".svg")
		}
	}
	return out, files
}

// checkTarget reports whether dir exists, and refuses a folder that holds
// anything but a previous export.
func checkTarget(dir string) (bool, error) {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("report: export folder: %w", err)
	}
	if !st.IsDir() {
		return false, fmt.Errorf("report: export folder %s is a file", dir)
	}
	ours := map[string]bool{}
	if b, err := os.ReadFile(filepath.Join(dir, manifestName)); err == nil {
		var m manifest
		if json.Unmarshal(b, &m) == nil && m.LoupeReport > 0 {
			for _, f := range m.Files {
				ours[f] = true
			}
			ours[manifestName] = true
		}
	}
	var foreign []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
		case d.IsDir():
			if !slices.ContainsFunc(mapsKeys(ours), func(f string) bool { return strings.HasPrefix(f, rel+"/") }) {
				foreign = append(foreign, rel+"/")
				return filepath.SkipDir
			}
		case !ours[rel] && !osDroppings[d.Name()]:
			foreign = append(foreign, rel)
		}
		if len(foreign) >= 5 {
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		return true, fmt.Errorf("report: export folder: %w", err)
	}
	if len(foreign) > 0 {
		return true, &FolderInUseError{Dir: dir, Foreign: foreign}
	}
	return true, nil
}

func mapsKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// writeAll writes files and the manifest into tmp, each synced to disk.
func writeAll(ctx context.Context, tmp string, rep *Report, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	if err := os.Mkdir(filepath.Join(tmp, chartsDir), 0o755); err != nil {
		return fmt.Errorf("report: export: %w", err)
	}
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := writeSynced(filepath.Join(tmp, filepath.FromSlash(n)), files[n]); err != nil {
			return err
		}
		if err := hook(n); err != nil {
			return err
		}
	}
	m := manifest{LoupeReport: 1, Title: rep.Title, Created: rep.Created, Files: append(names, chartsDir+"/")}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("report: export: %w", err)
	}
	if err := writeSynced(filepath.Join(tmp, manifestName), b); err != nil {
		return err
	}
	return hook(manifestName)
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("report: export: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("report: export: write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// swapIn puts the finished folder tmp at dir. An existing dir is moved
// aside first and restored if the second rename fails, then removed.
func swapIn(tmp, dir string, exists bool) error {
	if !exists {
		if err := hook("swap"); err != nil {
			return err
		}
		if err := os.Rename(tmp, dir); err != nil {
			return fmt.Errorf("report: export: %w", err)
		}
		return nil
	}
	aside, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".loupe-old-")
	if err != nil {
		return fmt.Errorf("report: export: %w", err)
	}
	old := filepath.Join(aside, "previous")
	if err := os.Rename(dir, old); err != nil {
		os.Remove(aside)
		return fmt.Errorf("report: export: move the previous report aside: %w", err)
	}
	err = hook("swap")
	if err == nil {
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		if rerr := os.Rename(old, dir); rerr != nil {
			return fmt.Errorf("report: export failed (%v) and the previous report could not be put back from %s: %w", err, old, rerr)
		}
		os.Remove(aside)
		return fmt.Errorf("report: export: %w", err)
	}
	if err := os.RemoveAll(aside); err != nil {
		return fmt.Errorf("report: export: the report is written, but the previous one remains at %s: %w", aside, err)
	}
	return nil
}
