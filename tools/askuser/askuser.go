// Package askuser is the ask_user tool: the model asks the user a
// clarifying question, optionally with answers to pick from, and the run
// ends waiting for the user; their next message answers it.
package askuser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/args"
)

// Name is the tool's name.
const Name = "ask_user"

// Limits on a question.
const (
	MaxOptions     = 6
	MaxQuestion    = 500 // runes
	MaxOptionRunes = 120
)

// Tool is ask_user. It holds no state.
type Tool struct{}

var _ tools.Tool = (*Tool)(nil)

// New returns ask_user.
func New() *Tool { return &Tool{} }

var params = args.Params{Tool: Name, List: []args.Param{
	{Name: "question", Type: args.String, Required: true, Doc: "one short, specific question", Aliases: []string{"text", "prompt", "message", "q"}},
	{Name: "options", Type: args.Strings, Doc: fmt.Sprintf("up to %d short answers to choose from, taken from the data", MaxOptions), Aliases: []string{"choices", "answers"}},
}}

// Spec describes ask_user to the model.
func (t *Tool) Spec() tools.Spec {
	return tools.Spec{
		Name: Name,
		Description: "Ask the user a clarifying question when the request is ambiguous, instead of guessing. " +
			"Ends your turn; the user's next message answers. Offer options when the data suggests them.",
		Parameters:  params.Schema(),
		Guidance:    tools.Guidance{Stage: tools.StageClarify, Text: "If the question is ambiguous (which measure, which period, which table or value) and the data does not settle it, call ask_user with one short question and options; do not guess."},
		Aliases:     []string{"ask", "clarify", "askclarifyingquestion", "askuser", "askquestion"},
		Example:     json.RawMessage(`{"question": "Which year?", "options": ["2023", "2024"]}`),
		Evidence:    tools.EvidenceNone,
		SchemaLevel: tools.SchemaStructure,
		View:        tools.View{Icon: "chat", Doing: "Asking you a question", Did: "Asked you a question"},
	}
}

// Run asks the question in args ({"question": …, "options": […]}).
func (t *Tool) Run(_ context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Question string   `json:"question"`
		Options  []string `json:"options"`
	}
	if err := params.Decode(raw, &a); err != nil {
		return params.Failure(err), nil
	}
	q := strings.TrimSpace(a.Question)
	opts := clean(a.Options)
	switch {
	case utf8.RuneCountInString(q) > MaxQuestion:
		return invalid(fmt.Sprintf("the question is %d characters long; ask one short question (at most %d)", utf8.RuneCountInString(q), MaxQuestion)), nil
	case len(opts) > MaxOptions:
		return invalid(fmt.Sprintf("%d options given; offer at most %d", len(opts), MaxOptions)), nil
	}
	for _, o := range opts {
		if utf8.RuneCountInString(o) > MaxOptionRunes {
			return invalid(fmt.Sprintf("option %q is too long; keep each option under %d characters", string([]rune(o)[:40])+"…", MaxOptionRunes)), nil
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Asked the user: %q", q)
	if len(opts) > 0 {
		b.WriteString(" Options: " + strings.Join(opts, "; ") + ".")
	}
	b.WriteString(" Your turn ends here; the user's next message answers the question.")
	return tools.Result{
		ForModel: b.String(),
		Summary:  "asked: " + q,
		EndTurn:  true,
		Display:  tools.Display{Kind: tools.KindQuestion, Question: &tools.Question{Text: q, Options: opts}},
	}, nil
}

// clean trims options and drops blank and repeated ones.
func clean(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, o := range in {
		o = strings.TrimSpace(o)
		k := strings.ToLower(o)
		if o == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, o)
	}
	return out
}

func invalid(problem string) tools.Result {
	msg := fmt.Sprintf("The question was not asked: %s. Call %s again.", problem, Name)
	return tools.Result{ForModel: msg, Summary: "question not asked", Failed: true, Display: tools.Display{Kind: tools.KindError, Text: msg}}
}
