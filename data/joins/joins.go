// Package joins finds the ways tables can be joined: foreign keys the
// source declares, and keys inferred from names and types — a column named
// like another table's key (customer_id = customer_id), or after another
// table (orders.customer_id = customers.id) — confirmed by checking that a
// sample of its values is contained in that key. Each path has a
// confidence; only known paths are offered to the agent, which is told that
// tables without one cannot be joined.
package joins

import (
	"sort"
	"strings"

	"github.com/loupeapp/loupe/data/index"
)

// Path is a way to join two tables: From.FromColumn = To.ToColumn, where
// To.ToColumn is a key of To (unique values).
type Path struct {
	From       string  `json:"from"`
	FromColumn string  `json:"from_column"`
	To         string  `json:"to"`
	ToColumn   string  `json:"to_column"`
	Confidence float64 `json:"confidence"` // 1 for declared keys, else 0–1
	Declared   bool    `json:"declared,omitempty"`
	// Rule says why the path was proposed: "declared", "same name"
	// (customer_id = customer_id) or "table key" (customer_id = customers.id).
	Rule string `json:"rule"`
	// Containment is the share of sampled From values found in To, for
	// inferred paths that were checked.
	Containment float64 `json:"containment,omitempty"`
}

// Rules.
const (
	RuleDeclared = "declared"
	RuleSameName = "same name"
	RuleTableKey = "table key"
)

// prior is how much a rule's name evidence is worth before the values are
// checked.
var prior = map[string]float64{RuleDeclared: 1, RuleSameName: 0.6, RuleTableKey: 0.5}

// Candidates proposes the join paths among tables from their declared keys
// (those whose referenced table is among tables),
// names and types alone: declared paths with confidence 1, inferred ones
// with the prior of their rule, to be confirmed by Confirm. It looks each
// column up in maps of keys and table names, so it stays fast for
// thousands of tables.
func Candidates(tables []index.Table) []Path {
	keysByName := map[string]*bucket{}   // normalized key column name → keys
	tablesByWord := map[string]*bucket{} // singular last word of a table name → its keys
	byName := map[string]*index.Table{}
	entities := make([]string, len(tables))
	for i := range tables {
		t := &tables[i]
		byName[strings.ToLower(t.Name)] = t
		entities[i] = entity(t.Name)
		for _, k := range keys(t) {
			r := ref{table: t, column: k, entity: entities[i], ofEntity: keyOfEntity(k.Name, entities[i])}
			if n := normal(k.Name); !generic[n] {
				r.named = r.entity == referent(k.Name)
				into(keysByName, n).add(r)
			}
			if entities[i] != "" && r.ofEntity {
				r.named = true
				into(tablesByWord, entities[i]).add(r)
			}
		}
	}
	for _, b := range keysByName {
		b.sort()
	}
	for _, b := range tablesByWord {
		b.sort()
	}
	var out []Path
	seen := map[[4]string]bool{}
	add := func(p Path) {
		k := [4]string{strings.ToLower(p.From), strings.ToLower(p.FromColumn), strings.ToLower(p.To), strings.ToLower(p.ToColumn)}
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, p)
	}
	for i := range tables {
		t := &tables[i]
		for _, fk := range t.Foreign {
			to := byName[strings.ToLower(fk.RefTable)]
			if to == nil {
				continue // a path to a table not among tables joins nothing of them
			}
			for j, c := range fk.Columns {
				if j < len(fk.RefColumns) {
					add(Path{From: t.Name, FromColumn: c, To: to.Name, ToColumn: fk.RefColumns[j], Confidence: 1, Declared: true, Rule: RuleDeclared})
				}
			}
		}
	}
	for i := range tables {
		t := &tables[i]
		own := keySet(t)
		for j := range t.Columns {
			c := &t.Columns[j]
			if !idLike(c.Name) {
				continue
			}
			n, w := normal(c.Name), referent(c.Name)
			var found topPaths
			// Two tables unique on the same name are one-to-one only when
			// the key is named after the table it points at
			// (user_settings.user_id → users.user_id); author.aid and
			// another author.aid are copies, not a join.
			sameName := func(r ref) bool {
				return r.table != t && compatible(c.Type, r.column.Type) && !(own[n] && (w == "" || w != r.entity))
			}
			if b := keysByName[n]; b != nil {
				b.scan(t.Group, sameName, func(r ref) { found.offer(t, c, r, RuleSameName, w) })
			}
			if b := tablesByWord[w]; b != nil && w != "" && w != entities[i] { // customers.customer_id names its own table
				b.scan(t.Group, func(r ref) bool { return r.table != t && compatible(c.Type, r.column.Type) },
					func(r ref) { found.offer(t, c, r, RuleTableKey, w) })
			}
			for _, p := range found.paths {
				add(p)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Confidence > out[j].Confidence })
	return out
}

