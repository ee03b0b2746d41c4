package app_test

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/tools/tooltest"
)

func privateOf(cs []privacy.Column, col string) (privacy.Column, bool) {
	for _, c := range cs {
		if c.Column == col {
			return c, true
		}
	}
	return privacy.Column{}, false
}

func TestPrivateColumns(t *testing.T) {
	e := newEnv(t, setup{})
	e.load(t)
	cs, err := e.app.PrivateColumns("customers")
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := privateOf(cs, "customer_name"); !ok || c.Private || c.Proposed {
		t.Fatalf("customer_name (a company name) must not be proposed: %+v", c)
	}
	c, err := e.app.SetPrivateColumn("customers", "Customer_Name", true)
	if err != nil || !c.Private || !c.Decided || c.Column != "customer_name" {
		t.Fatalf("set: %+v %v", c, err)
	}
	cs, _ = e.app.PrivateColumns("customers")
	if c, _ := privateOf(cs, "customer_name"); !c.Private {
		t.Errorf("the decision must be kept: %+v", c)
	}
	var ae *app.Error
	if _, err := e.app.SetPrivateColumn("customers", "nope", true); !errors.As(err, &ae) || ae.Code != app.CodeNotFound {
		t.Errorf("unknown column: %v", err)
	}
	if _, err := e.app.PrivateColumns("nope"); !errors.As(err, &ae) || ae.Code != app.CodeNotFound {
		t.Errorf("unknown dataset: %v", err)
	}
}

// A question and a follow-up at the schema level through the window: the
// model reads no value of the data (not in the prompt, the results, nor in
// the history, where the first answer is stored with its values filled
// in), and the user reads the real values.
func TestSchemaLevelInTheWindow(t *testing.T) {
	q := "SELECT region, count(*) AS n FROM orders GROUP BY region ORDER BY n DESC, region"
	e := newEnv(t, setup{turns: []fake.Turn{
		fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql": "` + q + `"}`}),
		fake.Text("Most orders come from {{q1.region[0]}} ({{q1.n[0]}} orders)."),
		fake.Text("As said, the top region leads."),
	}})
	e.load(t)
	if err := e.app.SetPrivacy("schema"); err != nil {
		t.Fatal(err)
	}
	chat := e.chat(t)
	out := e.answered(t, chat, "Where do orders come from?")
	if !regexp.MustCompile(`^Most orders come from (North|South|East|West) \(\d+ orders\)\.$`).MatchString(out.Answer) {
		t.Fatalf("the answer must show the real values: %q", out.Answer)
	}
	e.answered(t, chat, "And which is second?")
	values := orderValues(t)
	for _, r := range e.srv.Requests() {
		body := string(r.Body)
		for _, v := range values {
			if strings.Contains(body, v) {
				t.Errorf("request %d holds the value %q", r.N, v)
			}
		}
	}
	last := e.srv.Requests()[len(e.srv.Requests())-1]
	if !strings.Contains(string(last.Body), "{{q1.region[0]}}") {
		t.Errorf("the follow-up's history must hold the answer as the model wrote it: %.400s", last.Body)
	}
}

// orderValues are the text values of the orders fixture (four letters or
// more), none of which is a name in the schema.
func orderValues(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(tooltest.Fixture("orders.csv"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, line := range strings.Split(string(b), "\n")[1:] {
		for _, f := range strings.Split(line, ",") {
			if len(f) >= 4 && strings.IndexFunc(f, unicode.IsLetter) >= 0 && !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	if len(out) < 5 {
		t.Fatalf("the fixture should hold text values, found %v", out)
	}
	return out
}
