package llm

import (
	"encoding/json"
	"testing"
)

func TestToolCallMarshalKeepsInvalidArguments(t *testing.T) {
	cases := []struct{ args, want string }{
		{`{"sql":"SELECT 1"}`, `{"id":"c1","name":"run_sql","arguments":{"sql":"SELECT 1"}}`},
		{`{'sql': 'SELECT 1',}`, `{"id":"c1","name":"run_sql","arguments":"{'sql': 'SELECT 1',}"}`},
		{``, `{"id":"c1","name":"run_sql","arguments":{}}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(Message{Role: Assistant, ToolCalls: []ToolCall{{ID: "c1", Name: "run_sql", Arguments: json.RawMessage(c.args)}}})
		if err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		want := `{"role":"assistant","tool_calls":[` + c.want + `]}`
		if string(b) != want {
			t.Errorf("got  %s\nwant %s", b, want)
		}
	}
}