// maxTargets bounds the tables one column may be proposed to join: in a
// warehouse with a hundred tables keyed on customer_id, the likeliest few
// (same file, named after the customer) are enough, and the work stays
// linear in the columns.
const maxTargets = 3

// topPaths keeps the maxTargets most confident paths offered, preferring
// shorter target names on ties, without sorting everything offered.
type topPaths struct{ paths []Path }

func (tp *topPaths) offer(from *index.Table, c *index.Column, to ref, rule, referent string) {
	conf := confidence(from, to, rule, referent)
	if len(tp.paths) == maxTargets {
		last := tp.paths[maxTargets-1]
		if conf < last.Confidence || conf == last.Confidence && len(to.table.Name) >= len(last.To) {
			return
		}
		tp.paths = tp.paths[:maxTargets-1]
	}
	p := Path{From: from.Name, FromColumn: c.Name, To: to.table.Name, ToColumn: to.column.Name, Confidence: conf, Rule: rule}
	i := len(tp.paths)
	for i > 0 && (tp.paths[i-1].Confidence < conf || tp.paths[i-1].Confidence == conf && len(tp.paths[i-1].To) > len(p.To)) {
		i--
	}
	tp.paths = append(tp.paths, Path{})
	copy(tp.paths[i+1:], tp.paths[i:])
	tp.paths[i] = p
}

// ref is a key column of a table.
type ref struct {
	table  *index.Table
	column *index.Column
	entity string // the table's entity(name)
	// ofEntity is set when the key is named as the table's own key (id,
	// customer_id or cid in customers).
	ofEntity bool
	// named is set when the table is named after what the key refers to.
	named bool
}

// bucket holds the keys sharing a name or an entity, best first (named
// after their entity, then shorter table names), and the same per group,
// so that a column looks at a few of them, not all.
type bucket struct {
	all     []ref
	byGroup map[string][]ref
}

func into(m map[string]*bucket, k string) *bucket {
	b := m[k]
	if b == nil {
		b = &bucket{byGroup: map[string][]ref{}}
		m[k] = b
	}
	return b
}

func (b *bucket) add(r ref) {
	b.all = append(b.all, r)
	b.byGroup[r.table.Group] = append(b.byGroup[r.table.Group], r)
}

func (b *bucket) sort() {
	better := func(rs []ref) func(i, j int) bool {
		return func(i, j int) bool {
			if rs[i].named != rs[j].named {
				return rs[i].named
			}
			return len(rs[i].table.Name) < len(rs[j].table.Name)
		}
	}
	sort.SliceStable(b.all, better(b.all))
	for _, rs := range b.byGroup {
		sort.SliceStable(rs, better(rs))
	}
}

// scan hands take the first maxTargets keys that pass ok in the group
// first, then the first maxTargets of other groups.
func (b *bucket) scan(group string, ok func(ref) bool, take func(ref)) {
	n := 0
	for _, r := range b.byGroup[group] {
		if n == maxTargets {
			break
		}
		if ok(r) {
			take(r)
			n++
		}
	}
	n = 0
	for _, r := range b.all {
		if n == maxTargets {
			break
		}
		if r.table.Group != group && ok(r) {
			take(r)
			n++
		}
	}
}

// generic key names join nothing by themselves: every table has an id.
var generic = map[string]bool{"id": true, "key": true, "code": true, "pk": true, "uuid": true, "rowid": true}

// normal folds a column name for comparison: lower case, words joined.
func normal(name string) string { return strings.Join(index.Words(name), "") }

// idLike reports whether a column's name says it identifies something:
// it ends in id, key, code or number (customer_id, CustomerId, aid,
// order_no).
func idLike(name string) bool {
	w := index.Words(name)
	if len(w) == 0 {
		return false
	}
	last := w[len(w)-1]
	switch last {
	case "id", "key", "code", "number", "uuid", "pk", "fk", "ref", "reference":
		return true
	}
	// aid, pid, paperid: an unsplit name ending in id, but not a word
	return strings.HasSuffix(last, "id") && len(last) > 2 && !idWords[last]
}

