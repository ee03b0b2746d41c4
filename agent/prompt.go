package agent

import (
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/tools"
)

// Schema is what the system prompt says about the data. The caller builds
// it from the workspace (and, later, from retrieval for the question).
type Schema struct {
	Dialect string // "DuckDB" (the default), "PostgreSQL", "MySQL", "SQLite"…
	// Tips replaces the DuckDB SQL tips for another dialect: a few lines,
	// each starting with "- ".
	Tips string
	// Where says where the tables live when that is not the user's
	// workspace, e.g. "the PostgreSQL database chinook (connection
	// chinook-pg)"; queries run there.
	Where     string
	Tables    []Table
	JoinPaths []JoinPath
	// Others counts tables that exist but are not described; the model
	// reaches them with the tool that lists the tables (list_datasets).
	Others int
	// Examples are verified question→SQL pairs (answers the user
	// confirmed) close to the question, most relevant first: the prompt
	// offers them to adapt.
	Examples []Example
}

// Example is a question the user verified the answer of, and its SQL.
type Example struct {
	Question string
	SQL      string
}

// Table is a dataset as the model sees it.
type Table struct {
	Name        string
	Source      string // file name or connection, shown briefly
	Rows        int64
	Description string
	Columns     []Column
}

// Column is a column as the model sees it.
type Column struct {
	Name    string
	Type    string
	Samples []string // a few values: top values of low-cardinality columns, else samples
	Range   string   // "min to max" for numbers and dates, when known
	// Description is the source's comment on the column, if any.
	Description string
}

// JoinPath is a join between two tables known to be valid.
type JoinPath struct {
	From, FromColumn string
	To, ToColumn     string
	Confidence       float64 // 1 for declared keys
	Declared         bool
}

// promptOptions is what the system prompt needs besides the schema.
type promptOptions struct {
	maxSteps int
	tools    catalog
}

// systemPrompt builds the system prompt: the instructions, the dialect's
// SQL tips and the tools' guidance, and nothing that depends on the
// question, so that it is the same for every question of a conversation
// and a model server can serve it, and the history after it, from its
// cache. What each question needs (its tables, join paths and verified
// queries) is in its own user turn (questionTurn).
func systemPrompt(s Schema, o promptOptions) string {
	var b strings.Builder
	dialect := s.Dialect
	if dialect == "" {
		dialect = "DuckDB"
	}
	b.WriteString("You are Loupe, a careful data analyst. You answer questions about the user's data by exploring it with your tools: you inspect tables, run read-only SQL, profile columns, draw charts and check findings. Every number you state must come from a tool result in this conversation; never answer from general knowledge or guess.\n\n")

	fmt.Fprintf(&b, "## Data (%s SQL)\n", dialect)
	b.WriteString("Each question of the user comes with the data it needs, before the question itself: the tables retrieved for it (a table described earlier in the conversation is named, not described again, and still holds), the only valid join paths between them and, when there are any, verified queries like it.\n")

	b.WriteString("\n## SQL tips (" + dialect + ")\n")
	b.WriteString("- One SELECT (or WITH … SELECT) per call, no semicolon. Nothing can be written.\n")
	if s.Tips != "" {
		b.WriteString(strings.TrimRight(s.Tips, "\n") + "\n")
	} else {
		b.WriteString(`- Quote identifiers that have capitals, spaces or symbols with double quotes; strings with single quotes.
- LIMIT n, not TOP n. ILIKE for case-insensitive matching. GROUP BY ALL is allowed.
- Dates: date_trunc('month', d), extract(year FROM d), strftime(d, '%Y-%m'), d - INTERVAL 7 DAY, current_date.
`)
	}
	b.WriteString("- Aggregate in SQL: you see at most 30 rows of each result.\n")

	b.WriteString("\n## How to work\n")
	for i, text := range o.tools.guidance() {
		fmt.Fprintf(&b, "%d. %s\n", i+1, text)
	}

	b.WriteString("\n## Honesty\n")
	b.WriteString(`- If a query returns no rows, say the result is empty; never fill in values.
- If the data cannot answer the question, say what is missing instead of approximating with other data.
- Say so when a result was capped, sampled or has many missing values.
`)

	fmt.Fprintf(&b, "\n## Limits\nAt most %d steps (each of your replies is a step). Queries time out after 30 seconds.\n", o.maxSteps)

	b.WriteString(`
## Final answer
When you have the answer, reply without calling a tool, in this form:

<2–4 sentences answering the question directly, with the key numbers>

Findings:
- <a finding with its number> [q1]
- <another finding> [q2, c1]

Tool results are labelled with references such as [q1] (a query) or [c1] (a chart); cite the ones that support each finding. Keep it brief: the user can ask for a full report later.
`)
	return b.String()
}

// questionMark separates a user turn's data from the user's words.
const questionMark = "\n\n## Question\n"

