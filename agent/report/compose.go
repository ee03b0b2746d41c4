package report

import (
	"fmt"
	"regexp"
	"strings"
)

// Notice says what Loupe corrected in the model's text.
type Notice struct {
	Kind string `json:"kind"`
	Ref  string `json:"ref,omitempty"`
	Text string `json:"text"`
}

// Notice kinds.
const (
	NoticeUnknownRef      = "unknown_ref"      // a placeholder named nothing the exploration has; removed
	NoticeWrongKind       = "wrong_kind"       // {{chart:q2}} for a query, or the reverse; shown as what it is
	NoticeDuplicate       = "duplicate"        // the same chart or table placed twice; the later one removed
	NoticeNoTable         = "no_table"         // a table placeholder for a failed query; removed
	NoticeChartAppended   = "chart_appended"   // the model did not place a chart; Loupe placed it
	NoticeImageRemoved    = "image_removed"    // the model wrote its own image link; removed
	NoticeAppendixRemoved = "appendix_removed" // the model wrote an appendix; Loupe writes its own
	NoticeTitleDerived    = "title_derived"    // the model wrote no title; derived from the question
	NoticeTruncated       = "truncated"        // the model stopped at its length limit
)

// Listed is the notice as the report's notes list it: what was removed or
// moved, by ref, without repeating what the model wrote (a placeholder, a
// link) that was the reason for removing it.
func (n Notice) Listed() string {
	switch n.Kind {
	case NoticeUnknownRef:
		return fmt.Sprintf("Removed a placeholder for %s: the report covers no chart or query %s.", n.Ref, n.Ref)
	case NoticeWrongKind:
		return fmt.Sprintf("%s was placed as the wrong kind of block; it is shown as what it is.", n.Ref)
	case NoticeDuplicate:
		return fmt.Sprintf("Removed a second placement of %s.", n.Ref)
	case NoticeNoTable:
		return fmt.Sprintf("Removed the table of %s: the query failed (its SQL and error are in the appendix).", n.Ref)
	case NoticeImageRemoved:
		return "Removed an image the model linked itself: the report shows only Loupe's charts and loads nothing else."
	}
	return n.Text
}

// placeholderRe matches {{chart:c1}}, {{ table: q2 }}, {{figure:c1}},
// {{query:q2}} and a bare {{c1}}, in any case.
var placeholderRe = regexp.MustCompile(`(?i)\{\{\s*(?:(chart|figure|table|query)\s*[:=]\s*)?([A-Za-z][\w-]*)\s*\}\}`)

// markdownImage matches an image the model wrote itself: inline
// (![a](url)), reference-style (![a][1], ![a][]) and shortcut (![a], which
// a reader resolves against a [a]: url definition).
var markdownImage = regexp.MustCompile(`!\[[^\]\n]*\](?:\([^)\n]*\)|\[[^\]\n]*\])?`)

// loadingTag matches an HTML tag a markdown reader would let fetch
// something (an image, a frame, a script, a style sheet, media) when it
// shows report.md. Other angle brackets (a < b, <email_3>) are left alone.
// A script or style element goes with its content, which is not text for
// the reader.
var loadingTag = regexp.MustCompile(`(?i)<(script|style)\b[^>]*>.*?</(?:script|style)\s*>|</?(?:img|picture|source|video|audio|track|iframe|frame|object|embed|link|script|style|svg|image|input|meta|base|form)\b[^>]*>`)

