package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a buffer written by the command and read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// loupe mcp speaks MCP on its standard input and output: a client's
// messages in, one JSON-RPC reply per request out; a DROP is a tool error.
// Bad flags are usage errors.
func TestMCPCommand(t *testing.T) {
	ws, cfg := t.TempDir(), t.TempDir()
	csv := writeFile(t, t.TempDir(), "sales.csv", "region,amount\nnorth,10\nsouth,32.5\n")
	if code, _, errs := run(t, "", "load", "--workspace", ws, csv); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cli-test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"SELECT sum(amount) AS total FROM sales"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"DROP TABLE sales"}}}`,
	}, "\n") + "\n"
	t.Setenv("LOUPE_PRIVACY", "")
	// A client keeps its end open until it has its replies.
	pr, pw := io.Pipe()
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(context.Background(), []string{"mcp", "--workspace", ws, "--config", cfg}, pr, &stdout, &stderr)
	}()
	if _, err := io.WriteString(pw, in); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); strings.Count(stdout.String(), "\n") < 3 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	pw.Close()
	if code := <-done; code != ExitOK {
		t.Fatalf("mcp exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	replies := map[float64]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout holds more than JSON-RPC: %q", line)
		}
		if id, ok := m["id"].(float64); ok {
			replies[id] = m
		}
	}
	result := func(id float64) (string, bool) {
		r, _ := replies[id]["result"].(map[string]any)
		content, _ := r["content"].([]any)
		var text string
		for _, c := range content {
			text += c.(map[string]any)["text"].(string)
		}
		isErr, _ := r["isError"].(bool)
		return text, isErr
	}
	if txt, isErr := result(2); isErr || !strings.Contains(txt, "42.5") {
		t.Errorf("run_sql: %v %s", isErr, txt)
	}
	if txt, isErr := result(3); !isErr || !strings.Contains(txt, "refused") {
		t.Errorf("DROP: %v %s", isErr, txt)
	}
	for _, tc := range [][]string{
		{"mcp", "--http", "0.0.0.0:7481", "--workspace", ws},
		{"mcp", "--workspace", ws, "--connection", "shop"},
		{"mcp", "--privacy", "everything"},
		{"mcp", "extra"},
	} {
		if code, _, errs := run(t, "", tc...); code != ExitUsage || errs == "" {
			t.Errorf("%v: exit %d %q", tc, code, errs)
		}
	}
}
