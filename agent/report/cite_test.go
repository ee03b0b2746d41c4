package report

import (
	"strings"
	"testing"
)

// Citations the model copies from the findings ("[q2, c1]") read as the
// figures and tables the report shows; refs the exploration lacks are
// removed and listed in the report's notes.
func TestCitationsReadAsFiguresAndTables(t *testing.T) {
	rep := writeReport(t, "# T\n\n## Findings\n\nEast led [q2, c1].\n\n{{table:q2}}\n\n"+
		"Growth held (c2; q9). Nothing backs this [q99].\n\n{{chart:c2}}\n\n"+
		"Shipped leads [q2] and [q98]. West leads [q2], [q97]; East [q96] and north [q2].\n\n"+
		"See [the docs](https://example.org/q1) and (q1 and q3).\n\n```sql\n-- [q2] stays in code\n```\n")
	md, notes, _ := strings.Cut(rep.Markdown(), "## Notes on this report")
	for _, want := range []string{
		"East led (Table 1; Figure 2).", // c1 is placed by Loupe after c2, so it is Figure 2
		"Growth held (Figure 1). Nothing backs this.",
		"Shipped leads (Table 1). West leads (Table 1); East and north (Table 1).", // no joining word left dangling
		"(query q1; query q3)",
		"-- [q2] stays in code",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	for _, raw := range []string{"[q2, c1]", "[q99]", "q9", "(c2;"} {
		if strings.Contains(md, raw) {
			t.Errorf("report.md still shows the raw citation %q", raw)
		}
	}
	for _, want := range []string{"citation q9", "citation q99"} {
		if !strings.Contains(notes, want) {
			t.Errorf("the notes do not list %q:\n%s", want, notes)
		}
	}
	if len(noticesOf(rep, NoticeCitationRemoved)) != 5 {
		t.Errorf("notices %+v", rep.Notices)
	}
}
