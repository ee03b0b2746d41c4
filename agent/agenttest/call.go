package agenttest

import (
	"encoding/json"
	"fmt"

	"github.com/loupeapp/loupe/agent/llm/fake"
)

// Call is a scripted model's native call of the tool name with args
// marshalled as its arguments; it panics if args cannot be marshalled (a
// test's own mistake).
func Call(name string, args any) fake.Call {
	b, err := json.Marshal(args)
	if err != nil {
		panic(fmt.Sprintf("agenttest.Call %s: %v", name, err))
	}
	return fake.Call{Name: name, Args: string(b)}
}