// questionTurn is the user turn of a question: the data it needs (the
// tables retrieved for it, its join paths, verified queries like it), then
// the user's words. A table whose description already appears, word for
// word, in an earlier user turn of history is named instead of described
// again: the model has read it, and the turn stays short.
func questionTurn(s Schema, o promptOptions, history []llm.Message, question string) string {
	return questionContext(s, o, history) + questionMark + question
}

// UserWords is the user's words of a user turn the agent wrote (the
// question without the data before it); another message's content is
// returned as it is.
func UserWords(content string) string {
	if !strings.HasPrefix(content, dataHeading) {
		return content
	}
	if _, q, ok := strings.Cut(content, questionMark); ok {
		return q
	}
	return content
}

// dataHeading opens a question's user turn.
const dataHeading = "## Data for this question"

// questionContext is the data section of a question's user turn.
func questionContext(s Schema, o promptOptions, history []llm.Message) string {
	var b strings.Builder
	dialect := s.Dialect
	if dialect == "" {
		dialect = "DuckDB"
	}
	fmt.Fprintf(&b, "%s (%s SQL)\n", dataHeading, dialect)
	if s.Where != "" {
		fmt.Fprintf(&b, "The tables are in %s; your queries run there, read-only.\n", s.Where)
	}
	if len(s.Tables) == 0 {
		b.WriteString("The workspace has no tables yet. Tell the user to open a data file (CSV, Excel, Parquet, JSON, SQLite or DuckDB) first.\n")
	}
	var known []string
	for _, t := range s.Tables {
		var tb strings.Builder
		writeTable(&tb, t)
		if describedIn(history, tb.String()) {
			known = append(known, t.Name)
			continue
		}
		b.WriteString(tb.String())
	}
	if len(known) > 0 {
		fmt.Fprintf(&b, "\nAs described earlier in this conversation: %s.\n", strings.Join(known, ", "))
	}
	if s.Others > 0 {
		fmt.Fprintf(&b, "%d more table(s) exist", s.Others)
		if list := o.tools.nameOf(listsTables); list != "" {
			fmt.Fprintf(&b, "; call %s to see them", list)
		}
		b.WriteString(".\n")
	}

	b.WriteString("\n## Join paths\n")
	if len(s.JoinPaths) == 0 {
		b.WriteString("No join paths are known between these tables. Do not join tables: if a question needs a relationship the data does not show, say that the data does not link them.\n")
	} else {
		b.WriteString("Only these joins are valid; tables with no path here cannot be joined:\n")
		for _, j := range s.JoinPaths {
			how := "inferred"
			if j.Declared {
				how = "declared key"
			} else if j.Confidence > 0 {
				how = fmt.Sprintf("inferred, confidence %.0f%%", j.Confidence*100)
			}
			fmt.Fprintf(&b, "- %s.%s = %s.%s (%s)\n", j.From, j.FromColumn, j.To, j.ToColumn, how)
		}
	}

	if len(s.Examples) > 0 {
		b.WriteString("\n## Verified queries\nThe user confirmed the answers these queries gave to questions like this one. Prefer them: adapt the closest (its filters, grouping, columns) when it fits, and check it still answers the question.\n")
		for _, e := range s.Examples {
			fmt.Fprintf(&b, "- Question: %q\n  SQL: %s\n", oneLine(e.Question), strings.Join(strings.Fields(e.SQL), " "))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// describedIn reports whether block appears in a user turn of history.
func describedIn(history []llm.Message, block string) bool {
	for _, m := range history {
		if m.Role == llm.User && strings.HasPrefix(m.Content, dataHeading) && strings.Contains(m.Content, block) {
			return true
		}
	}
	return false
}

func writeTable(b *strings.Builder, t Table) {
	fmt.Fprintf(b, "\nTable %s — %s rows", t.Name, groupDigits(t.Rows))
	if t.Source != "" {
		fmt.Fprintf(b, ", from %s", t.Source)
	}
	b.WriteString("\n")
	if t.Description != "" {
		fmt.Fprintf(b, "  %s\n", t.Description)
	}
	for _, c := range t.Columns {
		fmt.Fprintf(b, "  %s %s", c.Name, c.Type)
		switch {
		case c.Range != "":
			fmt.Fprintf(b, " (%s)", c.Range)
		case len(c.Samples) > 0:
			fmt.Fprintf(b, " (e.g. %s)", strings.Join(c.Samples, ", "))
		}
		if c.Description != "" {
			fmt.Fprintf(b, " — %s", c.Description)
		}
		b.WriteString("\n")
	}
}

// groupDigits writes n with thousands separators.
func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// estimateTokens is a rough token count for English text and SQL (about
// four characters per token), for budgets and reports, not billing.
func estimateTokens(s string) int {
	return (len(s) + 3) / 4
}

// PromptTokens estimates the size in tokens of what a question sends
// before any history, for schema with tools on offer, the way a run
// measures it: the system prompt and the question's data.
func PromptTokens(schema Schema, set *tools.Set, maxSteps int) int {
	o := promptOptions{maxSteps: maxSteps, tools: newCatalog(set.Specs())}
	return estimateTokens(systemPrompt(schema, o) + questionContext(schema, o, nil))
}
