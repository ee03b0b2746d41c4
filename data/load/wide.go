package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/perm"
)

// The wide layout. DuckDB costs memory per column whatever the rows: a
// table being written holds a vector (2,048 values, ~17.5 KB for an
// integer) per column until it is checkpointed, its checkpoint a storage
// block per column, and its CSV reader and sniffer buffers per column of
// the file. A 4-row CSV of 30,000 columns so took 0.8-1.45 GB to load as
// one table. A plain CSV or TSV (see plainWide) wider than
// wideLayoutColumns is therefore stored in parts: Loupe cuts the file into files of at most
// wideSlice columns, and DuckDB reads each (sniffing its types as for any
// file) into a table of its own in a database file of the dataset's own
// (wideSuffix, in the import folder, with wideBlockSize blocks and
// wideStorageVersion), written out every wideCheckpoint parts, so that
// what DuckDB holds at once is a few parts' worth (and what it built
// for the columns written, which reopenSide frees once they all are);
// after each checkpoint what the reads freed goes back to the system
// (duck.ReleaseMemory), not a second later as DuckDB's allocator would.
// The dataset is a view in the workspace
// that puts the parts side by side (POSITIONAL JOIN: every part has the
// file's rows, in the file's order), under the dataset's name: the agent,
// the console and the profile see one table (the profile reads the parts,
// catalog.Dataset.Relation). The price is each query's: DuckDB binds
// every column of a view, so a query on a 10,000-column dataset pays
// ~0.3-0.45 s in the engine (a table: ~0.01 s), more through Loupe's
// guard, which binds a statement more than once, and one on 30,000 a few
// seconds (see the README's figures).
const (
	// wideLayoutColumns is the width above which a plain file is stored
	// in the wide layout. Below it one table costs little more memory
	// (3,000 columns: 0.23 GB against 0.21 GB) and its queries stay
	// fast; at 10,000 columns a query through the view took 3.6-6 s in
	// Loupe at load average 25-30 against 0.1 s on the table (make bench).
	wideLayoutColumns = 5000
	wideSlice         = 500
	wideBlockSize     = 16 << 10
	// wideStorageVersion is the storage format of a wide dataset's
	// database file. At DuckDB's default (files readable by v0.10.2)
	// each column's stored statistics keep a distinct-count sketch in
	// the old, large format: 30,000 columns of 4 rows took a 103 MB
	// file, most of which DuckDB reads and holds as it attaches it
	// (0.1 GB more for every later command on the workspace). From
	// v1.2.0 the file is 11 MB. Loupe reads it with its own DuckDB.
	wideStorageVersion = "v1.2.0"
	// wideCheckpoint is how many parts are written out at once. A
	// checkpoint rewrites the file's whole catalog, so its cost grows
	// with the parts before it (0.3 s for the first of 30,000 columns,
	// 1.6 s for the 40th): every 4 parts, 30,000 columns took 72 s to
	// write against 109 s part by part (one paired run at load average
	// 20), for the same peak (0.32-0.33 GB). It is also how often the
	// memory the reads freed is given back: after every part too, the
	// load's peak at 30,000 columns was no lower (0.28 GB).
	wideCheckpoint = 4
	// wideSuffix ends the name of a wide dataset's database file.
	wideSuffix = ".wide.duckdb"
	// wideTmpPrefix starts the name of the folder of a load's parts.
	wideTmpPrefix = ".wide-"
)

// wideFile is a plain wide file cut into parts.
type wideFile struct {
	names  []string // the dataset's column names, unique and clean
	header bool     // whether the first line is a header
	parts  []string // the part files, in order
	warn   []string // columns renamed
}

