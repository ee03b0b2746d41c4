package sqltool

import (
	"sort"
	"strings"
	"unicode"
)

// minScore is the least similarity a candidate needs to be suggested.
const minScore = 0.5

// Suggest returns up to max candidates that name looks like a misspelling
// or variant of, best first: by edit distance (with transpositions), by
// shared name parts ("cust_name" and "customer_name" share "cust…" and
// "name"), and by one name containing the other. Comparison ignores case.
func Suggest(name string, candidates []string, max int) []string {
	type scored struct {
		name  string
		score float64
	}
	var out []scored
	seen := map[string]bool{}
	for _, c := range candidates {
		if seen[c] || c == "" {
			continue
		}
		seen[c] = true
		if s := similarity(name, c); s >= minScore {
			out = append(out, scored{c, s})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	names := make([]string, 0, min(max, len(out)))
	for i := 0; i < len(out) && i < max; i++ {
		names = append(names, out[i].name)
	}
	return names
}

// similarity is a score in [0, 1]; 1 means the same name ignoring case.
func similarity(a, b string) float64 {
	a, b = strings.ToLower(a), strings.ToLower(b)
	if a == b {
		return 1
	}
	ra, rb := []rune(a), []rune(b)
	long := max(len(ra), len(rb))
	edit := 1 - float64(osa(ra, rb))/float64(long)
	score := max(edit, overlap(parts(a), parts(b)))
	if min(len(ra), len(rb)) >= 3 && (strings.Contains(a, b) || strings.Contains(b, a)) {
		score = max(score, 0.7)
	}
	return score
}

// parts splits a name into words at underscores, spaces, dots, digits and
// case changes.
func parts(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range s {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case i > 0 && unicode.IsUpper(r) && len(cur) > 0 && unicode.IsLower(cur[len(cur)-1]):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// overlap is the share of words the two lists have in common; a word
// matches another that it starts (at three letters or more) or that is one
// edit away from it (at four letters or more).
func overlap(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	used := make([]bool, len(b))
	common := 0
	for _, x := range a {
		for j, y := range b {
			if !used[j] && wordMatch(x, y) {
				used[j] = true
				common++
				break
			}
		}
	}
	return float64(common) / float64(len(a)+len(b)-common)
}

func wordMatch(x, y string) bool {
	if x == y {
		return true
	}
	if min(len(x), len(y)) >= 3 && (strings.HasPrefix(x, y) || strings.HasPrefix(y, x)) {
		return true
	}
	return min(len(x), len(y)) >= 4 && osa([]rune(x), []rune(y)) <= 1
}

// osa is the optimal string alignment distance: insertions, deletions,
// substitutions and swaps of neighbours each cost one.
func osa(a, b []rune) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
