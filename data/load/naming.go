package load

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/loupeapp/loupe/data/catalog"
)

// reserved words that cannot be bare table names in DuckDB SQL.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric both case cast check collate column
		constraint create default deferrable desc describe distinct do else end except false fetch for foreign from grant
		group having in initially intersect into lateral leading limit offset on only or order pivot placing primary qualify
		references returning select show summarize symmetric table then to trailing true union unique unpivot user using
		variadic when where window with`) {
		reserved[w] = true
	}
}

// sqlName turns a file, sheet or table name into a readable SQL name:
// lower snake_case, ASCII letters, digits and underscores, not starting
// with a digit and not a reserved word. "Q3 Sales (final).csv" becomes
// q3_sales_final, "InvoiceLine" invoice_line.
func sqlName(s string) string {
	var b strings.Builder
	prevLower := false
	under := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	for _, r := range foldAccents(s) {
		switch {
		case r >= 'A' && r <= 'Z':
			if prevLower {
				under()
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			prevLower = true
		default:
			under()
			prevLower = false
		}
	}
	name := strings.Trim(b.String(), "_")
	switch {
	case name == "":
		name = "data"
	case name[0] >= '0' && name[0] <= '9':
		name = "t_" + name
	case reserved[name]:
		name += "_data"
	}
	if len(name) > 60 {
		name = strings.TrimRight(name[:60], "_")
	}
	return name
}

// foldAccents maps common Latin letters with diacritics to ASCII.
func foldAccents(s string) string {
	const from = "àáâãäåèéêëìíîïòóôõöùúûüýÿñçÀÁÂÃÄÅÈÉÊËÌÍÎÏÒÓÔÕÖÙÚÛÜÝÑÇ"
	const to = "aaaaaaeeeeiiiiooooouuuuyyncAAAAAAEEEEIIIIOOOOOUUUUYNC"
	fr, tr := []rune(from), []rune(to)
	m := make(map[rune]rune, len(fr))
	for i := range fr {
		m[fr[i]] = tr[i]
	}
	return strings.Map(func(r rune) rune {
		if t, ok := m[r]; ok {
			return t
		}
		return r
	}, s)
}

// namer picks unique names against the datasets already in the catalog
// and those picked earlier in the same load, for one source file. It
// looks names up one by one (catalog.Taken) and reads only the records of
// its source, so that naming costs the same whatever the number of
// datasets in the workspace.
type namer struct {
	c        catalog.Conn
	existing map[string]catalog.Dataset // the records of the source, by name
	picked   map[string]bool
}

// newNamer returns a namer for the datasets of source over the catalog
// as it is on c.
func newNamer(ctx context.Context, c catalog.Conn, source string) (*namer, error) {
	existing, err := catalog.OfSource(ctx, c, source)
	if err != nil {
		return nil, err
	}
	return &namer{c: c, existing: existing, picked: map[string]bool{}}, nil
}

// stage picks the dataset's name (see pick) and returns the name of the
// staging object the load creates for it: a load makes its tables and
// views under these names and renames them when they are complete (see
// Loader.publish), so that no half-made dataset is ever visible.
func (n *namer) stage(ctx context.Context, base, part string) (string, error) {
	name, err := n.pick(ctx, base, part)
	if err != nil {
		return "", err
	}
	return stageName(name), nil
}

// stagePrefix starts the name of a table or view a load is making. No
// dataset name starts with it (sqlName never starts with '_').
const stagePrefix = "_loupe_loading_"

func stageName(final string) string { return stagePrefix + final }

// finalName is the dataset name of a staging object's name.
func finalName(name string) string { return strings.TrimPrefix(name, stagePrefix) }

// pick returns the name for part of the namer's source: its current name
// when it was loaded before (a refresh), else base made unique with _2,
// _3, ….
func (n *namer) pick(ctx context.Context, base, part string) (string, error) {
	names := make([]string, 0, len(n.existing))
	for name := range n.existing {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if n.existing[name].Part == part && !n.picked[name] {
			n.picked[name] = true
			return name, nil
		}
	}
	name := base
	for i := 2; ; i++ {
		if !n.picked[name] {
			taken, err := catalog.Taken(ctx, n.c, name)
			if err != nil {
				return "", err
			}
			if !taken {
				break
			}
		}
		name = base + "_" + strconv.Itoa(i)
	}
	n.picked[name] = true
	return name, nil
}
