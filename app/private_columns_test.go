package app_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"

	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/data/privacy"
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

// A question at the schema level, not built yet, is refused with an error
// that says what to do, and nothing reaches the model.
func TestSchemaLevelRefusedInTheWindow(t *testing.T) {
	e := newEnv(t, setup{})
	e.load(t)
	if err := e.app.SetPrivacy("schema"); err != nil {
		t.Fatal(err)
	}
	chat := e.chat(t)
	res, err := e.app.Ask(chat, "Where do orders come from?")
	if err != nil {
		t.Fatal(err)
	}
	out := e.rec.waitFinished(t, res.RunID, 20*time.Second)
	if out.Status != agent.Failed || !strings.Contains(out.Reason, "schema privacy level is not available yet") || !strings.Contains(out.Reason, "Choose open or masked") {
		t.Fatalf("run: %s %q", out.Status, out.Reason)
	}
	for _, r := range e.srv.Requests() {
		if strings.Contains(string(r.Body), "orders") {
			t.Errorf("a request was sent: %.200s", r.Body)
		}
	}
}