// loadWide loads the plain wide CSV or TSV of src (see plainWide) in the
// wide layout. It returns the staging view, recorded as Storage "view"
// with Staged the database file and Attach its alias. On failure or
// cancel it removes everything it made.
func (l *Loader) loadWide(ctx context.Context, src *source, delim byte) (_ []catalog.Dataset, err error) {
	started := time.Now()
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	var d catalog.Dataset
	// A name first, in a transaction of its own: the parts' database
	// and the workspace are written in separate transactions (DuckDB
	// writes one database per transaction).
	err = l.eng.Write(ctx, func(c *duckdb.Conn) error {
		n, err := newNamer(ctx, c, src.path)
		if err != nil {
			return err
		}
		name, err := n.stage(ctx, sqlName(baseNoExt(src.path)), "")
		d = catalog.Dataset{Name: name, Kind: string(src.kind.format), Storage: "view"}
		return err
	})
	if err != nil {
		return nil, err
	}
	final := finalName(d.Name)
	d.Attach = "wide_" + final + "_" + stamp
	d.PartColumns = wideSlice
	d.Staged = filepath.Join(l.eng.ImportDir(), final+"-"+stamp+wideSuffix)
	tmp := filepath.Join(l.eng.ImportDir(), wideTmpPrefix+final+"-"+stamp)
	defer os.RemoveAll(tmp)
	defer func() {
		if err != nil {
			l.dropSide(d)
		}
	}()
	wf, err := splitWide(ctx, src.path, tmp, delim)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, osErr(src.path, err)
	}
	err = l.eng.Write(ctx, func(c *duckdb.Conn) error {
		if err := l.writeParts(ctx, c, src, d, wf); err != nil {
			return err
		}
		return reopenSide(ctx, c, d)
	})
	if err != nil {
		return nil, err
	}
	if err := perm.Private(d.Staged, d.Staged+".wal"); err != nil {
		return nil, fmt.Errorf("make %s private: %w", d.Staged, err)
	}
	err = l.commit(ctx, func(c *duckdb.Conn) error {
		rels := wideRels(d.Attach, len(wf.parts))
		if err := replaceObject(ctx, c, d.Name); err != nil {
			return err
		}
		q := "CREATE VIEW " + duck.QuoteIdent(d.Name) + " AS SELECT * FROM " + joinTree(rels)
		if err := duck.Exec(ctx, c, q); err != nil {
			return fmt.Errorf("view over the parts of %s: %w", final, err)
		}
		return finishWide(ctx, c, src, &d, wf, rels, started)
	})
	if err != nil {
		return nil, err
	}
	return []catalog.Dataset{d}, nil
}

// writeParts creates the database file of d and a table in it per part
// of wf, each read by DuckDB with the dialect given and checkpointed
// before the next. The columns get wf's names.
func (l *Loader) writeParts(ctx context.Context, c *duckdb.Conn, src *source, d catalog.Dataset, wf *wideFile) error {
	attach := "ATTACH " + duck.QuoteString(d.Staged) + " AS " + duck.QuoteIdent(d.Attach) + " (BLOCK_SIZE " + strconv.Itoa(wideBlockSize) + ", STORAGE_VERSION " + duck.QuoteString(wideStorageVersion) + ")"
	if err := duck.Exec(ctx, c, attach); err != nil {
		return fmt.Errorf("create the database of %s: %w", finalName(d.Name), err)
	}
	o := csvOpts{tsv: src.kind.format == TSV, plain: true}
	// DuckDB decides whether the first line is a header from the first
	// part, as it would from the file; every part is then read alike.
	sniff := "SELECT HasHeader FROM sniff_" + strings.TrimPrefix(o.sql(wf.parts[0]), "read_")
	if err := each(ctx, c, sniff, func(v []any) { wf.header = v[0] == true }); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return csvErr(src.path, err)
	}
	wf.names, wf.warn = wideNames(wf.names, wf.header)
	done := 0
	for i, part := range wf.parts {
		if err := ctx.Err(); err != nil {
			return err
		}
		src.report(Progress{Table: d.Name, Phase: "reading", Percent: 100 * float64(i) / float64(len(wf.parts))})
		names := wf.names[done:min(done+wideSlice, len(wf.names))]
		read := strings.TrimSuffix(o.sql(part), ")") + ", header = " + strconv.FormatBool(wf.header) + ", names = " + nameList(names) + ")"
		q := "CREATE TABLE " + wideRels(d.Attach, i+1)[i] + " AS SELECT * FROM " + read
		if err := duck.ExecOne(ctx, c, q); err != nil { // the header's names
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if duck.IsOutOfMemory(err) {
				return err // Load says so, with what to do
			}
			return csvErr(src.path, err)
		}
		done += len(names)
		if i%wideCheckpoint != wideCheckpoint-1 && i != len(wf.parts)-1 {
			continue
		}
		if err := duck.Exec(ctx, c, "CHECKPOINT "+duck.QuoteIdent(d.Attach)); err != nil {
			return fmt.Errorf("write part %d of %s: %w", i+1, finalName(d.Name), err)
		}
		// What the parts' reads freed (their CSV buffers and vectors)
		// goes back to the system now, not a second later.
		duck.ReleaseMemory()
	}
	return nil
}

