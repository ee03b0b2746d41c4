package assemble_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/tools/tooltest"
)

// blindCase is one reply of the blind battery (testdata/blind.json, see
// testdata/README.md): a model's reply as written by some model family, and
// the calls it means.
type blindCase struct {
	Name    string     `json:"name"`
	Family  string     `json:"family"`
	Source  string     `json:"source"`
	Content string     `json:"content"`
	Want    []wantCall `json:"want"`
	Note    string     `json:"note"`
}

type wantCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// battery names → Loupe's tools. final_answer is no tool: it is the answer.
var blindNames = map[string]string{
	"run_sql": "run_sql", "describe_table": "describe_table", "search_tables": "search_schema",
	"profile_column": "profile_data", "draw_chart": "create_chart", "ask_user": "ask_user",
}

// TestBlindBattery runs every reply of a battery written blind — by someone
// who had not read the parser, from public descriptions of how model
// families write tool calls — through the run's own reading path (the real
// tool set, agent.CallReader's Read then Resolve) and requires 90%. It
// lives where the real tool set is assembled, so that agent's tests need
// nothing above it.
func TestBlindBattery(t *testing.T) {
	b, err := os.ReadFile("testdata/blind.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []blindCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatalf("testdata/blind.json: %v", err)
	}
	// The tools a workspace run offers: the standard set and, as the app
	// adds them, search_schema and find_prior_query.
	ws := tooltest.Workspace(t)
	ret, err := retrieve.OpenRetrieval(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ret.Close() })
	set, err := assemble.Tools(ws, results.New(results.Config{}), ret.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	reader := agent.NewCallReader(set.Specs())
	passed := 0
	byFamily := map[string][2]int{}
	for _, c := range cases {
		why := blindRun(reader, c)
		f := byFamily[c.Family]
		f[1]++
		if why == "" {
			passed++
			f[0]++
		} else {
			fmt.Printf("  missed %s (%s): %s\n", c.Name, c.Family, why)
		}
		byFamily[c.Family] = f
	}
	for fam, f := range byFamily {
		fmt.Printf("  family %-24s %d/%d\n", fam, f[0], f[1])
	}
	rate := float64(passed) / float64(len(cases))
	fmt.Printf("blind battery: %d of %d replies read as meant (%.1f%%)\n", passed, len(cases), rate*100)
	if len(cases) == 0 || rate < 0.9 {
		t.Errorf("blind battery pass rate %.1f%% is below 90%%", rate*100)
	}
}

// blindRun reads one reply and says what differs from what it means, or "".
func blindRun(reader *agent.CallReader, c blindCase) string {
	rd := reader.Read(fromWire(c.Content))
	var want []wantCall
	var final *wantCall
	for i, w := range c.Want {
		if w.Name == "final_answer" {
			final = &c.Want[i]
			continue
		}
		want = append(want, w)
	}
	if rd.Bounce != "" {
		return "bounced: " + rd.Bounce
	}
	if len(rd.Message.ToolCalls) != len(want) {
		return fmt.Sprintf("%d calls read, want %d (%s)", len(rd.Message.ToolCalls), len(want), callList(rd.Message.ToolCalls))
	}
	for i, call := range rd.Message.ToolCalls {
		name, args, _, failure := reader.Resolve(call)
		if failure != "" {
			return "call " + call.Name + ": " + failure
		}
		w := want[i]
		if blindNames[w.Name] != name {
			return fmt.Sprintf("call %d is %s, want %s (%s)", i+1, name, w.Name, blindNames[w.Name])
		}
		var got map[string]any
		if err := json.Unmarshal(args, &got); err != nil {
			return fmt.Sprintf("call %d arguments %s: %v", i+1, args, err)
		}
		if why := sameArgs(got, w.Args); why != "" {
			return fmt.Sprintf("call %d (%s): %s", i+1, name, why)
		}
	}
	if final != nil {
		ans := ""
		for _, v := range final.Args {
			if s, ok := v.(string); ok {
				ans = s
			}
		}
		if !strings.Contains(norm(rd.Message.Content), norm(ans)) {
			return fmt.Sprintf("answer %q, want %q", rd.Message.Content, ans)
		}
	}
	return ""
}

// sameArgs checks that every argument wanted is there with its value
// (whitespace aside), under its name or — as Loupe's tools accept aliases —
// under another; arguments the call adds are not held against it.
func sameArgs(got, want map[string]any) string {
	for k, v := range want {
		if equalValue(got[k], v) {
			continue
		}
		found := false
		for _, g := range got {
			if equalValue(g, v) {
				found = true
				break
			}
		}
		if !found {
			b, _ := json.Marshal(got)
			return fmt.Sprintf("no argument %s = %v in %s", k, v, b)
		}
	}
	return ""
}

func equalValue(a, b any) bool {
	if as, ok := a.(string); ok {
		if bs, ok := b.(string); ok {
			return norm(as) == norm(bs)
		}
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	var x, y any
	_ = json.Unmarshal(ja, &x)
	_ = json.Unmarshal(jb, &y)
	return reflect.DeepEqual(x, y)
}

func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

func callList(cs []llm.ToolCall) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.Name+" "+string(c.Arguments))
	}
	return strings.Join(parts, "; ")
}

// fromWire is the message a provider makes of a reply streamed as content:
// <think> blocks go to Thinking, as the Ollama and OpenAI adapters do.
func fromWire(content string) llm.Message {
	var split llm.ThinkSplitter
	c, th := split.Split(content)
	c2, th2 := split.Flush()
	return llm.Message{Role: llm.Assistant, Content: c + c2, Thinking: th + th2}
}
