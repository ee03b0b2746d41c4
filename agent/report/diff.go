package report

// Diff compares two versions of a report: what moved in their evidence
// (Compare, from A to B) and their markdown line by line.
type Diff struct {
	Changes Changes    `json:"changes"`
	Lines   []DiffLine `json:"lines"`
}

// DiffLine is one line of the markdown diff: Op is " " (in both), "-"
// (only in A) or "+" (only in B).
type DiffLine struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// maxDiffLines bounds the line diff's table (lines of A times lines of
// B); beyond it the diff lists A's lines removed and B's added.
const maxDiffLines = 4_000_000

// DiffReports compares version a with version b of a report.
func DiffReports(a, b *Report) Diff {
	return Diff{Changes: Compare(&a.Exploration, &b.Exploration), Lines: lineDiff(splitLines(a.Markdown()), splitLines(b.Markdown()))}
}

// Changed reports whether the diff holds a line that differs.
func (d Diff) Changed() bool {
	for _, l := range d.Lines {
		if l.Op != " " {
			return true
		}
	}
	return false
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// lineDiff is the longest-common-subsequence diff of a and b.
func lineDiff(a, b []string) []DiffLine {
	if len(a)*len(b) > maxDiffLines {
		out := make([]DiffLine, 0, len(a)+len(b))
		for _, l := range a {
			out = append(out, DiffLine{Op: "-", Text: l})
		}
		for _, l := range b {
			out = append(out, DiffLine{Op: "+", Text: l})
		}
		return out
	}
	// lcs[i][j] is the length of the LCS of a[i:] and b[j:].
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []DiffLine
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, DiffLine{Op: " ", Text: a[i]})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, DiffLine{Op: "-", Text: a[i]})
			i++
		default:
			out = append(out, DiffLine{Op: "+", Text: b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, DiffLine{Op: "-", Text: a[i]})
	}
	for ; j < len(b); j++ {
		out = append(out, DiffLine{Op: "+", Text: b[j]})
	}
	return out
}

// Hunks are the runs of changed lines of a diff, each with up to context
// unchanged lines around it.
func Hunks(lines []DiffLine, context int) [][]DiffLine {
	var out [][]DiffLine
	keep := make([]bool, len(lines))
	for i, l := range lines {
		if l.Op == " " {
			continue
		}
		for j := max(0, i-context); j <= min(len(lines)-1, i+context); j++ {
			keep[j] = true
		}
	}
	var cur []DiffLine
	for i, l := range lines {
		if !keep[i] {
			if cur != nil {
				out, cur = append(out, cur), nil
			}
			continue
		}
		cur = append(cur, l)
	}
	if cur != nil {
		out = append(out, cur)
	}
	return out
}
