package report

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/loupeapp/loupe/agent/evidence"
	"github.com/loupeapp/loupe/agent/llm"
)

// ErrProseUnbacked is returned by WriteChangesProse when the model's
// paragraph states a number that is not among the changes: its text is
// not used, Loupe's own (Changes.Summary) is.
var ErrProseUnbacked = errors.New("report: the model's paragraph about what changed states numbers that are not among the changes")

// maxProseChars caps the paragraph kept from the model.
const maxProseChars = 1200

const changesSystemPrompt = `You are Loupe's report writer. A report was refreshed: its queries were run again on the current data. You are given the report's title and the list of what changed. Write ONE short paragraph (2 to 4 sentences) that opens the report's "What changed" section: say what moved and what it means for the report's conclusions, naming the biggest changes, failing queries and findings that no longer hold.
Rules: use only numbers that appear in the list, exactly as written; do not compute new ones. No headings, no lists, no tables, no links, no placeholders. Plain prose only.`

// WriteChangesProse asks the model (one call, no tools) for the paragraph
// that opens the "What changed" section of a refresh of rep. The reply is
// untrusted: reasoning, images, HTML and placeholders are removed, it is
// made one paragraph, and it is refused (ErrProseUnbacked) when it states
// a number the changes do not hold, so that the model can word the change
// but never alter a number. ErrEmptyReply when nothing is left.
func WriteChangesProse(ctx context.Context, p llm.Provider, model string, title string, c *Changes) (string, error) {
	temp := 0.2
	req := llm.Request{Model: model, Temperature: &temp, Messages: []llm.Message{
		{Role: llm.System, Content: changesSystemPrompt},
		{Role: llm.User, Content: changesPrompt(title, c)},
	}}
	resp, err := p.Chat(ctx, req, nil)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("report: what changed, with %s model %q: %w", p.Name(), model, err)
	}
	text := cleanProse(resp.Message.Content)
	if text == "" {
		return "", ErrEmptyReply
	}
	if bad := evidence.Unbacked(evidence.Verify(text, changesPool(c))); len(bad) > 0 {
		nums := make([]string, len(bad))
		for i, b := range bad {
			nums[i] = b.Number.Text
		}
		return "", fmt.Errorf("%w (%s)", ErrProseUnbacked, strings.Join(nums, ", "))
	}
	return text, nil
}

// changesPrompt lists the changes for the model.
func changesPrompt(title string, c *Changes) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Report: %s\n\n", oneLine(title))
	if c.None() {
		b.WriteString("Nothing changed: every query returns the same numbers.\n")
		return b.String()
	}
	b.WriteString("What changed (query, row, column: before → now):\n")
	for i, l := range c.Lines() {
		if i == maxListedChanges {
			break
		}
		b.WriteString("- " + l + "\n")
	}
	return b.String()
}

// changesPool holds every number the paragraph may state: the values
// before and after, and the counts of each kind of change.
func changesPool(c *Changes) *evidence.Pool {
	p := &evidence.Pool{}
	for _, n := range c.Numbers {
		p.AddText(n.Ref, n.Old)
		p.AddText(n.Ref, n.New)
		p.AddText(n.Ref, n.Row)
	}
	for _, f := range c.Findings {
		p.AddText("finding", f.Text)
	}
	for _, n := range []int{len(c.Numbers), len(c.Failed), len(c.Findings), len(c.Charts)} {
		p.Add("count", float64(n))
	}
	return p
}

// proseLink is a markdown link; the paragraph keeps its text only.
var proseLink = regexp.MustCompile(`\[([^\]\n]*)\]\([^)\n]*\)`)

var proseJunk = regexp.MustCompile(`(?m)^\s*(?:#{1,6}\s|[-*+]\s|\d+[.)]\s|\|)`)

// cleanProse makes the model's reply one safe paragraph: no reasoning,
// images, links, loading tags or placeholders, no line-leading markup, one line,
// at most maxProseChars.
func cleanProse(s string) string {
	s = stripThink(s)
	s = markdownImage.ReplaceAllString(s, "")
	s = loadingTag.ReplaceAllString(s, "")
	s = placeholderRe.ReplaceAllString(s, "")
	s = proseLink.ReplaceAllString(s, "$1")
	s = proseJunk.ReplaceAllString(s, "")
	s = oneLine(strings.ReplaceAll(s, "`", ""))
	if utf8.RuneCountInString(s) > maxProseChars {
		s = string([]rune(s)[:maxProseChars-1]) + "…"
	}
	return s
}