// idWords are English words that end in "id" without being ids.
var idWords = map[string]bool{"paid": true, "unpaid": true, "prepaid": true, "valid": true, "invalid": true,
	"void": true, "avoid": true, "fluid": true, "rapid": true, "solid": true, "humid": true, "liquid": true,
	"android": true, "acid": true, "hybrid": true, "squid": true, "pyramid": true, "said": true, "laid": true,
	"maid": true, "raid": true, "rigid": true, "vivid": true, "lucid": true, "timid": true, "candid": true,
	"splendid": true, "morbid": true, "torrid": true, "stupid": true, "orchid": true, "thyroid": true,
	"steroid": true, "asteroid": true, "covid": true, "braid": true, "afraid": true, "bid": true, "lid": true,
	"kid": true, "grid": true, "rid": true, "hid": true}

// keys returns t's key columns: the declared primary key (single column),
// else id-like columns whose values are all distinct.
func keys(t *index.Table) []*index.Column {
	if len(t.PrimaryKey) == 1 {
		if c := t.Column(t.PrimaryKey[0]); c != nil {
			return []*index.Column{c}
		}
	}
	var out []*index.Column
	for i := range t.Columns {
		c := &t.Columns[i]
		if idLike(c.Name) && unique(t, c) {
			out = append(out, c)
		}
	}
	return out
}

// unique reports whether c's values look all distinct: its approximate
// distinct count is within 15% of the rows (the count is a sketch: 54 for
// Chinook's 59 customers), with no missing values.
func unique(t *index.Table, c *index.Column) bool {
	if t.Rows <= 0 || c.Distinct <= 0 || c.Nulls > 0 {
		return false
	}
	return float64(c.Distinct) >= 0.85*float64(t.Rows)
}

func keySet(t *index.Table) map[string]bool {
	out := map[string]bool{}
	for _, k := range keys(t) {
		out[normal(k.Name)] = true
	}
	return out
}

// crossGroup lowers the prior of a path between tables from different
// files or databases: related tables usually come together.
const crossGroup = 0.8

// namedAfter raises the prior of a path to the table named after what the
// column refers to (customer_id → customers rather than customer_notes).
const namedAfter = 1.1

// confidence is an inferred path's prior.
func confidence(from *index.Table, to ref, rule, referent string) float64 {
	c := prior[rule]
	if from.Group != to.table.Group {
		c *= crossGroup
	}
	if referent != "" && referent == to.entity {
		c = min(1, c*namedAfter)
	}
	return c
}

// entity is the singular last word of a table name: sales_orders → order.
func entity(table string) string {
	w := index.Words(table[strings.LastIndex(table, ".")+1:])
	for i := len(w) - 1; i >= 0; i-- {
		if !isDigits(w[i]) {
			return singular(w[i])
		}
	}
	return ""
}

// referent is the entity an id-like column refers to: customer_id →
// customer, sbDpTickerId → ticker; "" for a bare id.
func referent(col string) string {
	w := index.Words(col)
	if len(w) < 2 {
		return ""
	}
	switch w[len(w)-1] {
	case "id", "key", "code", "number", "ref":
		return singular(w[len(w)-2])
	}
	return ""
}

// keyOfEntity reports whether key is the key a column referring to entity
// points at: a bare id, the entity's own id (ticker_id, sbTickerId), or its
// initials and id (mid for merchants, uid for users).
func keyOfEntity(key, entity string) bool {
	w := index.Words(key)
	if len(w) == 1 {
		short, ok := strings.CutSuffix(w[0], "id")
		return generic[w[0]] || ok && short != "" && strings.HasPrefix(entity, short)
	}
	return singular(w[len(w)-2]) == entity
}

// singular strips an English plural ending.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s") && len(w) > 3:
		return w[:len(w)-1]
	}
	return w
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// compatible reports whether values of types a and b can be compared
// without casting: both integers, both text, both UUIDs, or the same type.
func compatible(a, b string) bool {
	ka, kb := family(a), family(b)
	return ka == kb && ka != ""
}

func family(typ string) string {
	t := strings.ToUpper(typ)
	if i := strings.IndexByte(t, '('); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimSpace(t)
	switch {
	case strings.Contains(t, "INT") || t == "SERIAL" || t == "BIGSERIAL" || t == "NUMERIC" || t == "DECIMAL" && !strings.Contains(typ, ","):
		return "int"
	case strings.Contains(t, "CHAR") || t == "TEXT" || t == "STRING" || t == "VARCHAR":
		return "text"
	case t == "UUID":
		return "uuid"
	}
	return ""
}
