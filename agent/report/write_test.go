package report

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
)

// blockLines returns the canonical placeholder lines of a body, in order.
func blockLines(body string) []string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if k, r, ok := parseBlock(l); ok {
			out = append(out, k+":"+r)
		}
	}
	return out
}

func TestWritePlacesChartsAndTablesFromTheExploration(t *testing.T) {
	rep := writeReport(t, readTestdata(t, "reply_good.md"))

	if rep.Title != "East led 2024 revenue, and orders are rising" {
		t.Errorf("title = %q", rep.Title)
	}
	// c1, q2 where written; c2 moved after its paragraph; q4 after its
	// sentence; c3 (never placed) at the end of the findings.
	want := []string{"chart:c1", "table:q2", "chart:c2", "table:q4", "chart:c3"}
	if got := blockLines(rep.Body); !slices.Equal(got, want) {
		t.Errorf("blocks = %v, want %v\n%s", got, want, rep.Body)
	}
	if strings.Contains(rep.Body, "{{ table") || strings.Contains(rep.Body, "shows {{") {
		t.Errorf("a placeholder was left as the model wrote it:\n%s", rep.Body)
	}
	if !strings.Contains(rep.Body, "as the trend shows, despite a dip in February.") {
		t.Errorf("the sentence around an inline placeholder was not kept whole:\n%s", rep.Body)
	}
	md := rep.Markdown()
	for _, s := range []string{
		"![Revenue by region, 2024](charts/c1.svg)",
		"![Orders per month, 2024](charts/c2.svg)",
		"![Order status](charts/c3.svg)",
		"| region | revenue |\n| --- | ---: |\n| East | 150,000.00 |\n| North | 120,500.50 |",
		"| Central & Overseas | 40,100.00 |",
		"| delivered | 812 | 81.2 |",
		"*Table 1. Revenue by region in 2024 (q2): 5 rows.*",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("report.md lacks %q", s)
		}
	}
	if strings.Contains(md, "{{") {
		t.Errorf("report.md still has a placeholder")
	}
	// The c3 placement is reported; nothing else was corrected.
	if n := noticesOf(rep, NoticeChartAppended); len(n) != 1 || n[0].Ref != "c3" {
		t.Errorf("chart_appended notices = %+v", n)
	}
	if len(rep.Notices) != 1 {
		t.Errorf("notices = %+v, want only c3's placement", rep.Notices)
	}
	// c3 sits at the end of the findings, before the method.
	if i, j := strings.Index(rep.Body, "{{chart:c3}}"), strings.Index(rep.Body, "## Method"); i < 0 || i > j {
		t.Errorf("c3 at %d, method at %d", i, j)
	}
}