// reopenSide detaches the database of d, its parts written, and
// attaches it again, on c. What DuckDB built in memory as it wrote and
// checkpointed the parts is freed only with the database (0.05-0.1 GB at
// 30,000 columns), and given back to the system before it is attached
// anew (see duck.ReleaseMemory); attached anew it holds their catalog
// (~0.03 GB) and reads a part's columns when a query asks for them.
func reopenSide(ctx context.Context, c *duckdb.Conn, d catalog.Dataset) error {
	alias := duck.QuoteIdent(d.Attach)
	if err := duck.Exec(ctx, c, "DETACH "+alias); err != nil {
		return fmt.Errorf("close the database of %s: %w", finalName(d.Name), err)
	}
	duck.ReleaseMemory() // what the detach freed (see there)
	if err := duck.Exec(ctx, c, "ATTACH "+duck.QuoteString(d.Staged)+" AS "+alias); err != nil {
		return fmt.Errorf("reopen the database of %s: %w", finalName(d.Name), err)
	}
	return nil
}

// joinTree puts the relations rels side by side (POSITIONAL JOIN) as a
// balanced tree: DuckDB's binder and optimizer walk every column of each
// join, so a chain of n parts costs n times the columns a query binds,
// a tree log2(n) times (at 10,000 columns in 20 parts, 0.4 s a query
// against 0.6-0.8 s for the chain).
func joinTree(rels []string) string {
	if len(rels) == 1 {
		return rels[0]
	}
	m := len(rels) / 2
	return "(" + joinTree(rels[:m]) + " POSITIONAL JOIN " + joinTree(rels[m:]) + ")"
}

// nameList is a DuckDB list literal of names.
func nameList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = duck.QuoteString(n)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// wideRels are the quoted identifiers of the n parts of the database
// attached as alias.
func wideRels(alias string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = catalog.PartRel(alias, i)
	}
	return out
}

// finishWide describes the staging view of a wide file from its parts
// (a DESCRIBE or count of the view itself would bind all its columns),
// in c's transaction; see finish.
func finishWide(ctx context.Context, c *duckdb.Conn, src *source, d *catalog.Dataset, wf *wideFile, rels []string, started time.Time) error {
	for _, rel := range rels {
		cols, err := catalog.DescribeRel(ctx, c, rel)
		if err != nil {
			return err
		}
		d.Columns = append(d.Columns, cols...)
	}
	if len(d.Columns) != len(wf.names) {
		return fmt.Errorf("load %s: its parts hold %d columns, its first line %d", src.path, len(d.Columns), len(wf.names))
	}
	_ = each(ctx, c, "SELECT count(*) FROM "+rels[0], func(v []any) { d.Rows = toInt(v[0]) })
	d.Source = src.path
	d.SizeBytes = src.info.Size()
	d.ModTime = src.info.ModTime().UTC()
	d.LoadedAt = time.Now().UTC()
	d.LoadMS = float64(time.Since(started).Microseconds()) / 1000
	d.Warnings = append(d.Warnings, wf.warn...)
	if !wf.header {
		d.Warnings = append(d.Warnings, "no header row was found; columns were named "+wf.names[0]+", … — the first line is data")
	}
	if d.Rows == 0 {
		d.Warnings = append(d.Warnings, "the table has no rows (only a header or an empty sheet)")
	}
	return nil
}

// isWide reports whether d is stored in the wide layout.
func isWide(d catalog.Dataset) bool {
	return d.Attach != "" && strings.HasSuffix(d.Staged, wideSuffix) && (d.Kind == string(CSV) || d.Kind == string(TSV))
}

