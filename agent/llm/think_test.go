package llm

import (
	"strings"
	"testing"
)

// splitAll feeds chunks to a fresh splitter and joins what comes out.
func splitAll(chunks []string) (content, thinking string) {
	var s ThinkSplitter
	var c, t strings.Builder
	for _, ch := range chunks {
		a, b := s.Split(ch)
		c.WriteString(a)
		t.WriteString(b)
	}
	a, b := s.Flush()
	c.WriteString(a)
	t.WriteString(b)
	return c.String(), t.String()
}

func TestThinkSplitter(t *testing.T) {
	tests := []struct {
		name, in, content, thinking string
	}{
		{"no tags", "The answer is 42.", "The answer is 42.", ""},
		{"block first", "<think>let me see</think>\n\nThe answer is 42.", "The answer is 42.", "let me see"},
		{"block in the middle", "Sure. <think>check units</think>It is 3 m.", "Sure. It is 3 m.", "check units"},
		{"two blocks", "<think>a</think>x<think>b</think>y", "xy", "ab"},
		{"unclosed block is thinking", "ok <think>still going", "ok ", "still going"},
		{"a lone less-than stays", "a < b and c <thin d", "a < b and c <thin d", ""},
		{"tag-like prefix at the end", "x <thi", "x <thi", ""},
		{"close tag text outside a block stays", "a </think> b", "a </think> b", ""},
		{"angle brackets in thinking", "<think>if a<b then</think>done", "done", "if a<b then"},
		{"empty block", "<think></think>answer", "answer", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every way of cutting the input in two, and byte by byte.
			cuts := [][]string{{tt.in}}
			for i := 1; i < len(tt.in); i++ {
				cuts = append(cuts, []string{tt.in[:i], tt.in[i:]})
			}
			cuts = append(cuts, strings.Split(tt.in, ""))
			for _, chunks := range cuts {
				c, th := splitAll(chunks)
				if c != tt.content || th != tt.thinking {
					t.Fatalf("chunks %q: content %q thinking %q, want %q %q", chunks, c, th, tt.content, tt.thinking)
				}
			}
		})
	}
}

func TestThinkSplitterHoldsOnlyPossibleTags(t *testing.T) {
	var s ThinkSplitter
	if c, _ := s.Split("abc <th"); c != "abc " {
		t.Errorf("content = %q, want %q (only the possible tag held back)", c, "abc ")
	}
	if c, th := s.Split("ink>x"); c != "" || th != "x" {
		t.Errorf("content %q thinking %q, want \"\" \"x\"", c, th)
	}
}

func BenchmarkThinkSplitterPlain(b *testing.B) {
	var s ThinkSplitter
	b.ReportAllocs()
	for b.Loop() {
		s.Split("a token of plain text ")
	}
}
