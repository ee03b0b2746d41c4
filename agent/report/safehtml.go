package report

import (
	"net/url"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// containedRenderer draws the model's images and links in report.html so
// that opening the file makes no request and a link says where it goes:
//
//   - an image is drawn only from a data:image URL; any other address
//     becomes a placeholder that shows the address as text (the charts
//     Loupe drew are inserted as figures, not as markdown images);
//   - a link to a web or mail address keeps its href (the reader's browser
//     follows it only on a click) and shows its address beside the text;
//     any other scheme is shown as text only.
//
// It takes precedence over goldmark's HTML renderer for these three kinds.
type containedRenderer struct{}

var _ renderer.NodeRenderer = containedRenderer{}

// RegisterFuncs implements renderer.NodeRenderer.
func (containedRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindImage, renderImage)
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindAutoLink, renderAutoLink)
}

// inlineImage reports whether dest is a data:image URL, the only image
// address an exported report draws.
func inlineImage(dest string) bool {
	d := strings.ToLower(dest)
	for _, p := range []string{"data:image/png", "data:image/jpeg", "data:image/gif", "data:image/webp", "data:image/svg+xml"} {
		if strings.HasPrefix(d, p+";") || strings.HasPrefix(d, p+",") {
			return true
		}
	}
	return false
}

// openable reports whether a link to dest may keep its href: web and mail
// addresses only.
func openable(dest string) bool {
	u, err := url.Parse(dest)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return u.Host != ""
	case "mailto":
		return true
	}
	return false
}

func renderImage(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Image)
	dest := string(n.Destination)
	alt := plainText(n, source)
	if inlineImage(dest) {
		w.WriteString(`<img src="`)
		w.Write(util.EscapeHTML([]byte(dest)))
		w.WriteString(`" alt="`)
		w.Write(util.EscapeHTML([]byte(alt)))
		w.WriteString(`">`)
		return ast.WalkSkipChildren, nil
	}
	w.WriteString(`<span class="blocked-image">Image not loaded`)
	if alt != "" {
		w.WriteString(": ")
		w.Write(util.EscapeHTML([]byte(alt)))
	}
	w.WriteString(` <code>`)
	w.Write(util.EscapeHTML([]byte(dest)))
	w.WriteString(`</code></span>`)
	return ast.WalkSkipChildren, nil
}

func renderLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Link)
	dest := string(n.Destination)
	ok := openable(dest)
	if entering {
		if ok {
			w.WriteString(`<a href="`)
			w.Write(util.EscapeHTML(util.URLEscape([]byte(dest), true)))
			w.WriteString(`" rel="noopener noreferrer">`)
		} else {
			w.WriteString(`<span class="link">`)
		}
		return ast.WalkContinue, nil
	}
	if ok {
		w.WriteString(`</a>`)
	} else {
		w.WriteString(`</span>`)
	}
	if plainText(n, source) != dest {
		w.WriteString(` <span class="link-address">(`)
		w.Write(util.EscapeHTML([]byte(dest)))
		w.WriteString(`)</span>`)
	}
	return ast.WalkContinue, nil
}

func renderAutoLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	label := string(n.Label(source))
	dest := string(n.URL(source))
	if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(dest), "mailto:") {
		dest = "mailto:" + dest
	}
	if !openable(dest) {
		w.Write(util.EscapeHTML([]byte(label)))
		return ast.WalkSkipChildren, nil
	}
	w.WriteString(`<a href="`)
	w.Write(util.EscapeHTML(util.URLEscape([]byte(dest), false)))
	w.WriteString(`" rel="noopener noreferrer">`)
	w.Write(util.EscapeHTML([]byte(label)))
	w.WriteString(`</a>`)
	return ast.WalkSkipChildren, nil
}

// plainText is the text of node's children, without markup.
func plainText(node ast.Node, source []byte) string {
	var b strings.Builder
	_ = ast.Walk(node, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := n.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(source))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.AutoLink:
			b.Write(t.Label(source))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
