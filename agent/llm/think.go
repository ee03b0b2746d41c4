package llm

import "strings"

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// ThinkSplitter moves <think>…</think> blocks that a model writes inside its
// content out of the answer, as the content streams in. A tag may be split
// across chunks: text that could be the start of a tag is held back until
// the next chunk (or Flush) settles it. An unclosed <think> makes the rest
// thinking. Whitespace right after a closing tag is dropped from the answer.
// The zero value is ready to use; a ThinkSplitter serves one reply.
type ThinkSplitter struct {
	in       bool   // inside a think block
	trimLead bool   // drop whitespace before the next answer text
	held     string // a possible partial tag
}

// Split takes the next chunk of content and returns the parts of it that
// are answer and thinking.
func (s *ThinkSplitter) Split(chunk string) (content, thinking string) {
	if !s.in && s.held == "" && !s.trimLead && strings.IndexByte(chunk, '<') < 0 {
		return chunk, ""
	}
	buf := s.held + chunk
	s.held = ""
	var c, t strings.Builder
	for buf != "" {
		tag := thinkOpen
		if s.in {
			tag = thinkClose
		}
		i := strings.Index(buf, tag)
		if i < 0 {
			keep := partialSuffix(buf, tag)
			s.emit(&c, &t, buf[:len(buf)-keep])
			s.held = buf[len(buf)-keep:]
			break
		}
		s.emit(&c, &t, buf[:i])
		buf = buf[i+len(tag):]
		s.in = !s.in
		if !s.in {
			s.trimLead = true
		}
	}
	return c.String(), t.String()
}

// Flush returns whatever Split held back, at the end of the reply.
func (s *ThinkSplitter) Flush() (content, thinking string) {
	var c, t strings.Builder
	s.emit(&c, &t, s.held)
	s.held = ""
	return c.String(), t.String()
}

func (s *ThinkSplitter) emit(c, t *strings.Builder, text string) {
	if s.in {
		t.WriteString(text)
		return
	}
	if s.trimLead {
		text = strings.TrimLeft(text, " \t\r\n")
		if text == "" {
			return
		}
		s.trimLead = false
	}
	c.WriteString(text)
}

// partialSuffix is the length of the longest suffix of s that is a proper
// prefix of tag.
func partialSuffix(s, tag string) int {
	for k := min(len(tag)-1, len(s)); k > 0; k-- {
		if strings.HasSuffix(s, tag[:k]) {
			return k
		}
	}
	return 0
}
