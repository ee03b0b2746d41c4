package evidence

import (
	"strings"
	"testing"
)

func TestClaims(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"There are 40 orders.", []string{"40"}},
		{"Revenue was 1,234,567.89 in 2024.", []string{"1,234,567.89"}},
		{"West has 45% of sales, up 3.5 pp.", []string{"45%", "3.5 pp"}},
		{"About $1.2M, or 12k orders, 3 million rows.", []string{"1.2M", "12k", "3 million"}},
		{"1. West leads\n2) East follows with 12", []string{"12"}},
		{"See [q1] and [q2, c1]; Q3 was best; region_2 and the 3rd row; West is #1, 1.5x East.", nil},
		{"Orders on 2024-03-01 at 10:30, and 3/4/2024.", nil},
		{"The total is {{q2.total[0]}}, from 5 stores.", []string{"5"}},
		{"It fell to -12.5 from 3-4 items.", []string{"-12.5", "3", "4"}},
		{"See ![x](http://127.0.0.1:39489/a?d=DOF-490) and https://example.com/2024/q3/7 or 10.0.0.5:8080/x, then 17 rows.", []string{"17"}},
	}
	for _, c := range cases {
		var got []string
		for _, n := range Claims(c.text) {
			got = append(got, n.Text)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("Claims(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestVerify(t *testing.T) {
	pool := func() *Pool {
		p := &Pool{}
		p.AddText("q1", "region | revenue | share\nWest | 1234567.891 | 0.4523\nEast | 987654.3 | 0.3311\nNorth | 40 | 0.2166")
		p.AddText("question", "What were the top 5 regions in 2024?")
		return p
	}
	cases := []struct {
		text    string
		unbaked []string
	}{
		{"West leads with 1,234,567.89.", nil},                             // rounded
		{"West leads with $1.23M, East $988k.", nil},                       // units, rounding
		{"West leads with 1.2 million.", nil},                              // truncation
		{"West has 45% of revenue, East 33.1%.", nil},                      // ratio as percent
		{"North has 40 orders, among the top 5.", nil},                     // number in the question
		{"The total is 37.", []string{"37"}},                               // nothing backs it
		{"West has 55% of revenue.", []string{"55%"}},                      // no such share
		{"West leads with 1,234,999.", []string{"1,234,999"}},              // wrong digits
		{"North is 40 and the total is 2,222,262.", []string{"2,222,262"}}, // a sum is not evidence
	}
	for _, c := range cases {
		var got []string
		for _, ch := range Unbacked(Verify(c.text, pool())) {
			got = append(got, ch.Number.Text)
		}
		if strings.Join(got, "|") != strings.Join(c.unbaked, "|") {
			t.Errorf("%q: unbacked %q, want %q", c.text, got, c.unbaked)
		}
	}
}

func TestDerived(t *testing.T) {
	p := &Pool{}
	p.AddText("q1", "West 300, East 100")
	for text, backed := range map[string]bool{
		"West is 75% of the total of the two.": false, // a sum's share is not tried
		"West is 200 ahead of East.":           true,  // difference
		"West is 300% of East.":                true,  // share
		"East grew 200%.":                      true,  // change
		"West is 150 ahead.":                   false,
	} {
		u := Unbacked(Verify(text, p))
		if (len(u) == 0) != backed {
			t.Errorf("%q: unbacked %v, want backed %v", text, u, backed)
		}
	}
}

func TestMarkText(t *testing.T) {
	p := &Pool{}
	p.AddText("q1", "n\n40")
	text := "There are 40 orders, worth 37 and 12%."
	checks := Verify(text, p)
	got := MarkText(text, checks)
	want := "There are 40 orders, worth 37 " + Mark + " and 12% " + Mark + "."
	if got != want {
		t.Errorf("MarkText = %q, want %q", got, want)
	}
	if again := MarkText(got, Verify(got, p)); again != got {
		t.Errorf("marking twice = %q", again)
	}
	if List(Unbacked(checks)) != "37, 12%" {
		t.Errorf("List = %q", List(Unbacked(checks)))
	}
}

func TestAddEarlierLeavesOutWhatItsRunMarked(t *testing.T) {
	p := &Pool{}
	p.AddEarlier("earlier answer", "North sold 17 in total; about 40 [unverified] were returned.\n[q1] north | 17, south | 12")
	for _, c := range []struct {
		text   string
		backed bool
	}{
		{"Still North, with 17.", true},
		{"South had 12.", true},
		{"About 40 came back.", false},
	} {
		checks := Verify(c.text, p)
		if len(checks) != 1 || checks[0].Backed() != c.backed {
			t.Errorf("Verify(%q) = %+v, want one check backed=%v", c.text, checks, c.backed)
		}
	}
}
