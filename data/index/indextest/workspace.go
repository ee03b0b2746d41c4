package indextest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// Loaded is the defog-data databases loaded into one workspace.
type Loaded struct {
	WS  *workspace.Workspace
	DBs []DB
	// Names maps "db.table" (as DB.Tables spells it) to the dataset's
	// name in the workspace (author, author_2, …).
	Names map[string]string
}

// LoadDefog writes the defog-data databases into dir/defog and loads every
// one into the workspace in dir/ws, as a user opening the files would. The
// caller closes l.WS.
func LoadDefog(ctx context.Context, testdata, dir string) (*Loaded, error) {
	dbs, err := Defog(ctx, testdata, mkdir(filepath.Join(dir, "defog")))
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(dbs))
	for i, db := range dbs {
		paths[i] = db.Path
	}
	return loadInto(ctx, dbs, paths, filepath.Join(dir, "ws"))
}

// loadInto opens the workspace in wsDir and loads each file of paths once
// (several databases may share one, a schema each), naming every table
// of dbs found in them.
func loadInto(ctx context.Context, dbs []DB, paths []string, wsDir string) (*Loaded, error) {
	ws, err := workspace.Open(ctx, wsDir)
	if err != nil {
		return nil, err
	}
	l := &Loaded{WS: ws, DBs: dbs, Names: map[string]string{}}
	loaded := map[string]bool{}
	for _, path := range paths {
		if loaded[path] {
			continue
		}
		loaded[path] = true
		ds, err := ws.Loader.Load(ctx, path, load.Options{})
		if err != nil {
			_ = ws.Close()
			return nil, fmt.Errorf("load %s: %w", path, err)
		}
		for _, db := range dbs {
			if db.Path != path {
				continue
			}
			for _, d := range ds {
				for _, t := range db.Tables {
					// a file of its own, or one schema of a shared file
					if strings.EqualFold(t, d.Part) || strings.EqualFold(db.Name+"."+t, d.Part) {
						l.Names[db.Name+"."+t] = d.Name
					}
				}
			}
		}
	}
	return l, nil
}

// Dataset returns the dataset name of db's table, or "".
func (l *Loaded) Dataset(db, table string) string { return l.Names[db+"."+table] }

// Described returns the workspace's datasets as index tables with the
// defog column descriptions filled in: how a source with comments (a
// remote database) looks to the index.
func (l *Loaded) Described(ds []catalog.Dataset) []index.Table {
	byName := map[string][2]string{}
	for key, name := range l.Names {
		db, table, _ := strings.Cut(key, ".")
		byName[name] = [2]string{db, table}
	}
	out := index.FromDatasets(ds)
	for i := range out {
		src, ok := byName[out[i].Name]
		if !ok {
			continue
		}
		var desc map[string]string
		for _, db := range l.DBs {
			if db.Name == src[0] {
				short := src[1][strings.LastIndex(src[1], ".")+1:]
				desc = db.Descriptions[short]
			}
		}
		for j := range out[i].Columns {
			out[i].Columns[j].Description = desc[out[i].Columns[j].Name]
		}
		out[i].Version = ""
	}
	return out
}

func mkdir(p string) string {
	_ = os.MkdirAll(p, 0o755) // Defog reports a folder it cannot write to
	return p
}
