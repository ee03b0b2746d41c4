package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// answer writes one realistic finished answer into conv: two tool calls
// (SQL arguments, a result near the cap), a chart every fifth answer, a
// few hundred characters of text.
func answer(b *testing.B, s *Store, conv string, i int) {
	ctx := context.Background()
	p, err := s.Ask(ctx, conv, fmt.Sprintf("Question %d: revenue by region for %d, split by channel?", i, 2000+i%25))
	must(b, err)
	r, err := s.Claim(ctx, p.Assistant.ID, fmt.Sprintf("run_%s_%d", conv, i))
	must(b, err)
	sql := fmt.Sprintf(`{"sql":"SELECT region, channel, sum(amount) AS revenue FROM orders WHERE year = %d GROUP BY ALL ORDER BY revenue DESC","purpose":"revenue by region"}`, 2000+i%25)
	result := strings.Repeat("| West | online | 123456.78 |\n", 60)
	calls := []ToolCall{
		{Seq: 1, CallID: "call_1", Step: 1, Name: "describe_table", Arguments: `{"table":"orders"}`, Result: strings.Repeat("amount DOUBLE (e.g. 12.5) ", 20), DurationMS: 2},
		{Seq: 2, CallID: "call_2", Step: 2, Name: "run_sql", Arguments: sql, Result: result, Ref: "q1", DurationMS: 14},
	}
	if i%5 == 0 {
		must(b, r.Chart(ctx, Chart{Ref: "c1", Title: "Revenue by region", Mark: "bar", SQL: sql,
			Spec: json.RawMessage(`{"mark":"bar","data":{"values":[{"region":"West","revenue":1}]}}`), Data: json.RawMessage(`[{"region":"West","revenue":1}]`), Rows: 1}))
	}
	must(b, r.Finish(ctx, Final{Status: Complete, Content: strings.Repeat("West leads revenue with 40% of the total. ", 12),
		PromptTokens: 3000, CompletionTokens: 200, Steps: 3, DurationMS: 2500, Model: "qwen3:8b", Provider: "ollama",
		Datasets: []string{"orders"}, ToolCalls: calls, Blob: Blob{Trace: make([]byte, 8<<10), Outcome: make([]byte, 8<<10)}}))
}

// BenchmarkOpenConversation1000 reads a conversation of 1,000 messages
// (500 questions and answers, 1,000 tool calls, 100 charts) with
// everything but the replay blobs. Target: ≤ 100 ms.
func BenchmarkOpenConversation1000(b *testing.B) {
	s := open(b)
	conv := conversation(b, s)
	for i := range 500 {
		answer(b, s, conv, i)
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		th, err := s.Thread(ctx, conv)
		if err != nil || len(th.Messages) != 1000 || len(th.Messages[999].ToolCalls) != 2 {
			b.Fatalf("thread: %v", err)
		}
	}
}

// BenchmarkListConversations1000 lists 1,000 conversations (with their
// message counts) among 4,000 messages. Target: ≤ 50 ms.
func BenchmarkListConversations1000(b *testing.B) {
	s := open(b)
	for i := range 1000 {
		conv := conversation(b, s)
		answer(b, s, conv, i)
		if i%2 == 0 {
			answer(b, s, conv, i+1)
		}
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		list, err := s.Conversations(ctx)
		if err != nil || len(list) != 1000 {
			b.Fatalf("list: %d, %v", len(list), err)
		}
	}
}
