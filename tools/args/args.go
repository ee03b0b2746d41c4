// Package args decodes a tool's arguments leniently, the way small local
// models send them: an arguments object, or a JSON string holding one;
// numbers sent as strings; a list sent as one string; a known alias for an
// argument's name. What cannot be understood becomes an *Error that names
// the expected arguments, which a tool turns into a Failed result with
// Failure so the model can correct itself.
//
// It is shared by every tool package (it lives under sqltool only because
// of how the code is owned; it depends on nothing but the tools contract).
package args

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/loupeapp/loupe/tools"
)

// Type is an argument's JSON type.
type Type string

// Argument types.
const (
	String  Type = "string"
	Integer Type = "integer"
	Number  Type = "number"
	Boolean Type = "boolean"
	Strings Type = "array of strings"
)

// Param is one argument.
type Param struct {
	Name     string
	Type     Type
	Required bool
	Doc      string   // a few words for the model
	Aliases  []string // other names accepted for it (e.g. "query" for "sql")
}

// Params is a tool's argument list.
type Params struct {
	Tool string // the tool's name, for messages
	List []Param
	// IgnoreUnknown accepts (and drops) arguments not in List instead of
	// failing; for tools whose arguments are all optional.
	IgnoreUnknown bool
}

// Error is an argument problem the model can fix.
type Error struct {
	Problem string // what was wrong
	Usage   string // the expected arguments
}

func (e *Error) Error() string { return e.Problem + ". Expected arguments: " + e.Usage }

// Schema returns the JSON Schema of the arguments object, for tools.Spec.
func (p Params) Schema() json.RawMessage {
	props := map[string]any{}
	required := []string{}
	for _, a := range p.List {
		s := map[string]any{"description": a.Doc}
		if a.Type == Strings {
			s["type"] = "array"
			s["items"] = map[string]string{"type": "string"}
		} else {
			s["type"] = string(a.Type)
		}
		props[a.Name] = s
		if a.Required {
			required = append(required, a.Name)
		}
	}
	b, err := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required})
	if err != nil {
		panic(fmt.Sprintf("args: schema of %s: %v", p.Tool, err)) // only plain maps and strings above
	}
	return b
}

// Usage lists the expected arguments in one line:
// `sql (string, required): one SELECT; purpose (string): why`.
func (p Params) Usage() string {
	if len(p.List) == 0 {
		return "none ({})"
	}
	parts := make([]string, len(p.List))
	for i, a := range p.List {
		req := ""
		if a.Required {
			req = ", required"
		}
		parts[i] = fmt.Sprintf("%s (%s%s): %s", a.Name, a.Type, req, a.Doc)
	}
	return strings.Join(parts, "; ")
}

