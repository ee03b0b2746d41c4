package report

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// section is a heading and the lines up to the next heading.
type section struct {
	start, end int // lines[start] is the heading (or 0 for text before any heading); end is exclusive
	level      int // 0 for text before the first heading
	heading    string
	words      map[string]bool
}

func sections(lines []string) []section {
	code := fenced(lines)
	var out []section
	cur := section{start: 0}
	for i, l := range lines {
		if code[i] {
			continue
		}
		if lvl, text := heading(l); lvl > 0 {
			cur.end = i
			out = append(out, cur)
			cur = section{start: i, level: lvl, heading: text}
		}
	}
	cur.end = len(lines)
	out = append(out, cur)
	for i := range out {
		out[i].words = words(strings.Join(lines[out[i].start:out[i].end], " "))
	}
	return out
}

var (
	findingsHeading = regexp.MustCompile(`(?i)finding|result|analysis|insight`)
	closingHeading  = regexp.MustCompile(`(?i)method|caveat|limitation|next step|recommendation|conclusion`)
)

// placeMissingCharts puts every chart the model did not place under the
// finding it supports: at the end of the section that best matches the
// finding's words; failing that, at the end of the findings section, before
// the method or caveats, or at the end.
func (c *composer) placeMissingCharts(lines []string) []string {
	for _, ch := range c.exp.Charts {
		if c.placed[strings.ToLower(ch.Ref)] {
			continue
		}
		at, why := c.chartSpot(lines, ch)
		block := []string{"", placeholderLine(kindChart, ch.Ref), ""}
		lines = slices.Insert(lines, at, block...)
		c.placed[strings.ToLower(ch.Ref)] = true
		c.notice(NoticeChartAppended, ch.Ref, "The model did not place chart %s (%s); Loupe placed it %s.", ch.Ref, ch.Title, why)
	}
	return lines
}

// chartSpot returns the line index to insert chart ch at, and where that is
// in words.
func (c *composer) chartSpot(lines []string, ch Chart) (int, string) {
	secs := sections(lines)
	best, bestScore := -1, 0.0
	for _, f := range c.exp.Findings {
		if !cites(f, ch) {
			continue
		}
		fw := words(f.Text)
		if len(fw) == 0 {
			continue
		}
		for i, s := range secs {
			if s.level == 0 || closingHeading.MatchString(s.heading) {
				continue
			}
			n := 0
			for w := range fw {
				if s.words[w] {
					n++
				}
			}
			score := float64(n) / float64(len(fw))
			// Prefer the deeper (more specific) section on a tie.
			if score > bestScore || (score == bestScore && best >= 0 && s.level > secs[best].level) {
				best, bestScore = i, score
			}
		}
	}
	if best >= 0 && bestScore >= 0.3 {
		return secs[best].end, "under the section about its finding (\"" + secs[best].heading + "\")"
	}
	for i, s := range secs {
		if s.level > 0 && findingsHeading.MatchString(s.heading) {
			return sectionEnd(secs, i), "at the end of \"" + s.heading + "\""
		}
	}
	for _, s := range secs {
		if s.level > 0 && closingHeading.MatchString(s.heading) {
			return s.start, "before \"" + s.heading + "\""
		}
	}
	return len(lines), "at the end of the report"
}

// sectionEnd is where section i ends including its subsections.
func sectionEnd(secs []section, i int) int {
	for j := i + 1; j < len(secs); j++ {
		if secs[j].level <= secs[i].level {
			return secs[j].start
		}
	}
	return secs[len(secs)-1].end
}

// cites reports whether finding f rests on chart ch (or its query).
func cites(f Finding, ch Chart) bool {
	for _, e := range f.Evidence {
		if strings.EqualFold(e, ch.Ref) || (ch.QueryRef != "" && strings.EqualFold(e, ch.QueryRef)) {
			return true
		}
	}
	return false
}

var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "that": true, "this": true, "from": true,
	"are": true, "was": true, "were": true, "has": true, "have": true, "had": true, "its": true,
	"than": true, "into": true, "per": true, "all": true, "any": true, "not": true, "but": true,
	"which": true, "their": true, "there": true, "these": true, "those": true, "over": true,
	"more": true, "most": true, "less": true, "each": true, "also": true, "about": true,
}

// words returns the distinct lower-case words of s that carry meaning:
// three letters or more, or any number.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.'
	}) {
		w = strings.Trim(w, ".")
		isNum := w != "" && unicode.IsDigit(rune(w[0]))
		if w == "" || stopWords[w] || (!isNum && len([]rune(w)) < 3) {
			continue
		}
		out[w] = true
	}
	return out
}
