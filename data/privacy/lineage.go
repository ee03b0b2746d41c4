package privacy

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loupeapp/loupe/data/sqlscan"
)

// Lineage says which columns of a query's result may carry values of
// private columns, read from the SQL text alone (no parser of every
// dialect): it is a conservative over-approximation, used to teach the
// masker values a private column's values were turned into (lower(email),
// substr(name, 1, 3), name || '!'), which MaskText could not recognise
// otherwise.
//
// The rule: a name is tainted when it is a private column's name, or an
// alias (expr AS alias, at any depth: CTEs and subqueries) whose
// expression mentions a tainted name. A result column is derived when the
// final SELECT's item at its position mentions a tainted name (or is a
// star and the column's own name is tainted); when the items cannot be
// lined up with the result (a star among several items, a set operation),
// every result column whose name is tainted, and every text column if the
// query mentions a tainted name at all, is derived.
//
// Limits: names are matched without their table (a private email in one
// table taints email in every table of the query), and a quoted name with
// spaces is not seen.
func Lineage(sql string, result []string, private []string) []bool {
	out := make([]bool, len(result))
	if len(private) == 0 {
		return out
	}
	toks := tokenize(sql)
	tainted := map[string]bool{}
	for _, p := range private {
		tainted[strings.ToLower(p)] = true
	}
	mentions := func(ts []token) bool {
		for _, t := range ts {
			if t.word && tainted[t.text] {
				return true
			}
		}
		return false
	}
	items := selectItems(toks)
	for changed := true; changed; {
		changed = false
		for _, list := range items {
			for _, it := range list {
				if it.alias != "" && !tainted[it.alias] && mentions(it.expr) {
					tainted[it.alias], changed = true, true
				}
			}
		}
	}
	final := finalList(toks, items)
	if !mentions(toks) && (final == nil || !hasStar(final)) {
		return out
	}
	if final != nil && len(final) == len(result) && !hasStar(final) {
		for i, it := range final {
			out[i] = mentions(it.expr) || it.alias != "" && tainted[it.alias]
		}
		return out
	}
	for i, name := range result {
		// A star keeps names; anything else that cannot be lined up may
		// carry a value in any column.
		out[i] = final == nil || !hasStar(final) || tainted[strings.ToLower(name)]
	}
	return out
}

type token struct {
	text  string // lower-cased; quotes removed from quoted names
	word  bool
	depth int
}

// tokenize splits sql into words (names, keywords, numbers) and single
// punctuation, dropping string literals and comments, with each token's
// parenthesis depth.
func tokenize(sql string) []token {
	var out []token
	depth := 0
	s := sql
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
		case strings.HasPrefix(s[i:], "--"):
			i = sqlscan.LineCommentEnd(s, i)
		case strings.HasPrefix(s[i:], "/*"):
			i = sqlscan.BlockCommentEnd(s, i, false)
		case r == '\'':
			i = sqlscan.QuotedEnd(s, i, '\'', false)
			out = append(out, token{text: "'", depth: depth})
		case r == '"' || r == '`' || r == '[':
			end := map[rune]byte{'"': '"', '`': '`', '[': ']'}[r]
			j := len(s)
			if k := strings.IndexByte(s[i+1:], end); k >= 0 {
				j = i + 1 + k
			}
			out = append(out, token{text: strings.ToLower(s[i+1 : j]), word: true, depth: depth})
			i = j + 1
		case nameRune(r):
			j := i
			for j < len(s) {
				r, n := utf8.DecodeRuneInString(s[j:])
				if !nameRune(r) {
					break
				}
				j += n
			}
			out = append(out, token{text: strings.ToLower(s[i:j]), word: true, depth: depth})
			i = j
		default:
			if r == ')' {
				depth--
			}
			out = append(out, token{text: string(r), depth: depth})
			if r == '(' {
				depth++
			}
			i += size
		}
	}
	return out
}

// nameRune says whether r may be part of a name, keyword or number.
func nameRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$'
}

type item struct {
	expr  []token
	alias string
}

// selectItems returns every SELECT list in toks, keyed by the index of
// its SELECT token.
func selectItems(toks []token) map[int][]item {
	out := map[int][]item{}
	for i, t := range toks {
		if t.word && t.text == "select" {
			out[i] = itemsAfter(toks, i)
		}
	}
	return out
}

var listEnd = map[string]bool{"from": true, "where": true, "group": true, "order": true, "limit": true, "having": true,
	"union": true, "except": true, "intersect": true, "window": true, "qualify": true, "into": true}

// itemsAfter splits the list after the SELECT at i into items.
func itemsAfter(toks []token, i int) []item {
	d := toks[i].depth
	var items []item
	var cur []token
	flush := func() {
		if len(cur) == 0 {
			return
		}
		it := item{expr: cur}
		n := len(cur)
		if n >= 2 && cur[n-1].word && cur[n-2].word && cur[n-2].text == "as" {
			it.alias, it.expr = cur[n-1].text, cur[:n-2]
		} else if n >= 2 && cur[n-1].word && (cur[n-2].word || cur[n-2].text == ")") && !isKeyword(cur[n-2].text) {
			it.alias, it.expr = cur[n-1].text, cur[:n-1]
		} else if n == 1 && cur[0].word {
			it.alias = cur[0].text
		} else if n == 3 && cur[1].text == "." && cur[2].word {
			it.alias = cur[2].text
		}
		items = append(items, it)
		cur = nil
	}
	for j := i + 1; j < len(toks); j++ {
		t := toks[j]
		if t.depth < d || t.depth == d && (t.word && listEnd[t.text] || t.text == ";") {
			break
		}
		if t.depth == d && t.text == "," {
			flush()
			continue
		}
		if t.depth == d && t.word && (t.text == "distinct" || t.text == "all") && len(cur) == 0 {
			continue
		}
		cur = append(cur, t)
	}
	flush()
	return items
}

func isKeyword(w string) bool {
	switch w {
	case "distinct", "all", "select", "case", "when", "then", "else", "and", "or", "not", "in", "is", "like", "ilike", "between", "end":
		return true
	}
	return false
}

// finalList is the SELECT list of the statement's outermost query: the
// last SELECT at depth 0, unless a set operation joins several.
func finalList(toks []token, items map[int][]item) []item {
	last := -1
	for i, t := range toks {
		if t.depth != 0 || !t.word {
			continue
		}
		switch t.text {
		case "union", "except", "intersect":
			return nil
		case "select":
			last = i
		}
	}
	if last < 0 {
		return nil
	}
	return items[last]
}

func hasStar(items []item) bool {
	for _, it := range items {
		for _, t := range it.expr {
			if t.text == "*" && len(it.expr) <= 3 {
				return true
			}
		}
	}
	return false
}
