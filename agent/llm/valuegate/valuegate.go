// Package valuegate is the last check in front of a chat model at the
// schema privacy level: a Provider that refuses to send a request in which
// a known cell value of the user's data appears. The schema level keeps
// values out structurally (the agent sends shapes, not rows); this gate is
// the belt to those braces, so that a path nobody thought of fails closed
// instead of leaking.
//
// The rule, chosen to avoid refusing on what is not a leak:
//   - A value is checked when it is text of at least MinText characters
//     with a letter in it, or a number of at least MinDigits digits. Short
//     values and small numbers (row counts, years, ranks) are too common in
//     names, counts and the model's own words to tell apart; the structural
//     rules keep them out.
//   - A value is not checked when it appears in the system prompt (a
//     table or column name, a note) or in the user's own messages (the
//     question, a reply to ask_user): what the user wrote is theirs to send.
//   - Matching ignores case and needs word boundaries.
package valuegate

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/loupeapp/loupe/agent/llm"
)

// Thresholds of the rule above.
const (
	MinText   = 4
	MinDigits = 6
	// MaxValues bounds the values a conversation's gate remembers.
	MaxValues = 200_000
)

// ErrValueInRequest is returned, and nothing is sent, when a request holds
// a known cell value.
var ErrValueInRequest = errors.New("the schema privacy level stopped a request that held a value of your data; nothing was sent")

// Values is the set of cell values a conversation has seen. It is safe for
// concurrent use.
type Values struct {
	mu  sync.Mutex
	set map[string]bool
}

// NewValues returns an empty set.
func NewValues() *Values { return &Values{set: map[string]bool{}} }

// Add remembers v when the rule checks it.
func (vs *Values) Add(v string) {
	v = strings.ToLower(strings.TrimSpace(v))
	if !checked(v) {
		return
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if len(vs.set) < MaxValues {
		vs.set[v] = true
	}
}

// checked reports whether the rule checks v (lower-cased, trimmed).
func checked(v string) bool {
	letters, digits, runes := 0, 0, 0
	for _, r := range v {
		runes++
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		}
	}
	if letters > 0 {
		return runes >= MinText
	}
	return digits >= MinDigits
}

// Found returns the values of vs in text, except those in allowed.
func (vs *Values) Found(text, allowed string) []string {
	low, ok := strings.ToLower(text), strings.ToLower(allowed)
	vs.mu.Lock()
	defer vs.mu.Unlock()
	var out []string
	for v := range vs.set {
		if contains(low, v) && !contains(ok, v) {
			out = append(out, v)
		}
	}
	return out
}

// contains reports whether v occurs in s with no letter or digit either
// side.
func contains(s, v string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], v)
		if j < 0 {
			return false
		}
		at := i + j
		if !wordRune(s[:at], true) && !wordRune(s[at+len(v):], false) {
			return true
		}
		i = at + 1
	}
}

var edge = regexp.MustCompile(`[\p{L}\p{N}]`)

// wordRune reports whether the rune of s next to a match is a letter or a
// digit (the last rune when before, else the first).
func wordRune(s string, before bool) bool {
	if s == "" {
		return false
	}
	r := []rune(s)
	c := r[0]
	if before {
		c = r[len(r)-1]
	}
	return edge.MatchString(string(c))
}

// Session returns the values of the conversation ctx belongs to.
type Session func(ctx context.Context) (*Values, error)

// Provider checks each request before it reaches next.
type Provider struct {
	llm.Wrapped // Models, Name and the optional capabilities go to Next
	session     Session
}

var _ llm.Provider = (*Provider)(nil)

// New returns next behind the gate.
func New(next llm.Provider, session Session) *Provider {
	return &Provider{Wrapped: llm.Wrapped{Next: next}, session: session}
}

// Chat refuses req if it holds a known value, else sends it.
func (p *Provider) Chat(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	vs, err := p.session(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return llm.Response{}, ctx.Err()
		}
		return llm.Response{}, fmt.Errorf("prepare the schema privacy check: %w (nothing was sent to the model)", err)
	}
	text, allowed := split(req)
	if found := vs.Found(text, allowed); len(found) > 0 {
		return llm.Response{}, fmt.Errorf("%w (%d value(s) found in the request)", ErrValueInRequest, len(found))
	}
	return p.Next.Chat(ctx, req, onDelta)
}

// split is what a request carries that may hold data (every message and
// call argument) and what is allowed: the system prompt and the user's own
// words. A user message is the user's unless it is a tool result sent as
// text ("Result of …", the text protocol) or the report stage's brief,
// whose only words of the user are its question lines.
func split(req llm.Request) (text, allowed string) {
	var t, a strings.Builder
	for _, m := range req.Messages {
		switch {
		case m.Role == llm.System:
			a.WriteString(m.Content + "\n")
			continue
		case m.Role != llm.User || strings.HasPrefix(m.Content, "Result of "):
		case strings.HasPrefix(m.Content, "Question: "):
			for _, l := range strings.Split(m.Content, "\n") {
				if strings.HasPrefix(l, "Question: ") || strings.HasPrefix(l, "Follow-up question: ") {
					a.WriteString(l + "\n")
				}
			}
		default:
			a.WriteString(m.Content + "\n")
		}
		t.WriteString(m.Content + "\n" + m.Thinking + "\n")
		for _, c := range m.ToolCalls {
			t.WriteString(string(c.Arguments) + "\n")
		}
	}
	return t.String(), a.String()
}
