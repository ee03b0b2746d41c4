package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// report.md is read in viewers Loupe does not control; none of the ways a
// model can name an image or a loading tag may survive into it.
func TestReportMarkdownKeepsNoImageTheModelNamed(t *testing.T) {
	reply := `# Revenue

Inline ![a](http://127.0.0.1:9/inline.png) and reference ![b][r1] and collapsed ![r2][]
and shortcut ![r3] and <img src="http://127.0.0.1:9/html.png"> and <IFRAME src=//x.example/f></iframe>
and <picture><source srcset="http://127.0.0.1:9/s.png"></picture>, while 3 < 5 and <email_3> stay.

[r1]: http://127.0.0.1:9/ref.png
[r2]: http://127.0.0.1:9/collapsed.png
[r3]: http://127.0.0.1:9/shortcut.png

{{chart:c1}}
`
	rep := writeReport(t, reply)
	files, err := Export(context.Background(), rep, filepath.Join(t.TempDir(), "r"))
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(files.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	for _, bad := range []string{"![a]", "![b]", "![r2]", "![r3]", "<img", "<IFRAME", "<picture", "<source", "</iframe>"} {
		if strings.Contains(text, bad) {
			t.Errorf("report.md keeps %q:\n%s", bad, text)
		}
	}
	for _, keep := range []string{"3 < 5", "<email_3>", "charts/"} {
		if !strings.Contains(text, keep) {
			t.Errorf("report.md lost %q:\n%s", keep, text)
		}
	}
	if n := len(noticesOf(rep, NoticeImageRemoved)); n < 7 {
		t.Errorf("%d image_removed notices, want one per image or tag (≥ 7)", n)
	}
}
