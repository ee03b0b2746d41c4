package report

import (
	"encoding/json"
	"fmt"
	"strings"
)

// maxListedChanges caps the numbers the section lists; the rest are counted.
const maxListedChanges = 200

// Summary is Loupe's own paragraph about c, written without a model: how
// many numbers moved, queries fail, findings no longer hold.
func (c *Changes) Summary() string {
	s := c.Since("the previous version")
	if len(c.Findings) > 0 || len(c.Failed) > 0 {
		s += " The text below was written from the earlier data: read it with the changes listed here."
	}
	return s
}

// Since says in one sentence what changed since the version named then:
// "Since version 1, 2 numbers moved and 1 query now fails."
func (c *Changes) Since(then string) string {
	if c.None() {
		return "Nothing changed since " + then + ": every query returns the same numbers."
	}
	var parts []string
	if n := len(c.Numbers); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s moved", n, pluralWord(n, "number", "numbers")))
	}
	if n := len(c.Failed); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s now %s", n, pluralWord(n, "query", "queries"), pluralWord(n, "fails", "fail")))
	}
	if n := len(c.Charts); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s could not be redrawn", n, pluralWord(n, "chart", "charts")))
	}
	if n := len(c.Findings); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s no longer %s", n, pluralWord(n, "finding", "findings"), pluralWord(n, "holds", "hold")))
	}
	return "Since " + then + ", " + joinAnd(parts) + "."
}

// Lines are the section's list items, one per change, in plain words
// ("q1, North, revenue: 1200 → 1450"), unescaped.
func (c *Changes) Lines() []string {
	var out []string
	for _, n := range c.Numbers {
		out = append(out, n.String())
	}
	for _, f := range c.Failed {
		out = append(out, fmt.Sprintf("%s fails now: %s", f.Ref, oneLine(f.Error)))
	}
	for _, f := range c.Charts {
		out = append(out, fmt.Sprintf("Chart %s could not be redrawn (shown as before): %s", f.Ref, oneLine(f.Error)))
	}
	for _, f := range c.Findings {
		out = append(out, fmt.Sprintf("Finding no longer holds: “%s” — %s", oneLine(f.Text), f.Why))
	}
	return out
}

// String is the change in words: "q1, North, revenue: 1200 → 1450".
func (n NumberChange) String() string {
	where := n.Ref
	if n.Row != "" {
		where += ", " + oneLine(n.Row)
	}
	return fmt.Sprintf("%s, %s: %s → %s", where, oneLine(n.Column), n.Old, n.New)
}

// whatChanged is the "What changed" section of a refreshed report.
func (r *Report) whatChanged() string {
	if r.Refresh == nil {
		return ""
	}
	c := &r.Refresh.Changes
	var b strings.Builder
	b.WriteString("## What changed\n\n")
	prose := c.Prose
	if prose == "" {
		prose = escapeInline(c.Summary())
	}
	b.WriteString(prose + "\n\n")
	if len(c.Reloaded) > 0 {
		fmt.Fprintf(&b, "*Loaded again because the file changed: %s.*\n\n", escapeInline(strings.Join(c.Reloaded, ", ")))
	}
	section := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		b.WriteString("**" + title + "**\n\n")
		for i, s := range items {
			if i == maxListedChanges {
				fmt.Fprintf(&b, "- …and %d more.\n", len(items)-i)
				break
			}
			b.WriteString("- " + s + "\n")
		}
		b.WriteString("\n")
	}
	var nums, failed, charts, findings []string
	for _, n := range c.Numbers {
		nums = append(nums, escapeInline(n.String()))
	}
	for _, f := range c.Failed {
		failed = append(failed, fmt.Sprintf("%s: %s", f.Ref, code(oneLine(f.Error))))
	}
	for _, f := range c.Charts {
		charts = append(charts, fmt.Sprintf("%s: %s", f.Ref, code(oneLine(f.Error))))
	}
	for _, f := range c.Findings {
		findings = append(findings, fmt.Sprintf("“%s” — %s", escapeInline(oneLine(f.Text)), escapeInline(f.Why)))
	}
	section("Numbers that moved", nums)
	section("Queries that now fail", failed)
	section("Charts not redrawn (shown as before)", charts)
	section("Findings whose evidence no longer holds", findings)
	return b.String()
}

// code writes s as inline code, with a fence longer than any backtick run in it.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + " " + s + " " + fence
}

func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// chartValues are the cells of a chart's inlined data (data.values).
func chartValues(ch *Chart) []any {
	var spec struct {
		Data struct {
			Values []map[string]any `json:"values"`
		} `json:"data"`
	}
	if json.Unmarshal(ch.Spec, &spec) != nil {
		return nil
	}
	var out []any
	for _, row := range spec.Data.Values {
		for _, v := range row {
			out = append(out, v)
		}
	}
	return out
}

// Brief is c in a few words, for a list of versions: "3 numbers moved,
// 1 query fails", or "no change".
func (c *Changes) Brief() string {
	var parts []string
	add := func(n int, one, many string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, pluralWord(n, one, many)))
		}
	}
	add(len(c.Numbers), "number moved", "numbers moved")
	add(len(c.Failed), "query fails", "queries fail")
	add(len(c.Charts), "chart not redrawn", "charts not redrawn")
	add(len(c.Findings), "finding no longer holds", "findings no longer hold")
	if len(parts) == 0 {
		return "no change"
	}
	return strings.Join(parts, ", ")
}
