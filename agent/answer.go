package agent

import (
	"regexp"
	"strings"
)

var (
	findingsHeading = regexp.MustCompile(`(?im)^\s*(?:#{1,4}\s*)?(?:\*\*)?(?:key\s+)?findings(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$`)
	bullet          = regexp.MustCompile(`^\s*(?:[-*•]|\d+[.)])\s+(.*)$`)
	refGroup        = regexp.MustCompile(`\[((?:[qc]\d+)(?:\s*[,;]\s*[qc]\d+)*)\]`)
	refSplit        = regexp.MustCompile(`[qc]\d+`)
)

// parseAnswer splits a final answer into its summary and its findings,
// each with the evidence refs it cites. Refs the run never produced are
// dropped from the evidence (the text keeps them). An answer without a
// "Findings" section is all summary.
func parseAnswer(text string, known map[string]bool) (string, []Finding) {
	loc := findingsHeading.FindStringIndex(text)
	if loc == nil {
		return strings.TrimSpace(text), nil
	}
	summary := strings.TrimSpace(text[:loc[0]])
	var out []Finding
	for _, line := range strings.Split(text[loc[1]:], "\n") {
		if m := bullet.FindStringSubmatch(line); m != nil {
			out = append(out, Finding{Text: strings.TrimSpace(m[1])})
		} else if strings.TrimSpace(line) != "" && len(out) > 0 {
			out[len(out)-1].Text += " " + strings.TrimSpace(line)
		}
	}
	for i := range out {
		for _, g := range refGroup.FindAllStringSubmatch(out[i].Text, -1) {
			for _, ref := range refSplit.FindAllString(g[1], -1) {
				if known[ref] && !contains(out[i].Evidence, ref) {
					out[i].Evidence = append(out[i].Evidence, ref)
				}
			}
		}
	}
	return summary, out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
