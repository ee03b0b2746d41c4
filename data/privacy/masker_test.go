package privacy

import (
	"strings"
	"sync"
	"testing"
)

func TestMaskStable(t *testing.T) {
	m := NewMasker()
	a := m.Mask("ann@x.org", Email)
	b := m.Mask("bob@x.org", Email)
	if a != "<email_1>" || b != "<email_2>" {
		t.Fatalf("placeholders %s %s, want <email_1> <email_2>", a, b)
	}
	if again := m.Mask("ann@x.org", Name); again != a {
		t.Errorf("the same value got %s, then %s", a, again)
	}
	if got := m.Mask("Quill", ""); got != "<private_1>" {
		t.Errorf("kindless value: %s", got)
	}
	if m.Mask("", Email) != "" {
		t.Error("the empty string must stay empty")
	}
}

func TestMaskText(t *testing.T) {
	m := NewMasker()
	m.Mask("Quillon Vexbridge", Name)
	m.Mask("Vex", Name) // short: exact case only
	m.Mask("Al", Name)  // too short to find in text
	m.Mask("O'Brien", Name)
	for _, tc := range []struct{ in, want string }{
		{"name | Quillon Vexbridge | 3", "name | <name_1> | 3"},
		{"lower: quillon vexbridge.", "lower: <name_1>."},
		{"QuillonVexbridges is another word", "QuillonVexbridges is another word"},
		{"Vex and vex and Vexing", "<name_2> and vex and Vexing"},
		{"Al is here; Albert too", "Al is here; Albert too"},
		{"Error: could not convert 'O'Brien' to INT32", "Error: could not convert '<name_4>' to INT32"},
		{"mail ann.smith@example.org now", "mail <email_1> now"},
		{"code: n + '.x@mail.example.com'", "code: n + '.<email_2>'"},
		{"out: ['ann.x@mail.example.com']", "out: ['<email_3>']"},
		{"card 4111 1111 1111 1111, not 4111 1111 1111 1112", "card <card_1>, not 4111 1111 1111 1112"},
		{"iban DE89 3704 0044 0532 0130 00 and ssn 123-45-6789", "iban <iban_1> and ssn <ssn_1>"},
		{"call +44 20 7946 0958 on 2024-01-15, 1234567 rows, 3.14159", "call <phone_1> on 2024-01-15, 1234567 rows, 3.14159"},
	} {
		if got := m.MaskText(tc.in); got != tc.want {
			t.Errorf("MaskText(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
	// Shapes found in text keep their placeholder.
	if got := m.MaskText("again ann.smith@example.org"); got != "again <email_1>" {
		t.Errorf("a shape found before must keep its placeholder: %q", got)
	}
}

func TestUnmask(t *testing.T) {
	m := NewMasker()
	m.Mask("Quillon Vexbridge", Name)
	m.Mask(`say "hi"`, Private)
	in := "Top customer: <name_1>; unknown <name_9>; <private_1>; a < b > c"
	if got, want := m.Unmask(in), `Top customer: Quillon Vexbridge; unknown <name_9>; say "hi"; a < b > c`; got != want {
		t.Errorf("Unmask:\n got %q\nwant %q", got, want)
	}
	js := m.UnmaskJSON([]byte(`{"sql":"SELECT 1 WHERE x = '<private_1>'"}`))
	if string(js) != `{"sql":"SELECT 1 WHERE x = 'say \"hi\"'"}` {
		t.Errorf("UnmaskJSON must escape what it puts back: %s", js)
	}
	m.Mask("O'Brien", Name)
	call := m.UnmaskCall([]byte(`{"sql":"SELECT * FROM t WHERE a = '<name_2>' AND b LIKE '%<name_2>%'","purpose":"<name_2>"}`))
	if string(call) != `{"purpose":"O'Brien","sql":"SELECT * FROM t WHERE a = 'O''Brien' AND b LIKE '%O''Brien%'"}` {
		t.Errorf("UnmaskCall must keep a SQL literal whole: %s", call)
	}
	masked := m.MaskJSON(js)
	if strings.Contains(string(masked), "hi") || !strings.Contains(string(masked), "<private_1>") {
		t.Errorf("MaskJSON: %s", masked)
	}
	if got := m.MaskJSON([]byte("not json Quillon Vexbridge")); string(got) != "not json <name_1>" {
		t.Errorf("MaskJSON of text: %s", got)
	}
}

func TestMaskerConcurrent(t *testing.T) {
	m := NewMasker()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				m.Mask(strings.Repeat("v", i+3)+string(rune('a'+j%26)), Name)
				_ = m.MaskText("vvva and vvvvb")
				_ = m.Unmask("<name_3>")
			}
		}()
	}
	wg.Wait()
}

func TestBookKeepsAndForgets(t *testing.T) {
	b := NewBook(2)
	a := b.For("a")
	a.Mask("Quillon", Name)
	if b.For("a") != a {
		t.Fatal("a conversation must keep its masker")
	}
	b.For("b")
	b.For("c") // forgets a, the least recently used
	if b.For("a") == a {
		t.Error("the book must forget beyond its size")
	}
	if b.For("") == b.For("") {
		t.Error("one-off questions must not share a masker")
	}
}
