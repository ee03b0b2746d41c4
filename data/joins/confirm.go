package joins

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/index"
)

// Checker measures how far one column's values are contained in another's.
type Checker interface {
	// Containment samples distinct non-null values of from.fromColumn and
	// says how many were sampled, the share found in to.toColumn, and
	// whether to.toColumn's values are all distinct (a key).
	Containment(ctx context.Context, from, fromColumn, to, toColumn string) (Check, error)
}

// Check is what a Checker measured.
type Check struct {
	Sampled int
	Share   float64
	// KeyUnique is set when the referenced column has no repeated value.
	KeyUnique bool
}

// MinContainment is the share of sampled values an inferred path needs.
const MinContainment = 0.9

// fewValues is a sample too small to say much: ids 1, 2, 3 are contained
// in any id column.
const fewValues = 5

// Finder finds join paths among tables, checking inferred ones with a
// Checker and remembering each check until a table's Version changes. It
// is safe for concurrent use.
type Finder struct {
	chk   Checker
	mu    sync.Mutex
	cache map[string]Check
}

// NewFinder returns a Finder checking values with chk.
func NewFinder(chk Checker) *Finder { return &Finder{chk: chk, cache: map[string]Check{}} }

// Find returns the join paths among tables: declared ones, and inferred
// ones whose sampled values are contained (MinContainment) in the key they
// point at, with a confidence from the rule, the containment and the
// sample. Best first. A check that fails for a reason other than ctx
// (a file gone missing) drops that path.
func (f *Finder) Find(ctx context.Context, tables []index.Table) ([]Path, error) {
	version := make(map[string]string, len(tables))
	for _, t := range tables {
		version[t.Name] = t.Version
	}
	var out []Path
	for _, p := range Candidates(tables) {
		if p.Declared {
			out = append(out, p)
			continue
		}
		c, err := f.check(ctx, p, version)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		if c.Sampled == 0 || c.Share < MinContainment || !c.KeyUnique {
			continue
		}
		p.Containment = c.Share
		p.Confidence = (0.5 + 0.5*p.Confidence) * c.Share
		if c.Sampled < fewValues {
			p.Confidence *= 0.8
		}
		out = append(out, p)
	}
	sortPaths(out)
	return out, nil
}

func (f *Finder) check(ctx context.Context, p Path, version map[string]string) (Check, error) {
	key := strings.Join([]string{p.From, version[p.From], p.FromColumn, p.To, version[p.To], p.ToColumn}, "\x1f")
	f.mu.Lock()
	c, ok := f.cache[key]
	f.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := f.chk.Containment(ctx, p.From, p.FromColumn, p.To, p.ToColumn)
	if err != nil {
		return Check{}, err
	}
	f.mu.Lock()
	f.cache[key] = c
	f.mu.Unlock()
	return c, nil
}

// DuckChecker checks containment in the workspace's DuckDB database with
// internal statements (table and column names quoted, nothing from the
// model).
type DuckChecker struct {
	DB *sql.DB
	// Sample is how many distinct values are checked; 200 when 0.
	Sample int
}

var _ Checker = (*DuckChecker)(nil)

// Containment samples up to d.Sample distinct values of from.fromColumn
// (from a reservoir sample of 50,000 rows, so a large table is not read
// whole), counts those present in to.toColumn, and checks that
// to.toColumn has no repeated value.
func (d *DuckChecker) Containment(ctx context.Context, from, fromColumn, to, toColumn string) (Check, error) {
	n := d.Sample
	if n <= 0 {
		n = 200
	}
	q := fmt.Sprintf(`WITH k AS (SELECT %[4]s AS v FROM %[3]s),
s AS (SELECT DISTINCT v FROM (SELECT %[2]s AS v FROM %[1]s USING SAMPLE 50000 ROWS) WHERE v IS NOT NULL LIMIT %[5]d)
SELECT (SELECT count(*) FROM s), (SELECT count(*) FROM s WHERE v IN (SELECT v FROM k)),
  (SELECT count(v) = count(DISTINCT v) FROM k)`,
		duck.QuoteIdent(from), duck.QuoteIdent(fromColumn), duck.QuoteIdent(to), duck.QuoteIdent(toColumn), n)
	var total, found int
	var unique bool
	if err := d.DB.QueryRowContext(ctx, q).Scan(&total, &found, &unique); err != nil {
		return Check{}, fmt.Errorf("check %s.%s in %s.%s: %w", from, fromColumn, to, toColumn, err)
	}
	c := Check{Sampled: total, KeyUnique: unique}
	if total > 0 {
		c.Share = float64(found) / float64(total)
	}
	return c, nil
}

// Among returns the paths whose both ends are in names.
func Among(paths []Path, names []string) []Path {
	in := make(map[string]bool, len(names))
	for _, n := range names {
		in[n] = true
	}
	var out []Path
	for _, p := range paths {
		if in[p.From] && in[p.To] {
			out = append(out, p)
		}
	}
	return out
}

func sortPaths(ps []Path) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		if a.From != b.From {
			return a.From < b.From
		}
		return a.FromColumn < b.FromColumn
	})
}
