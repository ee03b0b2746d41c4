package pdf

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
)

type inlineStyle struct {
	bold, italic, code bool
	link               string
}

func (s inlineStyle) font() (string, string, float64) {
	if s.code {
		return mono, "", bodySize * 0.92
	}
	st := ""
	if s.bold {
		st += "B"
	}
	if s.italic {
		st += "I"
	}
	return sans, st, bodySize
}

// inline writes n's inline children with Write, which wraps at the right
// margin and continues at the left one.
func (l *layout) inline(n ast.Node, st inlineStyle) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			l.write(textOf(c, l.src), st)
			switch {
			case c.HardLineBreak():
				l.p.Ln(bodyLine)
			case c.SoftLineBreak():
				l.write(" ", st)
			}
		case *ast.String:
			l.write(string(c.Value), st)
		case *ast.Emphasis:
			s := st
			if c.Level >= 2 {
				s.bold = true
			} else {
				s.italic = true
			}
			l.inline(c, s)
		case *ast.CodeSpan:
			s := st
			s.code = true
			l.write(plainText(c, l.src), s)
		case *ast.Link:
			dest := string(c.Destination)
			s := st
			if webLink(dest) {
				s.link = dest
			}
			l.inline(c, s)
			if label := plainText(c, l.src); dest != "" && dest != label {
				l.write(" ("+dest+")", inlineStyle{italic: true})
			}
		case *ast.AutoLink:
			u := string(c.URL(l.src))
			s := st
			if webLink(u) || c.AutoLinkType == ast.AutoLinkEmail {
				s.link = u
				if c.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(u, "mailto:") {
					s.link = "mailto:" + u
				}
			}
			l.write(string(c.Label(l.src)), s)
		case *ast.Image:
			l.write("[image: "+plainText(c, l.src)+"]", inlineStyle{italic: true})
		case *ast.RawHTML:
			// not rendered
		default:
			if box, ok := asCheckBox(c); ok {
				mark := "☐ "
				if box {
					mark = "☑ "
				}
				l.write(mark, st)
				continue
			}
			l.inline(c, st)
		}
	}
}

func webLink(u string) bool {
	lu := strings.ToLower(u)
	return strings.HasPrefix(lu, "https://") || strings.HasPrefix(lu, "http://") || strings.HasPrefix(lu, "mailto:")
}

func (l *layout) write(s string, st inlineStyle) {
	if s == "" {
		return
	}
	fam, style, size := st.font()
	l.p.SetFont(fam, style, size)
	s = l.fonts.clean(s)
	if st.link != "" {
		l.p.SetTextColor(30, 80, 160)
		l.p.WriteLinkString(bodyLine, s, st.link)
		l.p.SetTextColor(0, 0, 0)
		return
	}
	l.p.Write(bodyLine, s)
}

// textOf is a text node's text as a reader sees it: backslash escapes
// and character references resolved (goldmark leaves them to renderers).
func textOf(t *ast.Text, src []byte) string {
	v := t.Segment.Value(src)
	if t.IsRaw() {
		return string(v)
	}
	return string(util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v))))
}