var atxHeading = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`)

// composer turns the model's reply into the report's title and body.
type composer struct {
	exp     *Exploration
	notices []Notice
	placed  map[string]bool // lower(ref) → placed
}

// compose cleans the model's reply and resolves its placeholders. The body
// it returns holds the exploration's charts and tables only as canonical
// placeholder lines ({{chart:REF}} / {{table:REF}}, each alone between blank
// lines), with the exploration's spelling of each ref.
func compose(reply string, exp *Exploration) (title, body string, notices []Notice) {
	c := &composer{exp: exp, placed: map[string]bool{}}
	text := unwrapFence(stripThink(reply))
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	title, lines = c.takeTitle(lines)
	lines = c.dropAppendix(lines)
	lines = c.resolve(lines)
	lines = c.placeMissingCharts(lines)
	lines = c.cite(lines)
	return title, tidy(lines), c.notices
}

func (c *composer) notice(kind, ref, format string, args ...any) {
	c.notices = append(c.notices, Notice{Kind: kind, Ref: ref, Text: fmt.Sprintf(format, args...)})
}

// unwrapFence undoes a reply wrapped whole in one ```markdown … ``` block
// (or a bare ``` block holding headings), which small models like to do.
func unwrapFence(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) < 3 {
		return s
	}
	first, last := strings.TrimSpace(lines[0]), strings.TrimSpace(lines[len(lines)-1])
	if !strings.HasPrefix(first, "```") || last != "```" {
		return s
	}
	inner := lines[1 : len(lines)-1]
	fences, headings := 0, 0
	for _, l := range inner {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fences++
		}
		if lvl, _ := heading(l); lvl > 0 {
			headings++
		}
	}
	switch lang := strings.ToLower(strings.TrimPrefix(first, "```")); {
	case fences%2 != 0:
		return s // the last line closes an inner block
	case lang == "markdown" || lang == "md" || (lang == "" && headings > 0):
		return strings.Join(inner, "\n")
	}
	return s
}

// fenced marks which lines are inside fenced code blocks.
func fenced(lines []string) []bool {
	in := make([]bool, len(lines))
	var fence string
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if fence != "" {
			in[i] = true
			if strings.HasPrefix(t, fence) && strings.TrimSpace(strings.TrimLeft(t, fence[:1])) == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			n := len(t) - len(strings.TrimLeft(t, t[:1]))
			fence = strings.Repeat(t[:1], n)
			in[i] = true
		}
	}
	return in
}

// heading returns the level and text of an ATX heading line, or 0.
func heading(line string) (int, string) {
	m := atxHeading.FindStringSubmatch(line)
	if m == nil {
		return 0, ""
	}
	return len(m[1]), strings.TrimSpace(m[2])
}

// takeTitle removes the first level-1 heading and returns its text, or a
// title derived from the question.
func (c *composer) takeTitle(lines []string) (string, []string) {
	code := fenced(lines)
	for i, l := range lines {
		if code[i] {
			continue
		}
		if lvl, text := heading(l); lvl == 1 && text != "" {
			return cleanTitle(text), append(lines[:i:i], lines[i+1:]...)
		}
	}
	t := deriveTitle(c.exp.Question)
	c.notice(NoticeTitleDerived, "", "The model wrote no title; the title is derived from the question.")
	return t, lines
}

// cleanTitle drops placeholders and markdown emphasis from a title.
func cleanTitle(s string) string {
	s = placeholderRe.ReplaceAllString(s, "")
	s = strings.NewReplacer("**", "", "__", "", "`", "").Replace(s)
	return strings.TrimSpace(s)
}

// deriveTitle makes a title from the question: trimmed, first letter
// upper-cased, cut at a word boundary near 90 characters.
func deriveTitle(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if q == "" {
		return "Analysis report"
	}
	r := []rune(q)
	if len(r) > 90 {
		cut := 90
		for cut > 40 && r[cut] != ' ' {
			cut--
		}
		r = append(r[:cut], '…')
	}
	r[0] = []rune(strings.ToUpper(string(r[0])))[0]
	return string(r)
}

// dropAppendix removes sections the model titled "Appendix": Loupe writes
// the appendix from the queries themselves.
func (c *composer) dropAppendix(lines []string) []string {
	code := fenced(lines)
	out := lines[:0:0]
	skipLevel := 0
	for i, l := range lines {
		lvl, text := 0, ""
		if !code[i] {
			lvl, text = heading(l)
		}
		if skipLevel > 0 {
			if lvl == 0 || lvl > skipLevel {
				continue
			}
			skipLevel = 0
		}
		if lvl > 0 && lvl <= 2 && strings.HasPrefix(strings.ToLower(text), "appendix") {
			skipLevel = lvl
			c.notice(NoticeAppendixRemoved, "", "The model wrote its own %q section; Loupe writes the appendix from the queries.", text)
			continue
		}
		out = append(out, l)
	}
	return out
}
