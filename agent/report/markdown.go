package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loupeapp/loupe/agent/llm"
)

// Report is a written report: the model's text with Loupe's placeholders
// resolved against the exploration it was written from.
type Report struct {
	Title string `json:"title"`
	// Body is the text between the title and the appendix. Charts and
	// tables appear in it only as canonical placeholder lines
	// ({{chart:c1}}, {{table:q2}}, each alone between blank lines) naming
	// the exploration's refs; everything else is the model's markdown.
	Body        string      `json:"body"`
	Exploration Exploration `json:"exploration"`
	// Notices say what Loupe corrected in the model's text.
	Notices  []Notice  `json:"notices,omitempty"`
	Model    string    `json:"model,omitempty"`
	Provider string    `json:"provider,omitempty"`
	Usage    llm.Usage `json:"usage"`
	Created  time.Time `json:"created"`
	// Version is the version of Loupe that wrote the report (`loupe
	// --version`), said in the footer; empty in reports written before it
	// was recorded, which have no footer.
	Version string `json:"version,omitempty"`
	// Refresh is set on a refreshed version: its queries were run again
	// and its charts redrawn on the data of Created, the text kept from
	// Refresh.Written; the markdown opens with "What changed".
	Refresh *Refresh `json:"refresh,omitempty"`
}

// maxTableRows caps a result table in the body; the appendix has the SQL.
const maxTableRows = 25

// Markdown returns the whole report.md: title, provenance line, body with
// each chart as an image link to charts/REF.svg and each table as a
// markdown table, and the appendix of every query.
func (r *Report) Markdown() string {
	return r.markdown(func(ch *Chart, fig int) string {
		return mdChart(ch, fig, "charts/"+ch.Ref+".svg", "")
	})
}

