package report

import (
	"regexp"
	"strings"
)

// Reasoning models often write their thinking into the content inside
// <think>…</think> (or <thinking>) instead of a separate field. None of it
// belongs in a report.

var (
	thinkBlock = regexp.MustCompile(`(?is)<(think|thinking)>.*?</(think|thinking)>`)
	thinkOpen  = regexp.MustCompile(`(?i)<(think|thinking)>`)
	thinkClose = regexp.MustCompile(`(?i)</(think|thinking)>`)
)

// stripThink removes reasoning from a complete reply: closed blocks; an
// unclosed block at the end (the model was cut off while thinking); and
// everything before a lone closing tag (chat templates that open the block
// in the prompt, so the reply starts inside it).
func stripThink(s string) string {
	s = thinkBlock.ReplaceAllString(s, "")
	if loc := thinkClose.FindStringIndex(s); loc != nil {
		s = s[loc[1]:]
	}
	if loc := thinkOpen.FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	return strings.TrimSpace(s)
}

// thinkFilter removes <think> blocks from a stream of text pieces whose tags
// may be split across pieces. It holds back a trailing "<…" that could still
// become a tag.
type thinkFilter struct {
	inside  bool
	pending string
}

var thinkTags = []string{"<think>", "<thinking>", "</think>", "</thinking>"}

// write takes the next piece and returns what may be shown now.
func (f *thinkFilter) write(piece string) string {
	s := f.pending + piece
	f.pending = ""
	var out strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			f.emit(&out, s)
			break
		}
		f.emit(&out, s[:i])
		s = s[i:]
		tag, partial := matchTag(s)
		switch {
		case tag != "":
			f.inside = !strings.HasPrefix(tag, "</")
			s = s[len(tag):]
		case partial:
			f.pending = s
			return out.String()
		default:
			f.emit(&out, s[:1])
			s = s[1:]
		}
	}
	return out.String()
}

// flush returns what was held back once the stream has ended.
func (f *thinkFilter) flush() string {
	var out strings.Builder
	f.emit(&out, f.pending)
	f.pending = ""
	return out.String()
}

func (f *thinkFilter) emit(b *strings.Builder, s string) {
	if !f.inside {
		b.WriteString(s)
	}
}

// matchTag reports the think tag s starts with (as written in s), or
// partial when s is a prefix of one and more text may complete it.
func matchTag(s string) (tag string, partial bool) {
	for _, t := range thinkTags {
		if len(s) >= len(t) && strings.EqualFold(s[:len(t)], t) {
			return s[:len(t)], false
		}
		if len(s) < len(t) && strings.EqualFold(s, t[:len(s)]) {
			partial = true
		}
	}
	return "", partial
}
