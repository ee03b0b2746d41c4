package report

import (
	"regexp"
	"strings"
)

// spaceBeforePunct is the gap a removed placeholder leaves before punctuation.
var spaceBeforePunct = regexp.MustCompile(`\s+([,.;:!?)])`)

// block kinds of a canonical placeholder.
const (
	kindChart = "chart"
	kindTable = "table"
)

// placeholderLine returns the canonical line for a block.
func placeholderLine(kind, ref string) string { return "{{" + kind + ":" + ref + "}}" }

// parseBlock reports the block a canonical placeholder line stands for.
func parseBlock(line string) (kind, ref string, ok bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "{{") || !strings.HasSuffix(t, "}}") {
		return "", "", false
	}
	kind, ref, ok = strings.Cut(t[2:len(t)-2], ":")
	if !ok || (kind != kindChart && kind != kindTable) || !refPattern.MatchString(ref) {
		return "", "", false
	}
	return kind, ref, true
}

// resolve replaces every placeholder the model wrote with a canonical block
// line, or removes it with a notice. A placeholder that shares its line
// with text moves to the end of that paragraph.
func (c *composer) resolve(lines []string) []string {
	code := fenced(lines)
	var out, queued []string
	flush := func() {
		for _, b := range queued {
			out = append(out, "", b, "")
		}
		queued = nil
	}
	for i, l := range lines {
		if code[i] {
			out = append(out, l)
			continue
		}
		if strings.TrimSpace(l) == "" {
			flush()
			out = append(out, l)
			continue
		}
		if lvl, _ := heading(l); lvl > 0 {
			flush()
		}
		l = c.removeImages(l)
		var blocks []string
		found := false
		rest := placeholderRe.ReplaceAllStringFunc(l, func(m string) string {
			found = true
			sub := placeholderRe.FindStringSubmatch(m)
			if b := c.block(m, strings.ToLower(sub[1]), sub[2]); b != "" {
				blocks = append(blocks, b)
			}
			return ""
		})
		if !found {
			out = append(out, l)
			continue
		}
		if strings.TrimSpace(rest) == "" {
			for _, b := range blocks {
				out = append(out, "", b, "")
			}
			continue
		}
		lead := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		rest = lead + spaceBeforePunct.ReplaceAllString(strings.Join(strings.Fields(rest), " "), "$1")
		out = append(out, rest)
		queued = append(queued, blocks...)
	}
	flush()
	return out
}

// removeImages drops image links and loading HTML tags the model wrote:
// every picture in the report comes from the exploration, and report.md,
// read in any markdown viewer, must fetch nothing the model named.
func (c *composer) removeImages(l string) string {
	drop := func(m string) string {
		c.notice(NoticeImageRemoved, "", "Removed an image the model linked itself: %s", m)
		return ""
	}
	return loadingTag.ReplaceAllStringFunc(markdownImage.ReplaceAllStringFunc(l, drop), drop)
}

// block resolves one placeholder to its canonical line, or "" when it is
// dropped (with a notice). kind is as written ("" when bare).
func (c *composer) block(written, kind, ref string) string {
	want := map[string]string{"chart": kindChart, "figure": kindChart, "table": kindTable, "query": kindTable}[kind]
	ch, q := c.exp.chart(ref), c.exp.query(ref)
	var got string
	switch {
	case ch != nil:
		got, ref = kindChart, ch.Ref
	case q != nil:
		got, ref = kindTable, q.Ref
	default:
		c.notice(NoticeUnknownRef, ref, "Removed %s: the exploration has no chart or query %q.", written, ref)
		return ""
	}
	if want != "" && want != got {
		c.notice(NoticeWrongKind, ref, "%s names a %s; shown as that %s.", written, nounOf(got), nounOf(got))
	}
	if got == kindTable && q.Error != "" {
		c.notice(NoticeNoTable, ref, "Removed %s: query %s failed, so it has no table.", written, ref)
		return ""
	}
	key := strings.ToLower(ref)
	if c.placed[key] {
		c.notice(NoticeDuplicate, ref, "Removed a second %s: %s is already shown.", written, ref)
		return ""
	}
	c.placed[key] = true
	return placeholderLine(got, ref)
}

func nounOf(kind string) string {
	if kind == kindChart {
		return "chart"
	}
	return "query"
}

// tidy joins lines, collapsing runs of blank lines outside code blocks.
func tidy(lines []string) string {
	code := fenced(lines)
	var b strings.Builder
	blank := true // drop leading blank lines
	for i, l := range lines {
		if !code[i] && strings.TrimSpace(l) == "" {
			if !blank {
				b.WriteString("\n")
			}
			blank = true
			continue
		}
		blank = false
		b.WriteString(strings.TrimRight(l, " \t"))
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