// markdown renders the report with chart blocks written by chart.
func (r *Report) markdown(chart func(ch *Chart, fig int) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", escapeInline(r.Title))
	b.WriteString(r.provenance())
	b.WriteString("\n\n")
	b.WriteString(r.whatChanged())
	figs, tabs := 0, 0
	for _, l := range strings.Split(strings.TrimRight(r.Body, "\n"), "\n") {
		kind, ref, ok := parseBlock(l)
		switch {
		case ok && kind == kindChart && r.Exploration.chart(ref) != nil:
			figs++
			b.WriteString(strings.TrimRight(chart(r.Exploration.chart(ref), figs), "\n"))
		case ok && kind == kindTable && r.Exploration.query(ref) != nil:
			tabs++
			b.WriteString(strings.TrimRight(mdTable(r.Exploration.query(ref), tabs), "\n"))
		default:
			b.WriteString(l)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	b.WriteString(r.corrections())
	b.WriteString(r.appendix())
	b.WriteString(r.footer())
	return b.String()
}

// footer is the last line: the version of Loupe that wrote the report, so
// that a reader can tell which release's behaviour it reflects.
func (r *Report) footer() string {
	if r.Version == "" {
		return ""
	}
	return "\n---\n\n*Written by Loupe " + escapeInline(r.Version) + ".*\n"
}

// corrections lists the notices: what Loupe removed from the model's
// text, placed in its stead or could not cover, so that nothing leaves
// the report silently.
func (r *Report) corrections() string {
	if len(r.Notices) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Notes on this report\n\nWhat Loupe changed in the model's text, or left out:\n\n")
	for _, n := range r.Notices {
		b.WriteString("- " + escapeInline(oneLine(n.Listed())) + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// provenance is the italic line under the title.
func (r *Report) provenance() string {
	var parts []string
	if !r.Created.IsZero() {
		parts = append(parts, "Written by Loupe on "+r.Created.Format("2 January 2006"))
	} else {
		parts = append(parts, "Written by Loupe")
	}
	if r.Refresh != nil && !r.Refresh.Written.IsZero() {
		parts[0] = "Written by Loupe on " + r.Refresh.Written.Format("2 January 2006")
	}
	if r.Model != "" {
		parts[0] += " with " + escapeInline(r.Model)
	}
	if r.Refresh != nil && !r.Created.IsZero() {
		parts = append(parts, "refreshed on "+r.Created.Format("2 January 2006 15:04"))
	}
	qs := append([]string{r.Exploration.Question}, r.Exploration.FollowUps...)
	for i, q := range qs {
		qs[i] = "“" + escapeInline(oneLine(q)) + "”"
	}
	if len(qs) == 1 {
		parts = append(parts, "question: "+qs[0])
	} else {
		parts = append(parts, "questions: "+strings.Join(qs[:len(qs)-1], ", ")+" and "+qs[len(qs)-1])
	}
	return "*" + strings.Join(parts, " · ") + ".*"
}

// mdChart writes a chart as an image with a caption; when failure is set the
// chart could not be drawn and the caption says so instead.
func mdChart(ch *Chart, fig int, src, failure string) string {
	caption := fmt.Sprintf("Figure %d. %s", fig, escapeInline(chartTitle(ch)))
	if ch.QueryRef != "" {
		caption += fmt.Sprintf(" (data: %s)", ch.QueryRef)
	}
	if failure != "" {
		return fmt.Sprintf("*%s — the chart could not be drawn (%s); its query is in the appendix.*\n",
			caption, escapeInline(failure))
	}
	return fmt.Sprintf("![%s](%s)\n\n*%s*\n", escapeInline(chartTitle(ch)), src, caption)
}

func chartTitle(ch *Chart) string {
	if t := strings.TrimSpace(ch.Title); t != "" {
		return oneLine(t)
	}
	return "Chart " + ch.Ref
}

// mdTable writes a query's preview as a markdown table with a caption.
func mdTable(q *Query, n int) string {
	var b strings.Builder
	label := fmt.Sprintf("Table %d. ", n)
	if q.Purpose != "" {
		label += escapeInline(oneLine(q.Purpose)) + " "
	}
	label += "(" + q.Ref + ")"
	if q.Error != "" {
		fmt.Fprintf(&b, "*%s: the query failed: %s.*\n", label, escapeInline(oneLine(q.Error)))
		return b.String()
	}
	if len(q.Columns) == 0 || q.Rows == 0 || len(q.Preview) == 0 {
		fmt.Fprintf(&b, "*%s: the query returned no rows.*\n", label)
		return b.String()
	}
	b.WriteString("|")
	for _, c := range q.Columns {
		b.WriteString(" " + escapeCell(c.Name) + " |")
	}
	b.WriteString("\n|")
	for _, c := range q.Columns {
		if numericType(c.Type) {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" --- |")
		}
	}
	b.WriteString("\n")
	shown := min(len(q.Preview), maxTableRows)
	cells := make([][]string, shown)
	for r, row := range q.Preview[:shown] {
		cells[r] = make([]string, len(q.Columns))
		for i := range q.Columns {
			var v any
			if i < len(row) {
				v = row[i]
			}
			cells[r][i] = formatValue(v)
		}
	}
	formats := columnFormats(q.Columns, cells)
	for _, row := range cells {
		b.WriteString("|")
		for i, s := range row {
			b.WriteString(" " + escapeCell(formats[i].format(s)) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	if int64(shown) < q.Rows {
		fmt.Fprintf(&b, "*%s: first %d of %s rows.*\n", label, shown, thousands(q.Rows))
	} else {
		fmt.Fprintf(&b, "*%s: %s %s.*\n", label, thousands(q.Rows), plural(q.Rows, "row", "rows"))
	}
	return b.String()
}

// appendix lists every query, and the query of every chart not already
// listed, with its SQL in a fenced block.
func (r *Report) appendix() string {
	var b strings.Builder
	b.WriteString("## Appendix: queries\n\n")
	b.WriteString("Every query the exploration ran, in order, as it was run.\n")
	listed := map[string]bool{}
	for _, q := range r.Exploration.Queries {
		head := q.Ref
		if q.Purpose != "" {
			head += " — " + escapeInline(oneLine(q.Purpose))
		}
		fmt.Fprintf(&b, "\n### %s\n\n", head)
		if q.Error != "" {
			fmt.Fprintf(&b, "Failed: %s\n\n", escapeInline(oneLine(q.Error)))
		} else {
			fmt.Fprintf(&b, "%s %s", thousands(q.Rows), plural(q.Rows, "row", "rows"))
			if len(q.Columns) > 0 {
				cols := make([]string, len(q.Columns))
				for i, c := range q.Columns {
					cols[i] = fmt.Sprintf("`%s` %s", strings.ReplaceAll(c.Name, "`", "'"), escapeInline(c.Type))
				}
				b.WriteString(" · columns: " + strings.Join(cols, ", "))
			}
			b.WriteString("\n\n")
		}
		b.WriteString(fence(q.SQL, "sql"))
		listed[normSQL(q.SQL)] = true
	}
	for _, ch := range r.Exploration.Charts {
		if strings.TrimSpace(ch.SQL) == "" || listed[normSQL(ch.SQL)] {
			continue
		}
		fmt.Fprintf(&b, "\n### %s — data of chart “%s”\n\n", ch.Ref, escapeInline(chartTitle(&ch)))
		b.WriteString(fence(ch.SQL, "sql"))
		listed[normSQL(ch.SQL)] = true
	}
	if len(listed) == 0 {
		b.WriteString("\nThe exploration ran no queries.\n")
	}
	b.WriteString(r.numbersChecked())
	return b.String()
}

// numbersChecked lists the answer's numbers and what backs each.
func (r *Report) numbersChecked() string {
	if len(r.Exploration.Numbers) == 0 {
		return ""
	}
	parts := make([]string, len(r.Exploration.Numbers))
	for i, n := range r.Exploration.Numbers {
		src := "found in no result: unverified"
		if n.Source != "" {
			src = escapeInline(n.Source)
		}
		parts[i] = fmt.Sprintf("%s (%s)", escapeInline(n.Text), src)
	}
	against := "the results above"
	if r.Refresh != nil {
		against = "the results when the answer was given (the section “What changed” lists what moved since)"
	}
	return "\n### Numbers checked\n\nEach number of the answer, checked against " + against + ": " + strings.Join(parts, ", ") + ".\n"
}

func normSQL(s string) string { return strings.Join(strings.Fields(s), " ") }

// fence wraps code in a fence longer than any backtick run inside it.
func fence(code, lang string) string {
	longest, run := 0, 0
	for _, r := range code {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(code, "\n") + "\n" + f + "\n"
}

// numericType reports whether a SQL type holds numbers (right-aligned).
func numericType(t string) bool {
	t = strings.ToUpper(t)
	for _, p := range []string{"INT", "DOUBLE", "FLOAT", "REAL", "DECIMAL", "NUMERIC", "HUGEINT", "BIGINT", "SMALLINT", "TINYINT", "UBIGINT", "UINTEGER"} {
		if strings.HasPrefix(t, p) || strings.HasPrefix(t, "U"+p) {
			return true
		}
	}
	return false
}

// formatValue writes a JSON-ready value for a table cell.
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return formatFloat(x)
	case float32:
		return formatFloat(float64(x))
	case json.Number:
		if f, err := x.Float64(); err == nil && strings.ContainsAny(string(x), ".eE") {
			return formatFloat(f)
		}
		return string(x)
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprint(x)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
}

// formatFloat writes whole numbers without decimals and others with at
// most 8 significant digits, without exponent for everyday magnitudes.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return strconv.FormatFloat(f, 'g', -1, 64)
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	g, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 8, 64), 64)
	if a := math.Abs(g); a >= 1e-4 && a < 1e15 {
		return strconv.FormatFloat(g, 'f', -1, 64)
	}
	return strconv.FormatFloat(g, 'g', -1, 64)
}

const maxCell = 80

// escapeCell makes text safe inside a markdown table cell: one line, no
// pipes, no markup, no raw HTML, at most maxCell characters.
func escapeCell(s string) string {
	s = oneLine(s)
	if utf8.RuneCountInString(s) > maxCell {
		s = string([]rune(s)[:maxCell-1]) + "…"
	}
	return escapeInline(s)
}

var inlineEscaper = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "#", `\#`, "~", `\~`,
)

// escapeInline makes text Loupe inserts (titles, captions, values) read
// literally in markdown.
func escapeInline(s string) string { return inlineEscaper.Replace(s) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func lower(s string) string { return strings.ToLower(s) }
