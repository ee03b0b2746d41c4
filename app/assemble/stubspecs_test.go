package assemble_test

import (
	"reflect"
	"testing"

	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/app/assemble"
)

// TestStubSpecsFollowTheTools holds agent/agenttest's stub tools to the real
// tools' names for the loop: the aliases a model may call them by and the
// kind of evidence they give. agent/'s fault suite runs over the stubs, so a
// stub that drifted would test a loop no user meets.
func TestStubSpecsFollowTheTools(t *testing.T) {
	real := map[string]int{}
	specs := assemble.Specs()
	for i, s := range specs {
		real[s.Name] = i
	}
	db, err := agenttest.Shop()
	if err != nil {
		t.Fatal(err)
	}
	set, err := db.Tools()
	if err != nil {
		t.Fatal(err)
	}
	for _, stub := range set.Specs() {
		i, ok := real[stub.Name]
		if !ok {
			t.Errorf("stub %s: no real tool of that name", stub.Name)
			continue
		}
		r := specs[i]
		if !reflect.DeepEqual(stub.Aliases, r.Aliases) || stub.Evidence != r.Evidence || stub.SchemaLevel != r.SchemaLevel {
			t.Errorf("stub %s: aliases %v, evidence %q, schema-level %v; the real tool has %v, %q, %v",
				stub.Name, stub.Aliases, stub.Evidence, stub.SchemaLevel, r.Aliases, r.Evidence, r.SchemaLevel)
		}
	}
}
