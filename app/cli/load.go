package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
)

// loadLine is what `loupe load` prints for each table, one JSON per line.
type loadLine struct {
	Table    string       `json:"table"`
	Source   string       `json:"source"`
	Part     string       `json:"part,omitempty"`
	Kind     string       `json:"kind"`
	Rows     int64        `json:"rows"`
	Columns  []loadColumn `json:"columns"`
	Warnings []string     `json:"warnings"`
	LoadMS   float64      `json:"load_ms"`
}

type loadColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

func runLoad(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("load", e)
	quiet := fs.Bool("quiet", false, "no progress bar")
	asOne := fs.String("as-one", "", "read the CSV files of one folder as one dataset of this name (columns matched by name)")
	text := textFlags(fs)
	args, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, "loupe load: give at least one file or folder, e.g. loupe load sales.csv or loupe load exports/")
		return ExitUsage
	}
	if *asOne != "" && len(args) != 1 {
		fmt.Fprintln(e.stderr, "loupe load: --as-one reads one folder, e.g. loupe load --as-one sales exports/")
		return ExitUsage
	}
	files, code := loadArgs(e, args, *asOne != "")
	if len(files) == 0 {
		return code
	}
	w, err := openWorkspace(ctx, *ws)
	if err != nil {
		return fail(e, err)
	}
	defer w.Close()
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	for i, f := range files {
		opt := load.Options{Text: *text}
		var bar *progressBar
		if !*quiet && isTerminal(e.stderr) {
			bar = &progressBar{w: e.stderr}
			if len(files) > 1 {
				bar.prefix = fmt.Sprintf("%d/%d ", i+1, len(files))
			}
			opt.Progress = bar.update
		}
		var ds []catalog.Dataset
		if *asOne != "" {
			ds, err = w.Loader.LoadFolder(ctx, f, *asOne, opt)
		} else {
			ds, err = w.Loader.Load(ctx, f, opt)
		}
		bar.clear()
		if err != nil {
			if ctx.Err() != nil {
				fmt.Fprintf(e.stderr, "loupe load: cancelled; %d of %d files were loaded, the one being loaded was left as it was\n", i, len(files))
				return ExitError
			}
			fmt.Fprintf(e.stderr, "loupe load: %v\n", err)
			code = ExitError
			continue
		}
		for _, d := range ds {
			line := loadLine{Table: d.Name, Source: d.Source, Part: d.Part, Kind: d.Kind, Rows: d.Rows, Warnings: d.Warnings, LoadMS: d.LoadMS}
			if line.Warnings == nil {
				line.Warnings = []string{}
			}
			for _, c := range d.Columns {
				line.Columns = append(line.Columns, loadColumn{Name: c.Name, Type: c.Type})
			}
			if err := enc.Encode(line); err != nil {
				return fail(e, err)
			}
		}
	}
	return code
}

// loadArgs turns the command's arguments into the paths to load: a
// folder stands for the data files directly inside it (load.Folder),
// saying on stderr how many were left out; with asOne, the one folder
// itself. A folder that cannot be listed is reported and the others go
// on; the code is ExitError if any was.
func loadArgs(e env, args []string, asOne bool) ([]string, int) {
	if asOne {
		return args, ExitOK
	}
	code := ExitOK
	var files []string
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil || !info.IsDir() {
			files = append(files, a) // the load says what is wrong with it
			continue
		}
		inside, skipped, err := load.Folder(a)
		if err != nil {
			fmt.Fprintf(e.stderr, "loupe load: %v\n", err)
			code = ExitError
			continue
		}
		if skipped > 0 {
			fmt.Fprintf(e.stderr, "loupe load: %s: %d data files; %d other entries (hidden files, subfolders, other formats) left out\n", a, len(inside), skipped)
		}
		files = append(files, inside...)
	}
	return files, code
}

// progressBar draws a one-line progress bar on a terminal. Its methods are
// safe on a nil bar and from several goroutines.
type progressBar struct {
	prefix string // e.g. "3/1000 " when a load has many files
	mu     sync.Mutex
	w      io.Writer
	last   time.Time
	drawn  bool
}

func (b *progressBar) update(p load.Progress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if time.Since(b.last) < 100*time.Millisecond && p.Phase == "reading" {
		return
	}
	b.last = time.Now()
	const width = 30
	name := p.Table
	if name == "" {
		name = p.File
	}
	var line string
	if p.Percent >= 0 {
		n := int(p.Percent / 100 * width)
		n = min(max(n, 0), width)
		line = fmt.Sprintf("[%s%s] %3.0f%%", strings.Repeat("=", n), strings.Repeat(" ", width-n), p.Percent)
	} else {
		line = "[" + strings.Repeat(".", width) + "]     "
	}
	line += fmt.Sprintf("  %s%s %s", b.prefix, p.Phase, name)
	if p.Rows > 0 {
		line += fmt.Sprintf("  %d rows", p.Rows)
	}
	fmt.Fprintf(b.w, "\r\033[K%s", line)
	b.drawn = true
}

func (b *progressBar) clear() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprint(b.w, "\r\033[K")
		b.drawn = false
	}
}
