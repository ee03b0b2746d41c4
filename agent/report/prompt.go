package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Caps on what the prompt shows of each query: enough to write about, small
// enough for a local model's context.
const (
	promptRows     = 20
	promptCellLen  = 60
	promptSQLChars = 2000
)

const systemPrompt = `You are Loupe's report writer. A data exploration has already been done: you are given the question, the analyst agent's summary and findings, every query it ran (with the first rows of each result) and every chart it drew. Write a comprehensive, well-structured report in markdown for the person who asked.

Rules:
1. Use only facts and numbers that appear in the exploration below. Do not invent numbers, categories, trends or causes. If something was not measured, say so rather than guess.
2. Never write data tables or image links yourself. Show a chart by writing its placeholder alone on its own line, e.g. {{chart:c1}}; show a query's result table with {{table:q2}}. Use only the placeholders listed under "Placeholders you may use". Loupe replaces each one with the real chart or table.
3. Structure the report like this:
   # A specific title that states the main answer
   ## Executive summary — 3 to 5 sentences that answer the question directly, with the key numbers.
   ## Findings — one ### subsection per finding: what was found, the numbers that support it, and the placeholder of the chart or table that shows it, placed right after the text it supports.
   ## Method — the data used and how it was analysed, naming the queries by ref (q1, q2, …).
   ## Caveats — limits of the data and of the analysis, including the notes below and anything a careful reader should know (sample sizes, missing values, what was not checked).
4. Do not write an appendix: Loupe appends the SQL of every query itself.
5. Write plainly and precisely, for an analyst. No preamble, no closing remarks, no questions to the reader. Answer in the language of the question.`

// userPrompt lays the exploration out for the model.
func userPrompt(exp *Exploration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Question: %s\n", oneLine(exp.Question))
	for _, f := range exp.FollowUps {
		fmt.Fprintf(&b, "Follow-up question: %s\n", oneLine(f))
	}
	if len(exp.FollowUps) > 0 {
		b.WriteString("The report covers every question above: the whole analysis, not only the last answer.\n")
	}
	if len(exp.Datasets) > 0 {
		fmt.Fprintf(&b, "Datasets used: %s\n", strings.Join(exp.Datasets, "; "))
	}
	if exp.Summary != "" {
		fmt.Fprintf(&b, "\nThe analyst's summary:\n%s\n", strings.TrimSpace(exp.Summary))
	}
	if len(exp.Findings) > 0 {
		b.WriteString("\nFindings:\n")
		for i, f := range exp.Findings {
			fmt.Fprintf(&b, "%d. %s", i+1, oneLine(f.Text))
			if len(f.Evidence) > 0 {
				fmt.Fprintf(&b, " (evidence: %s)", strings.Join(f.Evidence, ", "))
			}
			b.WriteString("\n")
		}
	}
	if len(exp.Queries) > 0 {
		b.WriteString("\nQueries:\n")
		for _, q := range exp.Queries {
			writeQuery(&b, &q, exp.SchemaOnly)
		}
	}
	if len(exp.Charts) > 0 {
		b.WriteString("\nCharts:\n")
		for _, c := range exp.Charts {
			fmt.Fprintf(&b, "[%s] %q — %s", c.Ref, chartTitle(&c), describeSpec(c.Spec))
			if c.QueryRef != "" {
				fmt.Fprintf(&b, "; data from %s", c.QueryRef)
			}
			b.WriteString("\n")
		}
	}
	if len(exp.Notes) > 0 {
		b.WriteString("\nNotes and caveats from the exploration:\n")
		for _, n := range exp.Notes {
			fmt.Fprintf(&b, "- %s\n", oneLine(n))
		}
	}
	if exp.SchemaOnly {
		b.WriteString("\nPrivacy: the user chose the schema level, so you are shown no value of the data, only each query's columns and row count. Write every value as a reference Loupe fills in: {{q2.total[0]}} is column total of row 0 of query q2. Never write a value yourself.\n")
	}
	b.WriteString("\nPlaceholders you may use: ")
	b.WriteString(strings.Join(allowedPlaceholders(exp), ", "))
	b.WriteString("\n\nWrite the report now.")
	return b.String()
}

