package app_test

import (
	"errors"
	"testing"

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
