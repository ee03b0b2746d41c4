package calls

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Formats that put the tool's name in a tag or token and its arguments
// after it: Llama's <function=name>, Qwen3-Coder's <parameter=…> inside it,
// <invoke name=…>, DeepSeek's <｜tool▁sep｜>name, gpt-oss's
// "to=functions.name … <|message|>", Mistral's [TOOL_CALLS]name[ARGS] and
// Functionary's ">>>name".

// tagged is one call opening: where its name is and where its arguments
// start.
type tagged struct {
	start, argsAt int
	name          string
}

var (
	// DeepSeek V3: "function<｜tool▁sep｜>name"; V3.1: "name<｜tool▁sep｜>{…}";
	// the bars may be fullwidth or ASCII, the ▁ an underscore.
	deepseekSep = regexp.MustCompile(`([\w.\-]*)<[|｜]tool[▁_ ]sep[|｜]>([\w.\-]*)`)
	harmonyTo   = regexp.MustCompile(`to=(?:functions\.)?([\w.\-]+)[^<\n]*(?:<\|constrain\|>\s*\w+\s*)?<\|message\|>`)
	mistralArgs = regexp.MustCompile(`(?:\[TOOL_CALLS\]\s*)?([\w.\-]+)\[ARGS\]`)
	functionary = regexp.MustCompile(`(?m)^>>>\s*([\w.\-]+)\s*\n`)
	invokeOpen  = regexp.MustCompile(`<invoke\s+name\s*=\s*"([\w.\-]+)"\s*>`)
	paramTag    = regexp.MustCompile(`(?s)<parameter(?:=|\s+name\s*=\s*")([\w.\-]+)"?\s*>(.*?)</parameter>`)
)

// taggedCalls reads the calls of the token-and-tag formats.
func taggedCalls(s string, t Tools) (Parsed, bool) {
	var opens []tagged
	for _, m := range deepseekSep.FindAllStringSubmatchIndex(s, -1) {
		before, after := s[m[2]:m[3]], s[m[4]:m[5]]
		switch {
		case after != "" && (before == "" || before == "function"):
			opens = append(opens, tagged{start: m[0], argsAt: m[1], name: after})
		case before != "" && after == "":
			opens = append(opens, tagged{start: m[2], argsAt: m[1], name: before})
		}
	}
	for _, re := range []*regexp.Regexp{harmonyTo, mistralArgs, functionary, invokeOpen} {
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			opens = append(opens, tagged{start: m[0], argsAt: m[1], name: s[m[2]:m[3]]})
		}
	}
	if len(opens) == 0 {
		return Parsed{}, false
	}
	sort.Slice(opens, func(i, j int) bool { return opens[i].start < opens[j].start })
	var p Parsed
	for _, o := range opens {
		if !t.IsTool(o.name) && !isFinal(o.name) {
			continue
		}
		args, ok := taggedArgs(s[o.argsAt:])
		if !ok {
			return Parsed{Rest: s, Format: FormatTagged, Bounce: fmt.Sprintf("Your reply looks like a call to %s, but its arguments are not one valid JSON object, so nothing was run.", o.name)}, true
		}
		p.Calls = append(p.Calls, Found{Name: o.name, Args: args})
	}
	if len(p.Calls) == 0 {
		return Parsed{}, false
	}
	p.Rest, p.Format = leadIn(s[:firstStart(opens)]), FormatTagged
	return finalAnswer(p), true
}

func firstStart(opens []tagged) int {
	first := opens[0].start
	for _, o := range opens {
		if o.start < first {
			first = o.start
		}
	}
	return first
}

var (
	specialToken = regexp.MustCompile(`<｜[^｜]*｜>|<\|[\w/▁]+\|>|\[TOOL_CALLS\]`)
	channelWords = regexp.MustCompile(`(?:\b(?:assistant|commentary|function)\b\s*)+$`)
)

// leadIn is the text before a tagged block, without its tokens.
func leadIn(s string) string {
	s = specialToken.ReplaceAllString(s, " ")
	return clean(channelWords.ReplaceAllString(strings.TrimSpace(s), ""))
}

// taggedArgs reads the arguments that follow a call's name: a JSON object
// (bare or fenced), or <parameter=…>…</parameter> tags.
func taggedArgs(s string) (json.RawMessage, bool) {
	body := strings.TrimLeft(s, " \t\r\n")
	if strings.HasPrefix(body, "<parameter") {
		args := map[string]any{}
		for _, m := range paramTag.FindAllStringSubmatch(body, -1) {
			v := strings.TrimSpace(m[2])
			var js any
			if json.Unmarshal([]byte(v), &js) == nil && !strings.HasPrefix(v, "\"") {
				args[m[1]] = js
			} else {
				args[m[1]] = v
			}
		}
		if len(args) == 0 {
			return nil, false
		}
		b, err := json.Marshal(args)
		return b, err == nil
	}
	for _, f := range []string{"```json", "```JSON", "```"} {
		body = strings.TrimLeft(strings.TrimPrefix(body, f), " \t\r\n")
	}
	if !strings.HasPrefix(body, "{") {
		if body == "" || strings.HasPrefix(body, "<") {
			return json.RawMessage("{}"), true
		}
		return nil, false
	}
	end := balanced(body, 0)
	if end < 0 {
		return nil, false
	}
	raw, ok := Repair(body[:end])
	if !ok || !strings.HasPrefix(string(raw), "{") {
		return nil, false
	}
	return raw, true
}
