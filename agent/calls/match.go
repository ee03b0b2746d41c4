package calls

import (
	"sort"
	"strings"

	"github.com/loupeapp/loupe/tools/args"
)

// AliasIndex maps each tool's aliases (tool → the other names models call
// it by), squashed, to the tool, for Match. An alias two tools claim goes
// to the first in name order.
func AliasIndex(aliases map[string][]string) map[string]string {
	tools := make([]string, 0, len(aliases))
	for t := range aliases {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	out := map[string]string{}
	for _, t := range tools {
		for _, a := range aliases[t] {
			if k := squash(a); k != "" && out[k] == "" {
				out[k] = t
			}
		}
	}
	return out
}

// Match returns the tool among names that name most likely means: exact,
// then ignoring case and separators, then an alias (from AliasIndex), then
// a close spelling (edit distance ≤ 2, and less than a third of the name).
// ok is false when nothing is close enough.
func Match(name string, names []string, aliases map[string]string) (string, bool) {
	for _, n := range names {
		if n == name {
			return n, true
		}
	}
	key := squash(name)
	if key == "" {
		return "", false
	}
	for _, n := range names {
		if squash(n) == key {
			return n, true
		}
	}
	if a, ok := aliases[key]; ok {
		for _, n := range names {
			if n == a {
				return n, true
			}
		}
	}
	best, bestD := "", 3
	for _, n := range names {
		d := args.Distance(key, squash(n))
		if d < bestD && d*3 < len(key) {
			best, bestD = n, d
		}
	}
	return best, best != ""
}

// squash lowercases s and drops separators and a "functions." or "tools."
// prefix.
func squash(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"functions.", "function.", "tools.", "tool.", "default_api.", "defaultapi.", "api."} {
		s = strings.TrimPrefix(s, p)
	}
	var b strings.Builder
	for _, r := range s {
		if r != '_' && r != '-' && r != ' ' && r != '.' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
