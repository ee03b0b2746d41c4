package report

import (
	"regexp"
	"strconv"
	"strings"
)

// NoticeCitationRemoved: a citation named nothing the exploration has.
const NoticeCitationRemoved = "citation_removed"

// citeGroup matches a citation the model copied from the findings or wrote
// itself: refs alone in brackets or parentheses, "[q3, c2]", "(q1)",
// "[q1; q2]", "(q1 and c1)". A markdown link ("[q3](…)") is left alone.
var citeGroup = regexp.MustCompile(`(?i)[\[(]\s*((?:[qc]\d+)(?:\s*(?:,|;|&|and)\s*[qc]\d+)*)\s*[\])]\(?`)

var citeRef = regexp.MustCompile(`(?i)[qc]\d+`)

// removedCite marks where a citation naming nothing was, so that a word
// joining it to the citation before ("[q3] and [q9].") goes with it.
const removedCite = "\x00"

// danglingCite is a removed citation joined by "and", "or", "&" or a comma
// and followed by the sentence's end: the joining word goes too.
var danglingCite = regexp.MustCompile(`(?i)(?:\s*,|\s+(?:and|or|&))?\s*\x00([.;:!?)]|$)`)

// cite rewrites every citation in the body into words a reader follows —
// "(Figure 2; Table 1; query q3)", numbered as the report shows its charts
// and tables — and removes, with a notice, refs the exploration does not
// have. It runs once the body's charts and tables are placed.
func (c *composer) cite(lines []string) []string {
	figs, tabs := numbering(lines)
	code := fenced(lines)
	for i, l := range lines {
		if code[i] {
			continue
		}
		if _, _, ok := parseBlock(l); ok {
			continue
		}
		out := citeGroup.ReplaceAllStringFunc(l, func(m string) string {
			if strings.HasPrefix(m, "[") && strings.HasSuffix(m, "(") {
				return m // a link's text, not a citation
			}
			var words []string
			for _, ref := range citeRef.FindAllString(m, -1) {
				if w := c.citation(ref, figs, tabs); w != "" && !contains(words, w) {
					words = append(words, w)
				}
			}
			if len(words) == 0 {
				return removedCite
			}
			cited := "(" + strings.Join(words, "; ") + ")"
			if strings.HasSuffix(m, "(") { // "(q1)(" — keep what followed
				cited += "("
			}
			return cited
		})
		if out != l {
			out = danglingCite.ReplaceAllString(out, "$1")
			out = strings.ReplaceAll(strings.ReplaceAll(out, " "+removedCite, ""), removedCite, "")
			out = spaceBeforePunct.ReplaceAllString(out, "$1")
			lines[i] = strings.TrimRight(out, " ")
		}
	}
	return lines
}

// citation is how ref reads in the text, or "" when the exploration has
// no such query or chart (a notice says it was removed).
func (c *composer) citation(ref string, figs, tabs map[string]int) string {
	if ch := c.exp.chart(ref); ch != nil {
		if n := figs[lower(ch.Ref)]; n > 0 {
			return "Figure " + strconv.Itoa(n)
		}
		return "chart " + ch.Ref
	}
	if q := c.exp.query(ref); q != nil {
		if n := tabs[lower(q.Ref)]; n > 0 {
			return "Table " + strconv.Itoa(n)
		}
		return "query " + q.Ref
	}
	c.notice(NoticeCitationRemoved, ref, "Removed the citation %s: the report covers no query or chart %s.", ref, ref)
	return ""
}

// numbering gives each chart and table block of the body its figure or
// table number, in the order the report shows them.
func numbering(lines []string) (figs, tabs map[string]int) {
	figs, tabs = map[string]int{}, map[string]int{}
	for _, l := range lines {
		kind, ref, ok := parseBlock(l)
		switch {
		case !ok:
		case kind == kindChart && figs[lower(ref)] == 0:
			figs[lower(ref)] = len(figs) + 1
		case kind == kindTable && tabs[lower(ref)] == 0:
			tabs[lower(ref)] = len(tabs) + 1
		}
	}
	return figs, tabs
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