func allowedPlaceholders(exp *Exploration) []string {
	var out []string
	for _, c := range exp.Charts {
		out = append(out, placeholderLine(kindChart, c.Ref))
	}
	for _, q := range exp.Queries {
		if q.Error == "" && len(q.Columns) > 0 {
			out = append(out, placeholderLine(kindTable, q.Ref))
		}
	}
	if len(out) == 0 {
		return []string{"none (there is nothing to show; write text only)"}
	}
	return out
}

func writeQuery(b *strings.Builder, q *Query, schemaOnly bool) {
	fmt.Fprintf(b, "\n[%s]", q.Ref)
	if q.Purpose != "" {
		fmt.Fprintf(b, " %s", oneLine(q.Purpose))
	}
	if q.Error != "" {
		fmt.Fprintf(b, " — FAILED: %s\n", oneLine(q.Error))
	} else {
		fmt.Fprintf(b, " — %s %s\n", thousands(q.Rows), plural(q.Rows, "row", "rows"))
	}
	sql := strings.TrimSpace(q.SQL)
	if len(sql) > promptSQLChars {
		sql = sql[:promptSQLChars] + " …"
	}
	fmt.Fprintf(b, "SQL: %s\n", sql)
	if q.Error != "" || len(q.Columns) == 0 {
		return
	}
	cols := make([]string, len(q.Columns))
	for i, c := range q.Columns {
		cols[i] = c.Name + " " + c.Type
	}
	fmt.Fprintf(b, "Columns: %s\n", strings.Join(cols, ", "))
	if len(q.Preview) == 0 || schemaOnly {
		return
	}
	n := min(len(q.Preview), promptRows)
	if int64(n) < q.Rows {
		fmt.Fprintf(b, "First %d rows (tab-separated):\n", n)
	} else {
		b.WriteString("Rows (tab-separated):\n")
	}
	for _, c := range q.Columns {
		b.WriteString(c.Name + "\t")
	}
	b.WriteString("\n")
	for _, row := range q.Preview[:n] {
		for i := range q.Columns {
			var v any
			if i < len(row) {
				v = row[i]
			}
			s := oneLine(formatValue(v))
			if utf8.RuneCountInString(s) > promptCellLen {
				s = string([]rune(s)[:promptCellLen]) + "…"
			}
			b.WriteString(s + "\t")
		}
		b.WriteString("\n")
	}
}

// describeSpec says in a few words what a Vega-Lite spec draws: its mark,
// its encodings and how many data rows it holds.
func describeSpec(raw json.RawMessage) string {
	var s struct {
		Mark     json.RawMessage `json:"mark"`
		Encoding map[string]struct {
			Field     string `json:"field"`
			Type      string `json:"type"`
			Aggregate string `json:"aggregate"`
		} `json:"encoding"`
		Data struct {
			Values []json.RawMessage `json:"values"`
		} `json:"data"`
		Layer []json.RawMessage `json:"layer"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return "chart"
	}
	mark := "chart"
	var m struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(s.Mark, &mark) != nil && json.Unmarshal(s.Mark, &m) == nil && m.Type != "" {
		mark = m.Type
	}
	if len(s.Layer) > 0 && len(s.Mark) == 0 {
		mark = "layered"
	}
	channels := make([]string, 0, len(s.Encoding))
	for ch := range s.Encoding {
		channels = append(channels, ch)
	}
	sort.Strings(channels)
	var enc []string
	for _, ch := range channels {
		e := s.Encoding[ch]
		f := e.Field
		if e.Aggregate != "" {
			f = e.Aggregate + "(" + f + ")"
		}
		if f == "" {
			continue
		}
		enc = append(enc, ch+"="+f)
	}
	out := mark + " chart"
	if len(enc) > 0 {
		out += " of " + strings.Join(enc, ", ")
	}
	if n := len(s.Data.Values); n > 0 {
		out += fmt.Sprintf(" (%d data %s)", n, plural(int64(n), "row", "rows"))
	}
	return out
}
