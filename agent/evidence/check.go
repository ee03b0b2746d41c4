package evidence

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Pool is the numbers a run can back a claim with, by where they came
// from ("q1", "question", "sql", …). The zero value is empty and ready.
type Pool struct {
	vals    []float64
	from    []string
	derived bool
}

// maxDerived bounds the pool that derived numbers (shares, differences
// between two results) are tried over: beyond it, chance matches grow.
const maxDerived = 400

// maxDifferences bounds the pool differences are tried over: an integer
// is too easily the difference of two values of a large pool by chance.
const maxDifferences = 50

// AddText adds every number in text, labelled source.
func (p *Pool) AddText(source, text string) {
	for _, v := range Values(text) {
		p.Add(source, v)
	}
}

// AddEarlier adds the numbers of an earlier answer of the conversation, as
// its history shows it (its text and the tool results it read): they were
// checked in their own run, so each counts as evidence except those that
// run marked unverified ("17 [unverified]"), which back nothing.
func (p *Pool) AddEarlier(source, text string) {
	claims := Claims(text)
	for i := len(claims) - 1; i >= 0; i-- {
		c := claims[i]
		if strings.HasPrefix(text[c.End:], " "+Mark) {
			text = text[:c.Start] + strings.Repeat(" ", c.End-c.Start) + text[c.End:]
		}
	}
	p.AddText(source, text)
}

// AddCell adds a table cell's value if it is a number, or a string that
// holds numbers.
func (p *Pool) AddCell(source string, cell any) {
	switch x := cell.(type) {
	case float64:
		p.Add(source, x)
	case float32:
		p.Add(source, float64(x))
	case int:
		p.Add(source, float64(x))
	case int64:
		p.Add(source, float64(x))
	case int32:
		p.Add(source, float64(x))
	case uint64:
		p.Add(source, float64(x))
	case json.Number:
		if f, err := x.Float64(); err == nil {
			p.Add(source, f)
		}
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			p.Add(source, f)
		} else {
			p.AddText(source, x)
		}
	case fmt.Stringer:
		p.AddText(source, x.String())
	}
}

// Add adds one value.
func (p *Pool) Add(source string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	p.vals = append(p.vals, v)
	p.from = append(p.from, source)
}

// Len is how many values the pool holds.
func (p *Pool) Len() int { return len(p.vals) }

// Check is one claimed number and what backs it.
type Check struct {
	Number Number `json:"number"`
	// Source is where a backing value came from ("q1", "question"), with
	// " (derived)" when it is a share or difference of two values; empty
	// when nothing backs the number.
	Source string `json:"source,omitempty"`
}

// Backed reports whether something backs the number.
func (c Check) Backed() bool { return c.Source != "" }

// Verify checks every claim in text against the pool.
func Verify(text string, p *Pool) []Check {
	claims := Claims(text)
	out := make([]Check, 0, len(claims))
	for _, n := range claims {
		out = append(out, Check{Number: n, Source: p.back(n)})
	}
	return out
}

// back returns the source of a value that backs n, or "".
func (p *Pool) back(n Number) string {
	for i, v := range p.vals {
		if matches(n, v) || (n.Percent && matches(n, v*100)) {
			return p.from[i]
		}
	}
	if len(p.vals) > maxDerived {
		return ""
	}
	// Derived: a share (a/b, as a percent or a ratio) or a difference of
	// two values of the run.
	for i, a := range p.vals {
		for j, b := range p.vals {
			if i == j {
				continue
			}
			if n.Percent && b != 0 && (matches(n, a/b*100) || matches(n, (a-b)/b*100)) {
				return p.from[i] + " (derived)"
			}
			if !n.Percent && i < j && a != b && len(p.vals) <= maxDifferences && matches(n, a-b) {
				return p.from[i] + " (derived)"
			}
		}
	}
	return ""
}

// Unbacked returns the checks nothing backs.
func Unbacked(checks []Check) []Check {
	var out []Check
	for _, c := range checks {
		if !c.Backed() {
			out = append(out, c)
		}
	}
	return out
}

// Mark is the visible mark put after a number nothing backs.
const Mark = "[unverified]"

// MarkText puts Mark after each unbacked number of text (checks must come
// from Verify(text, …)).
func MarkText(text string, checks []Check) string {
	bad := Unbacked(checks)
	sort.Slice(bad, func(i, j int) bool { return bad[i].Number.Start > bad[j].Number.Start })
	for _, c := range bad {
		end := c.Number.End
		if strings.HasPrefix(text[end:], " "+Mark) {
			continue
		}
		text = text[:end] + " " + Mark + text[end:]
	}
	return text
}

// List renders numbers for a message: "37, 12%".
func List(checks []Check) string {
	seen := map[string]bool{}
	var parts []string
	for _, c := range checks {
		if !seen[c.Number.Text] {
			seen[c.Number.Text] = true
			parts = append(parts, c.Number.Text)
		}
	}
	return strings.Join(parts, ", ")
}