// Decode fills dst (a pointer to a struct whose json tags are the
// parameter names) from raw. It returns an *Error for arguments the model
// got wrong.
func (p Params) Decode(raw json.RawMessage, dst any) error {
	obj, text, err := object(raw)
	if err != nil {
		return p.fail("%s", err.Error())
	}
	if obj == nil { // a bare string: the value of the one required string argument
		a, ok := p.sole()
		if !ok {
			return p.fail("the arguments must be a JSON object, not plain text")
		}
		b, _ := json.Marshal(text)
		obj = map[string]json.RawMessage{a.Name: b}
	}
	out := map[string]json.RawMessage{}
	var unknown []string
	for k, v := range obj {
		a, ok := p.lookup(k)
		if !ok {
			unknown = append(unknown, k)
			continue
		}
		if isNull(v) {
			continue
		}
		if _, dup := out[a.Name]; dup {
			return p.fail("argument %q was given twice (under another name too)", a.Name)
		}
		cv, err := coerce(a.Type, v)
		if err != nil {
			return p.fail("argument %q must be %s: %v", a.Name, article(a.Type), err)
		}
		out[a.Name] = cv
	}
	if len(unknown) > 0 && !p.IgnoreUnknown {
		sort.Strings(unknown)
		return p.fail("unknown argument %s", quoteList(unknown))
	}
	for _, a := range p.List {
		v, ok := out[a.Name]
		switch {
		case a.Required && !ok:
			return p.fail("missing required argument %q", a.Name)
		case a.Required && a.Type == String && strings.TrimSpace(unquote(v)) == "":
			return p.fail("required argument %q is empty", a.Name)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("args: re-encode: %w", err)
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return fmt.Errorf("args: decode into %T: %w", dst, err)
	}
	return nil
}

// Failure is the Failed result for an argument problem.
func (p Params) Failure(err error) tools.Result {
	msg := fmt.Sprintf("Invalid arguments for %s: %v. Call %s again with a JSON object of these arguments.", p.Tool, err, p.Tool)
	sum := "invalid arguments"
	if e, ok := err.(*Error); ok {
		sum += ": " + e.Problem
	}
	return tools.Result{ForModel: msg, Summary: sum, Failed: true, Display: tools.Display{Kind: tools.KindError, Text: msg}}
}

func (p Params) fail(format string, a ...any) error {
	return &Error{Problem: fmt.Sprintf(format, a...), Usage: p.Usage()}
}

// lookup finds the parameter called k: by name, by alias, then ignoring
// case and dashes.
func (p Params) lookup(k string) (Param, bool) {
	for _, a := range p.List {
		if a.Name == k {
			return a, true
		}
	}
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
	for _, a := range p.List {
		for _, n := range append([]string{a.Name}, a.Aliases...) {
			if norm(n) == norm(k) {
				return a, true
			}
		}
	}
	// A near-miss spelling ("tabel", "sqll") of exactly one parameter.
	var found []Param
	for _, a := range p.List {
		if d := Distance(norm(k), norm(a.Name)); d > 0 && d <= 2 && d*3 < len(k) {
			found = append(found, a)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return Param{}, false
}

// Distance is the optimal-string-alignment edit distance between a and b,
// by runes: insertions, deletions, substitutions and swaps of neighbours
// each count one ("tabel" is 1 from "table"). Tools and the agent use it to
// match near-miss names.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// sole returns the only required parameter when it is a string.
func (p Params) sole() (Param, bool) {
	var found []Param
	for _, a := range p.List {
		if a.Required {
			found = append(found, a)
		}
	}
	if len(found) == 1 && found[0].Type == String {
		return found[0], true
	}
	return Param{}, false
}

// object unwraps raw into an object: empty and null mean {}; a JSON string
// holding an object (even twice encoded) is unwrapped. A JSON string
// holding plain text, not JSON, is returned as text with a nil map.
func object(raw json.RawMessage) (map[string]json.RawMessage, string, error) {
	wrapped := false
	for range 3 {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || isNull(raw) {
			return map[string]json.RawMessage{}, "", nil
		}
		switch {
		case raw[0] == '{':
			var m map[string]json.RawMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, "", fmt.Errorf("the arguments are not valid JSON (%v)", err)
			}
			return m, "", nil
		case raw[0] == '"':
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, "", fmt.Errorf("the arguments are not valid JSON (%v)", err)
			}
			if strings.TrimSpace(s) == "" {
				return map[string]json.RawMessage{}, "", nil
			}
			raw, wrapped = json.RawMessage(s), true
		case wrapped && !json.Valid(raw):
			return nil, string(raw), nil
		default:
			return nil, "", fmt.Errorf("the arguments must be a JSON object, not %s", kind(raw))
		}
	}
	return nil, "", fmt.Errorf("the arguments must be a JSON object")
}

// coerce turns v into the JSON form of t, accepting the usual slips.
func coerce(t Type, v json.RawMessage) (json.RawMessage, error) {
	v = bytes.TrimSpace(v)
	switch t {
	case String:
		switch v[0] {
		case '"':
			return v, nil
		case '{', '[':
			return nil, fmt.Errorf("got %s", kind(v))
		}
		return json.Marshal(string(v)) // a number or boolean, as text
	case Integer, Number:
		s := string(v)
		if v[0] == '"' {
			s = strings.TrimSpace(unquote(v))
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("got %s", kind(v))
		}
		if t == Integer {
			if f != float64(int64(f)) {
				return nil, fmt.Errorf("got %s, which is not a whole number", s)
			}
			return json.RawMessage(strconv.FormatInt(int64(f), 10)), nil
		}
		return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case Boolean:
		s := string(v)
		if v[0] == '"' {
			s = strings.ToLower(strings.TrimSpace(unquote(v)))
		}
		switch s {
		case "true", "false":
			return json.RawMessage(s), nil
		}
		return nil, fmt.Errorf("got %s", kind(v))
	case Strings:
		return coerceStrings(v)
	}
	return v, nil
}

// coerceStrings accepts an array (non-string items become their text), a
// string holding a JSON array, or one string as a one-item list.
func coerceStrings(v json.RawMessage) (json.RawMessage, error) {
	if v[0] == '"' {
		s := strings.TrimSpace(unquote(v))
		if strings.HasPrefix(s, "[") {
			if out, err := coerceStrings(json.RawMessage(s)); err == nil {
				return out, nil
			}
		}
		if s == "" {
			return json.RawMessage("[]"), nil
		}
		return json.Marshal([]string{s})
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, fmt.Errorf("got %s", kind(v))
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		it = bytes.TrimSpace(it)
		switch {
		case isNull(it):
		case it[0] == '"':
			out = append(out, unquote(it))
		case it[0] == '{' || it[0] == '[':
			return nil, fmt.Errorf("item %s is not a string", it)
		default:
			out = append(out, string(it))
		}
	}
	return json.Marshal(out)
}

func unquote(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return string(v)
	}
	return s
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// kind names a JSON value's type for messages.
func kind(v json.RawMessage) string {
	switch {
	case len(v) == 0:
		return "nothing"
	case v[0] == '{':
		return "an object"
	case v[0] == '[':
		return "an array"
	case v[0] == '"':
		return "a string"
	case string(v) == "true" || string(v) == "false":
		return "a boolean"
	}
	return "a number"
}

func article(t Type) string {
	switch t {
	case Integer:
		return "an integer"
	case Strings:
		return "an array of strings"
	}
	return "a " + string(t)
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