// wideParts returns the quoted identifiers of the parts of the wide
// dataset d, in order.
func wideParts(ctx context.Context, c *duckdb.Conn, d catalog.Dataset) ([]string, error) {
	n := 0
	q := "SELECT count(*) FROM duckdb_tables() WHERE database_name = " + duck.QuoteString(d.Attach)
	if err := each(ctx, c, q, func(v []any) { n = int(toInt(v[0])) }); err != nil {
		return nil, fmt.Errorf("list the parts of %s: %w", finalName(d.Name), err)
	}
	return wideRels(d.Attach, n), nil
}

// dropSide detaches and deletes the database file of the wide dataset d
// (a failed load's), on the loading connection; see dropSideOn.
func (l *Loader) dropSide(d catalog.Dataset) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := l.eng.Write(ctx, func(c *duckdb.Conn) error {
		l.dropSideOn(ctx, c, d)
		return nil
	})
	if err != nil {
		l.log.Error("detach the database of a wide dataset", "dataset", finalName(d.Name), "err", err)
	}
}

// dropSideOn detaches, on c, and deletes the database file of d when d
// is a wide dataset (a failed load's, or one a reload replaced); other
// datasets are left alone. Failures are logged: the file is an orphan
// the next open sweeps (see SweepWide).
func (l *Loader) dropSideOn(ctx context.Context, c *duckdb.Conn, d catalog.Dataset) {
	if d.Attach == "" || !strings.HasSuffix(d.Staged, wideSuffix) || filepath.Dir(d.Staged) != l.eng.ImportDir() {
		return
	}
	if err := duck.Exec(ctx, c, "DETACH DATABASE IF EXISTS "+duck.QuoteIdent(d.Attach)); err != nil {
		l.log.Error("detach the database of a wide dataset", "dataset", finalName(d.Name), "err", err)
		return
	}
	for _, f := range []string{d.Staged, d.Staged + ".wal"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			l.log.Error("remove the database of a wide dataset", "file", f, "err", err)
		}
	}
}

// profileDataset profiles the committed staging object of d: a wide
// dataset part by part (see catalog.ProfileParts), any other whole.
func profileDataset(ctx context.Context, c *duckdb.Conn, d catalog.Dataset, budget time.Duration) (catalog.Report, error) {
	if !isWide(d) {
		return catalog.ProfileWithin(ctx, c, d.Name, budget)
	}
	rels, err := wideParts(ctx, c, d)
	if err != nil {
		return catalog.Report{}, err
	}
	r, err := catalog.ProfileParts(ctx, c, rels, budget)
	// The parts' query results were most of what Go allocated for the
	// profile (at 30,000 columns ~27 MB of a 42 MB heap): given back now,
	// before the record is encoded, the load's peak was 0.03-0.05 GB lower.
	debug.FreeOSMemory()
	return r, err
}

// wideLayout reports whether src is to be loaded in the wide layout: a
// plain, uncompressed UTF-8 CSV or TSV wider than wideLayoutColumns (see
// plainWide), and its delimiter.
func wideLayout(src *source) (byte, bool) {
	if src.kind.comp != None || src.kind.encoding != "" || (src.kind.format != CSV && src.kind.format != TSV) {
		return 0, false
	}
	delim := byte(',')
	if src.kind.format == TSV {
		delim = '\t'
	}
	return delim, firstLineFields(src.path, delim) > wideLayoutColumns && plainWide(src.path, delim)
}

// firstLineFields counts the fields of the first line of the file at
// path; 0 when it cannot be read.
func firstLineFields(path string, delim byte) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	n := 1
	for {
		b, err := r.ReadByte()
		if err != nil || b == '\n' {
			return n
		}
		if b == delim {
			n++
		}
	}
}

// SweepWide removes what loads in the wide layout left in importDir and
// no dataset uses: the database files of loads killed before they were
// published (or of datasets whose removal was interrupted) and the
// folders of parts. keep holds the files the catalog's datasets read
// (their Staged). The workspace calls it at open, before it attaches
// the datasets' files.
func SweepWide(importDir string, keep map[string]bool) error {
	entries, err := os.ReadDir(importDir)
	if err != nil {
		return fmt.Errorf("sweep the import folder: %w", err)
	}
	for _, e := range entries {
		name, path := e.Name(), filepath.Join(importDir, e.Name())
		switch {
		case e.IsDir() && strings.HasPrefix(name, wideTmpPrefix):
			if err := os.RemoveAll(path); err != nil {
				return fmt.Errorf("remove %s: %w", path, err)
			}
		case !e.IsDir() && (strings.HasSuffix(name, wideSuffix) || strings.HasSuffix(name, wideSuffix+".wal")):
			if keep[strings.TrimSuffix(path, ".wal")] {
				continue
			}
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", path, err)
			}
		}
	}
	return nil
}

