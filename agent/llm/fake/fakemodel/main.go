// Command fakemodel serves the fake model on a fixed address so that
// `loupe ask` and the app can be tried without a real model: it speaks
// Ollama's /api/chat and OpenAI's /v1/chat/completions and replays the
// turns of a script file, one per chat request.
//
//	go run ./agent/llm/fake/fakemodel -addr 127.0.0.1:11999 -script turns.json
//
// It offers one model, -model (default "demo"), with tool support, so that
// model pickers list it, and an embedding model, -embed-model (default
// nomic-embed-text), for the semantic boost of table search; /api/pull
// fetches a few well-known names.
//
// The script is a JSON array of turns:
//
//	[{"tool_calls": [{"name": "run_sql", "args": {"sql": "SELECT 1"}}]},
//	 {"content": "The answer.\n\nFindings:\n- One [q1]"}]
//
// With -loop the script starts again after its last turn.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"

	"github.com/loupeapp/loupe/agent/llm/fake"
)

type scriptCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type scriptTurn struct {
	Content   string       `json:"content"`
	Thinking  string       `json:"thinking"`
	ToolCalls []scriptCall `json:"tool_calls"`
	Chunks    int          `json:"chunks"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:11999", "address to listen on")
	script := flag.String("script", "", "JSON file of turns (required)")
	loop := flag.Bool("loop", false, "start the script again after its last turn")
	model := flag.String("model", "demo", "the model name it offers")
	embed := flag.String("embed-model", "nomic-embed-text", "the embedding model it offers (empty: none)")
	flag.Parse()
	if err := run(*addr, *script, *model, *embed, *loop); err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(1)
	}
}

func run(addr, script, model, embed string, loop bool) error {
	if script == "" {
		return fmt.Errorf("give -script FILE (a JSON array of turns)")
	}
	b, err := os.ReadFile(script)
	if err != nil {
		return err
	}
	var raw []scriptTurn
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("read %s: %w", script, err)
	}
	if len(raw) == 0 {
		return fmt.Errorf("%s holds no turns", script)
	}
	turns := make([]fake.Turn, len(raw))
	for i, t := range raw {
		turns[i] = fake.Turn{Content: t.Content, Thinking: t.Thinking, Chunks: t.Chunks}
		for _, c := range t.ToolCalls {
			turns[i].ToolCalls = append(turns[i].ToolCalls, fake.Call{Name: c.Name, Args: string(c.Args)})
		}
	}
	opts := fake.Options{Addr: addr, Models: []fake.Model{{Name: model, Tools: true, ContextLength: 32768}}}
	if embed != "" {
		opts.Models = append(opts.Models, fake.Model{Name: embed, Embedding: true})
	}
	if loop {
		opts.Respond = func(r fake.Request) fake.Turn { return turns[r.N%len(turns)] }
	} else {
		opts.Turns = turns
	}
	srv, err := fake.NewServer(opts)
	if err != nil {
		return err
	}
	defer srv.Close()
	slog.Info("fake model listening", "ollama", srv.OllamaURL(), "openai", srv.OpenAIURL(), "turns", len(turns))
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	<-stop
	return nil
}
