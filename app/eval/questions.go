// Package eval measures the agent against questions with known answers:
// for each question it runs the agent, compares the result set of the
// agent's final query with the gold query's (or its answer with an
// expected text), and sums up execution accuracy, steps, tool calls,
// tokens, latency and failures by kind.
package eval

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Question is one question with what a right answer is: a gold query whose
// result set the agent's final query must reproduce, or an expected text
// its answer must contain.
type Question struct {
	ID       string `json:"id,omitempty"`
	Question string `json:"question"`
	SQL      string `json:"sql,omitempty"`    // gold query
	Answer   string `json:"answer,omitempty"` // expected text (when there is no gold query)
	// DB names the workspace the question is about: a folder of that name
	// under the eval's workspace folder, if one exists.
	DB string `json:"db,omitempty"`
	// Ordered says row order matters; by default it does when the gold
	// query has an ORDER BY.
	Ordered *bool `json:"ordered,omitempty"`
}

//go:embed sample.jsonl
var sampleQuestions []byte

// SampleQuestions are the questions over Loupe's bundled sample data.
func SampleQuestions() ([]Question, error) {
	return parseJSONL(bytes.NewReader(sampleQuestions), "sample.jsonl")
}

// ReadQuestions reads a question file: JSON Lines (one Question per line),
// or a CSV in sql-eval's layout (columns question, query, db_name; other
// columns ignored).
func ReadQuestions(path string) ([]Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open the questions: %w", err)
	}
	defer f.Close()
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		return parseCSV(f, path)
	}
	return parseJSONL(f, path)
}

func parseJSONL(r io.Reader, name string) ([]Question, error) {
	var out []Question
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		var q Question
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return nil, fmt.Errorf("%s line %d: %w (each line must be a JSON object with \"question\" and \"sql\" or \"answer\")", name, n, err)
		}
		if err := q.check(); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, n, err)
		}
		if q.ID == "" {
			q.ID = fmt.Sprint(n)
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no questions", name)
	}
	return out, nil
}

func parseCSV(r io.Reader, name string) ([]Question, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true // sql-eval's files hold a few unescaped quotes
	rows, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("%s holds no questions", name)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	qi, ok1 := col["question"]
	si, ok2 := col["query"]
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%s needs the columns question and query (sql-eval's layout); it has %s", name, strings.Join(rows[0], ", "))
	}
	di, hasDB := col["db_name"]
	var out []Question
	for n, row := range rows[1:] {
		get := func(i int) string {
			if i < len(row) {
				return strings.TrimSpace(row[i])
			}
			return ""
		}
		q := Question{ID: fmt.Sprint(n + 1), Question: get(qi), SQL: goldAlternative(get(si))}
		if hasDB {
			q.DB = get(di)
		}
		if err := q.check(); err != nil {
			return nil, fmt.Errorf("%s row %d: %w", name, n+2, err)
		}
		out = append(out, q)
	}
	return out, nil
}

// goldAlternative keeps the first of sql-eval's alternatives ("a;b").
func goldAlternative(sql string) string {
	if i := strings.Index(sql, ";"); i > 0 && strings.TrimSpace(sql[i+1:]) != "" {
		return strings.TrimSpace(sql[:i])
	}
	return strings.TrimSuffix(strings.TrimSpace(sql), ";")
}

func (q Question) check() error {
	switch {
	case strings.TrimSpace(q.Question) == "":
		return fmt.Errorf("a question is empty")
	case q.SQL == "" && q.Answer == "":
		return fmt.Errorf("question %q has neither a gold \"sql\" nor an expected \"answer\"", q.Question)
	}
	return nil
}

// ordered reports whether row order matters for q.
func (q Question) ordered() bool {
	if q.Ordered != nil {
		return *q.Ordered
	}
	return strings.Contains(strings.ToUpper(q.SQL), "ORDER BY")
}

var braces = regexp.MustCompile(`\{([^{}]+)\}`)

// goldVariants expands sql-eval's column alternatives: "SELECT {a,b} FROM t"
// accepts a result with a, with b, or with both; each is one variant. A
// query without braces is its own only variant.
func goldVariants(sql string) []string {
	loc := braces.FindStringSubmatchIndex(sql)
	if loc == nil {
		return []string{sql}
	}
	var items []string
	for _, it := range strings.Split(sql[loc[2]:loc[3]], ",") {
		if it = strings.TrimSpace(it); it != "" {
			items = append(items, it)
		}
	}
	if len(items) == 0 || len(items) > 4 {
		return []string{sql[:loc[0]] + strings.Join(items, ", ") + sql[loc[1]:]}
	}
	var out []string
	for mask := 1; mask < 1<<len(items); mask++ {
		var pick []string
		for i, it := range items {
			if mask&(1<<i) != 0 {
				pick = append(pick, it)
			}
		}
		for _, rest := range goldVariants(sql[loc[1]:]) {
			out = append(out, sql[:loc[0]]+strings.Join(pick, ", ")+rest)
		}
	}
	return out
}
