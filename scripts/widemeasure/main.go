// Command widemeasure loads a generated wide CSV (cols columns, rows rows,
// as the wide-file tests write it) into a fresh DuckDB file in the steps a
// Loupe load takes, and prints the time of each step and the process's
// peak (VmHWM) and current resident memory after it. Run one variant per
// process, so that each peak is its own:
//
//	go run ./scripts/widemeasure -cols 10000            # DuckDB's 256 KiB blocks
//	go run ./scripts/widemeasure -cols 10000 -block 65536
//	go run ./scripts/widemeasure -cols 10000 -csv "delim=',', quote='\"', escape='\"'"
//	go run ./scripts/widemeasure -cols 10000 -block 65536 -ckptfirst -duckmem
//	go run ./scripts/widemeasure -cols 30000 -loupe      # Loupe's own load, then queries
//
// -duckmem prints, after each step, what DuckDB's buffer manager holds
// (duckdb_memory()): the rest of the resident memory is DuckDB's
// untracked allocations (a statement's vectors) and what the C library's
// malloc keeps after they are freed.
//
// It is how the README's wide-file figures were taken.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
)

func main() {
	cols := flag.Int("cols", 10000, "columns")
	rows := flag.Int("rows", 4, "rows")
	block := flag.Int("block", 0, "storage block size of the database (0: DuckDB's default)")
	mem := flag.String("mem", "8GB", "memory_limit")
	threads := flag.Int("threads", 2, "threads")
	csv := flag.String("csv", "", "read_csv options beyond null_padding and parallel")
	set := flag.String("set", "", "more SET statements, separated by ;")
	sniff := flag.Bool("sniff", false, "sniff (DESCRIBE the read_csv) as a step of its own first")
	profile := flag.Bool("profile", true, "profile the table as a load does")
	flag.BoolVar(&serial, "serial", false, "read_csv with parallel = false")
	flag.BoolVar(&ckptFirst, "ckptfirst", false, "checkpoint right after the commit, before the profile")
	flag.BoolVar(&duckMem, "duckmem", false, "after each step, print what DuckDB's buffer manager holds (duckdb_memory())")
	loupe := flag.Bool("loupe", false, "load with Loupe's loader into a workspace (the wide layout), reopen it and time queries; the flags of the steps above do not apply")
	flag.Parse()
	if *loupe {
		if err := runLoupe(*cols, *rows); err != nil {
			fmt.Fprintln(os.Stderr, "widemeasure:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*cols, *rows, *block, *mem, *threads, *csv, *set, *sniff, *profile); err != nil {
		fmt.Fprintln(os.Stderr, "widemeasure:", err)
		os.Exit(1)
	}
}

func run(cols, rows, block int, mem string, threads int, csv, set string, sniff, profile bool) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "widemeasure")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "wide.csv")
	if err := os.WriteFile(path, wide(cols, rows), 0o600); err != nil {
		return err
	}
	s := newSteps()
	dbFile := filepath.Join(dir, "w.duckdb")
	if block > 0 {
		dbFile += fmt.Sprintf("?default_block_size=%d", block)
	}
	connector, err := duckdb.NewConnector(dbFile, nil)
	if err != nil {
		return err
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	s.db = db
	exec := func(q string) error {
		if _, err := c.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%.100s: %w", q, err)
		}
		return nil
	}
	stmts := []string{"SET memory_limit = '" + mem + "'", fmt.Sprintf("SET threads = %d", threads), "SET temp_directory = '" + filepath.Join(dir, "tmp") + "'"}
	for _, q := range append(stmts, strings.Split(set, ";")...) {
		if strings.TrimSpace(q) != "" {
			if err := exec(q); err != nil {
				return err
			}
		}
	}
	s.done("open")
	opts := "null_padding = true, parallel = " + fmt.Sprint(!serial)
	if csv != "" {
		opts += ", " + csv
	}
	src := "read_csv('" + path + "', " + opts + ")"
	if sniff {
		if err := exec("DESCRIBE SELECT * FROM " + src); err != nil {
			return err
		}
		s.done("sniff")
	}
	for _, q := range []string{"BEGIN TRANSACTION", "CREATE TABLE w AS SELECT * FROM " + src} {
		if err := exec(q); err != nil {
			return err
		}
	}
	s.done("create")
	if err := exec("COMMIT"); err != nil {
		return err
	}
	s.done("commit")
	if ckptFirst {
		if err := exec("CHECKPOINT"); err != nil {
			return err
		}
		s.done("checkpoint")
	}
	err = c.Raw(func(dc any) error {
		k := dc.(*duckdb.Conn)
		d := catalog.Dataset{Name: "w", Storage: "table"}
		if profile {
			r, err := catalog.ProfileWithin(ctx, k, "w", time.Minute)
			if err != nil {
				return err
			}
			s.done(fmt.Sprintf("profile (%d skipped)", len(r.Skipped)))
			d.Columns = r.Columns
		}
		if err := catalog.Ensure(ctx, k); err != nil {
			return err
		}
		return catalog.Put(ctx, k, d)
	})
	if err != nil {
		return err
	}
	s.done("catalog")
	if err := exec("CHECKPOINT"); err != nil {
		return err
	}
	s.done("checkpoint")
	return nil
}

// wide is a CSV of cols columns c0.. and rows rows of small numbers.
func wide(cols, rows int) []byte {
	var b strings.Builder
	for i := -1; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			if i < 0 {
				fmt.Fprintf(&b, "c%d", j)
			} else {
				fmt.Fprintf(&b, "%d", (i+j)%7)
			}
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// The -duckmem, -ckptfirst and -serial flags.
var duckMem, ckptFirst, serial bool

type steps struct {
	last time.Time
	db   *sql.DB
}

func newSteps() *steps { return &steps{last: time.Now()} }

// done prints the time since the last step and the memory now.
func (s *steps) done(name string) {
	hwm, rss := memory()
	fmt.Printf("%-20s %7.2f s   peak %5d MB   now %5d MB\n", name, time.Since(s.last).Seconds(), hwm>>10, rss>>10)
	if duckMem && s.db != nil {
		s.duckMemory()
	}
	s.last = time.Now()
}

// duckMemory prints the tags of duckdb_memory() that hold something.
func (s *steps) duckMemory() {
	rs, err := s.db.Query("SELECT tag, memory_usage_bytes >> 20, temporary_storage_bytes >> 20 FROM duckdb_memory() WHERE memory_usage_bytes + temporary_storage_bytes > 1 << 20 ORDER BY 2 DESC")
	if err != nil {
		fmt.Println("   duckdb_memory:", err)
		return
	}
	defer rs.Close()
	for rs.Next() {
		var tag string
		var mem, tmp int64
		if rs.Scan(&tag, &mem, &tmp) == nil {
			fmt.Printf("   %-22s %5d MB in memory, %5d MB spilled\n", tag, mem, tmp)
		}
	}
}

// memory is the process's peak and current resident memory in KiB, from
// /proc/self/status (Linux).
func memory() (hwm, rss int64) {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "VmHWM:":
			fmt.Sscan(f[1], &hwm)
		case "VmRSS:":
			fmt.Sscan(f[1], &rss)
		}
	}
	return hwm, rss
}