func TestWriteRejectsWhatTheExplorationDoesNotHave(t *testing.T) {
	reply := `# Report

## Findings

Revenue soared {{chart:c9}} and {{table:q99}} proves it.

{{chart:q2}}

{{table:q5}}

{{c1}}

{{figure:C1}}

![fake chart](https://example.com/chart.png)

{{query:q4}}
`
	rep := writeReport(t, reply)
	for _, c := range []struct {
		kind string
		refs []string
	}{
		{NoticeUnknownRef, []string{"c9", "q99"}},
		{NoticeWrongKind, []string{"q2"}},
		{NoticeNoTable, []string{"q5"}},
		{NoticeDuplicate, []string{"c1"}},
		{NoticeImageRemoved, []string{""}},
	} {
		var refs []string
		for _, n := range noticesOf(rep, c.kind) {
			refs = append(refs, n.Ref)
		}
		if !slices.Equal(refs, c.refs) {
			t.Errorf("%s notices for %v, want %v", c.kind, refs, c.refs)
		}
	}
	md, notes, _ := strings.Cut(rep.Markdown(), "## Notes on this report")
	for _, bad := range []string{"c9", "q99", "example.com", "{{"} {
		if strings.Contains(md, bad) {
			t.Errorf("report.md still mentions %q", bad)
		}
	}
	// What was removed is listed, by ref, without what the model wrote.
	for _, want := range []string{"placeholder for c9", "placeholder for q99", "second placement of c1", "table of q5", "Removed an image"} {
		if !strings.Contains(notes, want) {
			t.Errorf("the notes do not list %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "example.com") || strings.Contains(notes, "{{") {
		t.Errorf("the notes repeat what the model wrote:\n%s", notes)
	}
	want := []string{"table:q2", "chart:c1", "table:q4", "chart:c2", "chart:c3"}
	if got := blockLines(rep.Body); !slices.Equal(got, want) {
		t.Errorf("blocks = %v, want %v", got, want)
	}
	if !strings.Contains(rep.Body, "Revenue soared and proves it.") {
		t.Errorf("text around removed placeholders:\n%s", rep.Body)
	}
}

func TestWriteStripsThinking(t *testing.T) {
	reply := "<think>I should invent nothing. SECRET PLAN</think>\n# Title\n\nBody text.\n<thinking>more SECRET PLAN</thinking>\nEnd."
	// Split the stream at every byte so tags straddle pieces.
	var pieces []string
	for i := 0; i < len(reply); i += 3 {
		pieces = append(pieces, reply[i:min(i+3, len(reply))])
	}
	var streamed strings.Builder
	rep, err := Write(context.Background(), &scripted{pieces: pieces}, "m", loadExploration(t), func(s string) { streamed.WriteString(s) })
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{"streamed": streamed.String(), "body": rep.Body, "markdown": rep.Markdown()} {
		if strings.Contains(s, "SECRET") || strings.Contains(strings.ToLower(s), "think") {
			t.Errorf("%s text keeps the reasoning: %q", name, s)
		}
	}
	if want := "\n# Title\n\nBody text.\n\nEnd."; streamed.String() != want {
		t.Errorf("streamed %q, want %q", streamed.String(), want)
	}
	if rep.Title != "Title" || !strings.Contains(rep.Body, "Body text.") || !strings.Contains(rep.Body, "End.") {
		t.Errorf("title %q body %q", rep.Title, rep.Body)
	}
}

func TestStripThink(t *testing.T) {
	cases := []struct{ in, want string }{
		{"<think>a</think>b", "b"},
		{"<THINK>a</Think>b<think>c</think>d", "bd"},
		{"reasoning without an opening tag</think>\n# T", "# T"},
		{"# T\nbody<think>cut off while thinking", "# T\nbody"},
		{"<thinking>\nx\n</thinking>\n\n# T", "# T"},
		{"no tags at all", "no tags at all"},
		{"a < b and c > d", "a < b and c > d"},
	}
	for _, c := range cases {
		if got := stripThink(c.in); got != c.want {
			t.Errorf("stripThink(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestThinkFilterAtEverySplit(t *testing.T) {
	in := "A<think>x<y</think>B <b>bold</b> a<c <Think>z</THINK>C<thi"
	want := "AB <b>bold</b> a<c C<thi"
	for cut := 0; cut <= len(in); cut++ {
		var f thinkFilter
		got := f.write(in[:cut]) + f.write(in[cut:]) + f.flush()
		if got != want {
			t.Fatalf("split at %d: %q, want %q", cut, got, want)
		}
	}
}

func TestWritePlacesAForgottenChartUnderItsFinding(t *testing.T) {
	reply := `# Sales in 2024

## Executive summary

East leads.

## Findings

### Orders keep growing

Monthly orders grew from 310 in January to 451 in June.

### Revenue by region

East leads revenue with 150,000 USD, ahead of North.

## Caveats

None.
`
	rep := writeReport(t, reply)
	body := rep.Body
	// c2 (orders, finding 2) goes under "Orders keep growing", c1 (finding 1)
	// under "Revenue by region", c3 (no finding) at the end of the findings.
	at := func(s string) int {
		i := strings.Index(body, s)
		if i < 0 {
			t.Fatalf("%q missing from\n%s", s, body)
		}
		return i
	}
	if !(at("### Orders keep growing") < at("{{chart:c2}}") && at("{{chart:c2}}") < at("### Revenue by region")) {
		t.Errorf("c2 not under its finding:\n%s", body)
	}
	if !(at("### Revenue by region") < at("{{chart:c1}}") && at("{{chart:c1}}") < at("{{chart:c3}}") && at("{{chart:c3}}") < at("## Caveats")) {
		t.Errorf("c1/c3 misplaced:\n%s", body)
	}
	if n := noticesOf(rep, NoticeChartAppended); len(n) != 3 {
		t.Errorf("chart_appended notices = %+v", n)
	}
}

func TestWriteWithoutHeadingsAppendsChartsAtTheEnd(t *testing.T) {
	rep := writeReport(t, "East leads revenue.")
	if rep.Title != "Which region brought in the most revenue in 2024, and is it growing?" {
		t.Errorf("derived title = %q", rep.Title)
	}
	if len(noticesOf(rep, NoticeTitleDerived)) != 1 {
		t.Errorf("no title_derived notice: %+v", rep.Notices)
	}
	if got := blockLines(rep.Body); !slices.Equal(got, []string{"chart:c1", "chart:c2", "chart:c3"}) {
		t.Errorf("blocks = %v", got)
	}
	if !strings.HasPrefix(rep.Body, "East leads revenue.") {
		t.Errorf("body = %q", rep.Body)
	}
}

func TestHeading(t *testing.T) {
	cases := []struct {
		line  string
		level int
		text  string
	}{
		{"# Sales in C#", 1, "Sales in C#"},
		{"## Findings ##", 2, "Findings"},
		{"   ### Deep", 3, "Deep"},
		{"#hashtag", 0, ""},
		{"    # code", 0, ""},
		{"####### seven", 0, ""},
	}
	for _, c := range cases {
		if lvl, text := heading(c.line); lvl != c.level || text != c.text {
			t.Errorf("heading(%q) = %d %q, want %d %q", c.line, lvl, text, c.level, c.text)
		}
	}
}

func TestDeriveTitle(t *testing.T) {
	long := strings.Repeat("which customers ordered ", 10) + "most?"
	cases := []struct{ in, want string }{
		{"  what's the   status?  ", "What's the status?"},
		{"", "Analysis report"},
		{"écoles par région", "Écoles par région"},
	}
	for _, c := range cases {
		if got := deriveTitle(c.in); got != c.want {
			t.Errorf("deriveTitle(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	got := deriveTitle(long)
	if n := len([]rune(got)); n > 91 || !strings.HasSuffix(got, "…") || strings.HasSuffix(got, " …") {
		t.Errorf("long title = %q (%d runes)", got, n)
	}
}

func TestWriteRemovesTheModelsAppendixAndUnwrapsAFence(t *testing.T) {
	reply := "```markdown\n# T\n\nText.\n\n```sql\nSELECT 1\n```\n\n## Appendix\n\nSELECT made_up FROM nowhere\n\n### More\n\nx\n\n## Caveats\n\nSmall sample.\n```"
	rep := writeReport(t, reply)
	if rep.Title != "T" {
		t.Errorf("title = %q (fence not unwrapped?)", rep.Title)
	}
	if strings.Contains(rep.Body, "made_up") || strings.Contains(rep.Body, "### More") {
		t.Errorf("model's appendix kept:\n%s", rep.Body)
	}
	if !strings.Contains(rep.Body, "```sql\nSELECT 1\n```") || !strings.Contains(rep.Body, "## Caveats") {
		t.Errorf("body lost content:\n%s", rep.Body)
	}
	if len(noticesOf(rep, NoticeAppendixRemoved)) != 1 {
		t.Errorf("notices = %+v", rep.Notices)
	}
}

func TestAppendixListsEveryQuery(t *testing.T) {
	exp := loadExploration(t)
	rep := writeReport(t, readTestdata(t, "reply_good.md"))
	md := rep.Markdown()
	i := strings.Index(md, "## Appendix: queries")
	if i < 0 {
		t.Fatal("no appendix")
	}
	app := md[i:]
	for _, q := range exp.Queries {
		if !strings.Contains(app, "```sql\n"+q.SQL+"\n```") {
			t.Errorf("appendix lacks the SQL of %s in a fenced block", q.Ref)
		}
		if !strings.Contains(app, "### "+q.Ref+" — "+q.Purpose) {
			t.Errorf("appendix lacks a heading for %s", q.Ref)
		}
		if q.Error == "" && !strings.Contains(app, fmt.Sprintf("%d rows · columns: `%s`", q.Rows, q.Columns[0].Name)) {
			t.Errorf("appendix lacks the row count of %s", q.Ref)
		}
	}
	if !strings.Contains(app, "Failed: Binder Error: Referenced column \"rep\" not found") {
		t.Error("the failed query's error is missing")
	}
	// c1 and c2 share their SQL with q2 and q3; c3's SQL is its own.
	if strings.Count(app, "data of chart") != 1 || !strings.Contains(app, "### c3 — data of chart “Order status”") {
		t.Errorf("chart queries in the appendix:\n%s", app)
	}
	// The appendix is Loupe's: it comes after the model's last section.
	if strings.Index(md, "## Caveats") > i {
		t.Error("appendix is not last")
	}
}

func TestFenceOutlastsBackticksInSQL(t *testing.T) {
	got := fence("SELECT '```' AS x", "sql")
	if !strings.HasPrefix(got, "````sql\n") || !strings.HasSuffix(got, "\n````\n") {
		t.Errorf("fence = %q", got)
	}
}

func TestTableCellsAreEscapedAndCapped(t *testing.T) {
	q := &Query{Ref: "q1", Columns: []Column{{"note", "VARCHAR"}, {"x", "DOUBLE"}}, Rows: 40}
	q.Preview = append(q.Preview, []any{"a|b <script>*x*\nnext", 0.1 + 0.2})
	for i := range 39 {
		q.Preview = append(q.Preview, []any{fmt.Sprint(i), float64(i)})
	}
	out := mdTable(q, 1)
	if !strings.Contains(out, `| a\|b \<script\>\*x\* next | 0.3 |`) {
		t.Errorf("escaped row missing:\n%s", out)
	}
	if got := strings.Count(out, "\n|") + 1; got != 2+maxTableRows {
		t.Errorf("%d table lines, want header+rule+%d rows", got, maxTableRows)
	}
	if !strings.Contains(out, "first 25 of 40 rows") {
		t.Errorf("no truncation caption:\n%s", out)
	}
}

func TestFormatValue(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		{nil, "NULL"}, {float64(150000), "150000"}, {120500.5, "120500.5"}, {0.1 + 0.2, "0.3"},
		{1.0 / 3, "0.33333333"}, {1.5e-7, "1.5e-07"}, {int64(-3), "-3"}, {true, "true"},
		{"text", "text"}, {[]any{1.0, "a"}, `[1,"a"]`}, {map[string]any{"k": 1.0}, `{"k":1}`},
	}
	for _, c := range cases {
		if got := formatValue(c.in); got != c.want {
			t.Errorf("formatValue(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWritePrompt(t *testing.T) {
	exp := loadExploration(t)
	for i := range 60 {
		exp.Queries[1].Preview = append(exp.Queries[1].Preview, []any{fmt.Sprintf("extra-region-%d", i), float64(i)})
	}
	exp.Queries[1].Rows = 65
	p := &scripted{reply: "# T\n\nx"}
	if _, err := Write(context.Background(), p, "qwen3:8b", exp, nil); err != nil {
		t.Fatal(err)
	}
	reqs := p.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	req := reqs[0]
	if req.Model != "qwen3:8b" || len(req.Tools) != 0 || len(req.Messages) != 2 ||
		req.Messages[0].Role != llm.System || req.Messages[1].Role != llm.User {
		t.Fatalf("request = %+v", req)
	}
	user := req.Messages[1].Content
	for _, s := range []string{
		"Question: Which region brought in the most revenue in 2024",
		"Follow-up question: How does the West compare with last year?",
		"1. East leads 2024 revenue with 150,000 USD, 24% more than North. (evidence: q2, c1)",
		"[q2] Revenue by region in 2024 — 65 rows",
		"Columns: region VARCHAR, revenue DOUBLE",
		"First 20 rows (tab-separated):",
		"[q5] Revenue by sales rep — FAILED: Binder Error",
		`[c1] "Revenue by region, 2024" — bar chart of x=region, y=revenue (5 data rows); data from q2`,
		`[c2] "Orders per month, 2024" — line chart`,
		"- ordered_at has 12 NULL values (1.2%)",
		"Placeholders you may use: {{chart:c1}}, {{chart:c2}}, {{chart:c3}}, {{table:q1}}, {{table:q2}}, {{table:q3}}, {{table:q4}}",
	} {
		if !strings.Contains(user, s) {
			t.Errorf("prompt lacks %q", s)
		}
	}
	if strings.Contains(user, "extra-region-15\t") || !strings.Contains(user, "extra-region-14\t") {
		t.Error("the prompt does not cap the preview at 20 rows")
	}
	if strings.Contains(user, "{{table:q5}}") {
		t.Error("a failed query is offered as a table")
	}
	for _, s := range []string{"{{chart:c1}}", "Do not write an appendix", "Never write data tables"} {
		if !strings.Contains(req.Messages[0].Content+user, s) {
			t.Errorf("prompt lacks %q", s)
		}
	}
}

func TestWriteCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := Write(ctx, &scripted{block: true}, "m", loadExploration(t), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("cancel took %v", d)
	}
	p := &scripted{reply: "x"}
	if _, err := Write(ctx, p, "m", loadExploration(t), nil); !errors.Is(err, context.Canceled) || len(p.requests()) != 0 {
		t.Errorf("already-canceled ctx: err = %v, requests = %d", err, len(p.requests()))
	}
}

func TestWriteErrors(t *testing.T) {
	provErr := llm.Errorf("scripted", llm.Unreachable, "start it", nil, "nothing listens")
	cases := []struct {
		name  string
		p     *scripted
		exp   func(*Exploration)
		check func(error) bool
	}{
		{"provider failure", &scripted{err: provErr}, nil, func(err error) bool { return llm.KindOf(err) == llm.Unreachable }},
		{"reasoning only", &scripted{reply: "<think>hmm</think>  "}, nil, func(err error) bool { return errors.Is(err, ErrEmptyReply) }},
		{"empty reply", &scripted{reply: ""}, nil, func(err error) bool { return errors.Is(err, ErrEmptyReply) }},
		{"no question", &scripted{reply: "x"}, func(e *Exploration) { e.Question = "" }, func(err error) bool { return err != nil && strings.Contains(err.Error(), "no question") }},
		{"duplicate ref", &scripted{reply: "x"}, func(e *Exploration) { e.Charts[0].Ref = "Q2" }, func(err error) bool { return err != nil && strings.Contains(err.Error(), `"Q2"`) }},
		{"unsafe ref", &scripted{reply: "x"}, func(e *Exploration) { e.Charts[0].Ref = "../c1" }, func(err error) bool { return err != nil && strings.Contains(err.Error(), "letters, digits") }},
		{"bad spec", &scripted{reply: "x"}, func(e *Exploration) { e.Charts[0].Spec = []byte(`[1]`) }, func(err error) bool { return err != nil && strings.Contains(err.Error(), "not a JSON object") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			exp := loadExploration(t)
			if c.exp != nil {
				c.exp(&exp)
			}
			rep, err := Write(context.Background(), c.p, "m", exp, nil)
			if rep != nil || !c.check(err) {
				t.Errorf("rep = %v, err = %v", rep != nil, err)
			}
		})
	}
}

func TestWriteRestartAndTruncation(t *testing.T) {
	p := &scripted{pieces: []string{"# Old", restartMarker, "# New\n\nText."}, finish: "length"}
	var streamed []string
	resets := 0
	rep, err := WriteWith(context.Background(), p, "m", loadExploration(t), Options{
		OnDelta: func(s string) { streamed = append(streamed, s) },
		OnReset: func() { resets++; streamed = nil },
		Now:     func() time.Time { return time.Date(2026, 3, 5, 10, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if resets != 1 || strings.Join(streamed, "") != "# New\n\nText." {
		t.Errorf("resets %d, streamed %q", resets, streamed)
	}
	if rep.Title != "New" || len(noticesOf(rep, NoticeTruncated)) != 1 {
		t.Errorf("title %q, notices %+v", rep.Title, rep.Notices)
	}
	if !strings.Contains(rep.Markdown(), "*Written by Loupe on 5 March 2026 with m · questions: “Which region") {
		t.Errorf("provenance line:\n%.300s", rep.Markdown())
	}
	if rep.Usage.CompletionTokens != 300 || rep.Provider != "scripted" {
		t.Errorf("usage %+v provider %q", rep.Usage, rep.Provider)
	}
}

func TestDescribeSpec(t *testing.T) {
	cases := []struct{ spec, want string }{
		{`{"mark":"bar","encoding":{"y":{"field":"n","aggregate":"sum"},"x":{"field":"a"}},"data":{"values":[{},{}]}}`, "bar chart of x=a, y=sum(n) (2 data rows)"},
		{`{"mark":{"type":"line"}}`, "line chart"},
		{`{"layer":[{"mark":"bar"}]}`, "layered chart"},
		{`not json`, "chart"},
	}
	for _, c := range cases {
		if got := describeSpec([]byte(c.spec)); got != c.want {
			t.Errorf("describeSpec(%s) = %q, want %q", c.spec, got, c.want)
		}
	}
}

func TestPlaceholderSyntaxVariants(t *testing.T) {
	re := regexp.MustCompile(`\{\{(chart|table):(\w+)\}\}`)
	for _, in := range []string{"{{chart:c1}}", "{{ chart : c1 }}", "{{CHART:C1}}", "{{figure:c1}}", "{{c1}}", "{{chart=c1}}"} {
		rep := writeReport(t, "# T\n\n"+in+"\n")
		if m := re.FindStringSubmatch(rep.Body); m == nil || m[1] != "chart" || m[2] != "c1" {
			t.Errorf("%s → body %q", in, rep.Body)
		}
		if len(noticesOf(rep, NoticeChartAppended)) != 2 {
			t.Errorf("%s: c1 not recognised as placed: %+v", in, rep.Notices)
		}
	}
}

func TestWriteLinksChartsToTheirQueries(t *testing.T) {
	exp := loadExploration(t)
	exp.Charts[0].QueryRef = ""                                           // same SQL as q2 (spacing differs below)
	exp.Charts[0].SQL = strings.ReplaceAll(exp.Charts[0].SQL, "\n", "  ") // whitespace does not matter
	exp.Charts[1].QueryRef = "q42"                                        // names no query; its SQL is q3's
	rep, err := Write(context.Background(), &scripted{reply: "# T\n\nx"}, "m", exp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Exploration.Charts[0].QueryRef; got != "q2" {
		t.Errorf("c1 query = %q, want q2", got)
	}
	if got := rep.Exploration.Charts[1].QueryRef; got != "q3" {
		t.Errorf("c2 query = %q, want q3 (q42 dropped, then found by SQL)", got)
	}
	if got := rep.Exploration.Charts[2].QueryRef; got != "" {
		t.Errorf("c3 query = %q, want none (its SQL is its own)", got)
	}
	if exp.Charts[0].QueryRef != "" || exp.Charts[1].QueryRef != "q42" {
		t.Error("Write changed the caller's exploration")
	}
	if !strings.Contains(rep.Markdown(), "*Figure 1. Revenue by region, 2024 (data: q2)*") {
		t.Error("caption lacks the inferred query")
	}
}

// TestTableCellFormats: a report table writes numbers with thousands
// separators and one number of decimals per column, ids as they are, and
// a column of midnight timestamps as dates.
func TestTableCellFormats(t *testing.T) {
	cols := []Column{{Name: "month", Type: "TIMESTAMP"}, {Name: "revenue", Type: "DOUBLE"}, {Name: "orders", Type: "BIGINT"},
		{Name: "customer_id", Type: "BIGINT"}, {Name: "at", Type: "TIMESTAMP"}, {Name: "tiny", Type: "DOUBLE"}}
	rows := [][]string{
		{"2024-12-01 00:00:00", "55420.45", "1234567", "100000", "2024-12-01 09:30:00", "0.5"},
		{"2025-01-01 00:00:00", "30631.2", "12", "100001", "2024-12-02 00:00:00", "0.0000001"},
	}
	f := columnFormats(cols, rows)
	want := [][]string{
		{"2024-12-01", "55,420.45", "1,234,567", "100000", "2024-12-01 09:30:00", "0.500000"},
		{"2025-01-01", "30,631.20", "12", "100001", "2024-12-02 00:00:00", "0.0000001"},
	}
	for r := range rows {
		for i := range rows[r] {
			if got := f[i].format(rows[r][i]); got != want[r][i] {
				t.Errorf("row %d %s: %q → %q, want %q", r, cols[i].Name, rows[r][i], got, want[r][i])
			}
		}
	}
}

// TestFooterNamesTheVersion: a report written with a version ends with a
// footer naming it; one stored before versions were recorded has none.
func TestFooterNamesTheVersion(t *testing.T) {
	rep := writeReport(t, readTestdata(t, "reply_good.md"))
	if strings.Contains(rep.Markdown(), "Written by Loupe v") {
		t.Errorf("a report without a version has a footer")
	}
	rep.Version = "v1.4.0-3-gabc1234"
	md := rep.Markdown()
	if !strings.HasSuffix(md, "\n---\n\n*Written by Loupe v1.4.0-3-gabc1234.*\n") {
		t.Errorf("report.md does not end with the version's footer:\n%s", md[max(0, len(md)-200):])
	}
}