// splitWide cuts the plain delimited file at path (see plainWide) into
// files of at most wideSlice columns in dir, and works out the dataset's
// column names from its first line: the header's names made clean and
// unique (see cleanNames), or column0… when DuckDB finds no header in
// the first part.
func splitWide(ctx context.Context, path, dir string, delim byte) (*wideFile, error) {
	if err := os.MkdirAll(dir, perm.Dir); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	wf := &wideFile{}
	var outs []*bufio.Writer
	var files []*os.File
	defer func() {
		for _, o := range files {
			o.Close()
		}
	}()
	for line := 0; ; line++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		text, rerr := r.ReadString('\n')
		if text == "" && rerr != nil {
			if errors.Is(rerr, io.EOF) {
				break
			}
			return nil, rerr
		}
		fields := strings.Split(strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r"), string(delim))
		if line == 0 {
			wf.names = fields
			for lo := 0; lo < len(fields); lo += wideSlice {
				p := filepath.Join(dir, fmt.Sprintf("p%05d.csv", len(wf.parts)))
				o, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm.File)
				if err != nil {
					return nil, err
				}
				files = append(files, o)
				outs = append(outs, bufio.NewWriterSize(o, 64<<10))
				wf.parts = append(wf.parts, p)
			}
		}
		if len(fields) != len(wf.names) {
			return nil, fmt.Errorf("line %d has %d fields, the first %d", line+1, len(fields), len(wf.names))
		}
		for i, o := range outs {
			hi := min((i+1)*wideSlice, len(fields))
			o.WriteString(strings.Join(fields[i*wideSlice:hi], string(delim)))
			o.WriteByte('\n')
		}
	}
	for i, o := range outs {
		if err := o.Flush(); err != nil {
			return nil, err
		}
		if err := files[i].Close(); err != nil {
			return nil, err
		}
	}
	files = nil
	return wf, nil
}

// wideNames returns the dataset's column names from the first line of a
// wide file (header tells whether it is one) and a warning per kind of
// renaming, as DuckDB and cleanNames would name the columns of a file
// read whole: an empty name becomes column<N>, NUL and other control
// characters are removed, and a name that repeats another (without
// regard to case) gets _1, _2, …; without a header the columns are
// column0… (zero-padded as DuckDB pads them).
func wideNames(first []string, header bool) ([]string, []string) {
	pad := len(strconv.Itoa(len(first) - 1))
	generated := func(i int) string {
		s := strconv.Itoa(i)
		return "column" + strings.Repeat("0", pad-len(s)) + s
	}
	names := make([]string, len(first))
	if !header {
		for i := range names {
			names[i] = generated(i)
		}
		return names, nil
	}
	var control, dup []string
	taken := make(map[string]bool, len(first))
	for i, h := range first {
		name, dirty := duck.CleanName(h)
		if dirty {
			control = append(control, quoteName(h)+" → "+name)
		}
		if strings.TrimSpace(name) == "" {
			name = generated(i)
			if !dirty {
				dup = append(dup, fmt.Sprintf("column %d had no name → %s", i+1, name))
			}
		}
		base := name
		for k := 1; taken[strings.ToLower(name)]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
		if name != base {
			dup = append(dup, fmt.Sprintf("%q → %s", h, name))
		}
		taken[strings.ToLower(name)] = true
		names[i] = name
	}
	var warn []string
	if len(dup) > 0 {
		warn = append(warn, "columns renamed (empty or duplicate names): "+shortList(dup))
	}
	if len(control) > 0 {
		warn = append(warn, "columns renamed (control characters removed from their names): "+shortList(control))
	}
	return names, warn
}

// shortList joins the first 20 items and says how many more there are.
func shortList(items []string) string {
	if len(items) <= 20 {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:20], ", ") + fmt.Sprintf(" and %d more", len(items)-20)
}
