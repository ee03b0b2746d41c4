package agent

import (
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm"
)

func TestFitCompactsOldToolResultsFirst(t *testing.T) {
	big := strings.Repeat("row of data\n", 400) // ~4,800 characters
	msgs := []llm.Message{
		{Role: llm.System, Content: "system prompt"},
		{Role: llm.User, Content: "an earlier question, kept in full"},
		{Role: llm.Assistant, Content: strings.Repeat("an earlier long answer ", 100)},
		{Role: llm.User, Content: "the question"},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "run_sql", Arguments: []byte(`{}`)}}},
		{Role: llm.Tool, ToolCallID: "1", Content: big},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "2", Name: "run_sql", Arguments: []byte(`{}`)}}},
		{Role: llm.Tool, ToolCallID: "2", Content: big},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "3", Name: "run_sql", Arguments: []byte(`{}`)}}},
		{Role: llm.Tool, ToolCallID: "3", Content: big},
	}
	if out, n := fit(msgs, 3, 100_000); n != 0 || len(out) != len(msgs) {
		t.Fatalf("a prompt that fits must not change (%d changed)", n)
	}
	out, n := fit(msgs, 3, 2500)
	if n == 0 || estimateMessages(out) > 2500*3/4 {
		t.Fatalf("changed %d messages; estimate %d tokens for a 2,500-token window", n, estimateMessages(out))
	}
	if out[9].Content != big {
		t.Errorf("the last tool result must be kept whole")
	}
	if out[3].Content != "the question" || out[1].Content != msgs[1].Content {
		t.Errorf("the user's own words must be kept")
	}
	if !strings.Contains(out[5].Content, "trimmed to fit") {
		t.Errorf("a trimmed result must say so: %q", out[5].Content[len(out[5].Content)-80:])
	}
	if msgs[5].Content != big {
		t.Errorf("fit must not modify its input")
	}
}

func TestTextProtocol(t *testing.T) {
	specs := []llm.ToolSpec{{Name: "run_sql", Description: "Run one query. More text.", Parameters: []byte(`{"type":"object","properties":{"sql":{"type":"string"},"purpose":{"type":"string"}},"required":["sql"]}`)}}
	msgs := []llm.Message{
		{Role: llm.System, Content: "sys"},
		{Role: llm.User, Content: "q"},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "run_sql", Arguments: []byte(`{"sql":"SELECT 1"}`)}}},
		{Role: llm.Tool, ToolCallID: "1", Name: "run_sql", Content: "[q1] 1 row"},
	}
	out := textProtocol(msgs, specs)
	if !strings.Contains(out[0].Content, `- run_sql: Run one query. Arguments: {"sql": string (required), "purpose": string}`) {
		t.Errorf("system prompt lacks the tool description:\n%s", out[0].Content)
	}
	if out[2].Role != llm.Assistant || len(out[2].ToolCalls) != 0 || out[2].Content != `{"name": "run_sql", "arguments": {"sql":"SELECT 1"}}` {
		t.Errorf("the call should be written as JSON text: %+v", out[2])
	}
	if out[3].Role != llm.User || out[3].Content != "Result of run_sql:\n[q1] 1 row" {
		t.Errorf("the result should come back as a user message: %+v", out[3])
	}
	if msgs[0].Content != "sys" || len(msgs[2].ToolCalls) != 1 {
		t.Errorf("textProtocol must not modify its input")
	}
}

func TestSplitOrphanThink(t *testing.T) {
	cases := []struct{ content, thinking, wantC, wantT string }{
		{"The answer.", "", "The answer.", ""},
		{"I plan to count.</think>\n\nThere are 40.", "", "There are 40.", "I plan to count."},
		{"<think>a</think>b", "", "<think>a</think>b", ""},
		{"more</think>x", "earlier", "x", "earlier\nmore"},
	}
	for _, c := range cases {
		gc, gt := splitOrphanThink(c.content, c.thinking)
		if gc != c.wantC || gt != c.wantT {
			t.Errorf("splitOrphanThink(%q) = %q, %q; want %q, %q", c.content, gc, gt, c.wantC, c.wantT)
		}
	}
}
