package agent

import (
	"encoding/json"
	"sort"

	"github.com/loupeapp/loupe/tools"
)

// catalog is what a run knows of its tools, all of it from their Specs:
// the agent switches on no tool's name.
type catalog struct {
	specs  []tools.Spec // registration order
	byName map[string]tools.Spec
}

func newCatalog(specs []tools.Spec) catalog {
	c := catalog{specs: specs, byName: make(map[string]tools.Spec, len(specs))}
	for _, s := range specs {
		c.byName[s.Name] = s
	}
	return c
}

// guidance is the tools' steps of "How to work", by stage then
// registration order, with the general advice on failed calls after the
// Query stage.
func (c catalog) guidance() []string {
	var steps []tools.Spec
	for _, s := range c.specs {
		if s.Guidance.Text != "" {
			steps = append(steps, s)
		}
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Guidance.Stage < steps[j].Guidance.Stage })
	var out []string
	general := false
	for _, s := range steps {
		if !general && s.Guidance.Stage > tools.StageQuery {
			out, general = append(out, failedCallsStep), true
		}
		out = append(out, s.Guidance.Text)
	}
	if !general {
		out = append(out, failedCallsStep)
	}
	return out
}

// failedCallsStep is the advice on failed calls, whatever the tools.
const failedCallsStep = "When a tool reports an error, read the message and hint and fix the call; if the same approach fails repeatedly, try a different one."

// queryTool is the tool the run names when it shows how a call is
// written or where values are computed: the first of the Query stage with
// an example, else the first with an example, else the first.
func (c catalog) queryTool() tools.Spec {
	for _, s := range c.specs {
		if s.Guidance.Stage == tools.StageQuery && len(s.Example) > 0 {
			return s
		}
	}
	for _, s := range c.specs {
		if len(s.Example) > 0 {
			return s
		}
	}
	if len(c.specs) > 0 {
		return c.specs[0]
	}
	return tools.Spec{}
}

// example is an arguments object for a call of tool.
func (c catalog) example(tool string) string {
	if e := c.byName[tool].Example; len(e) > 0 && json.Valid(e) {
		return string(e)
	}
	return `{"name": "value"}`
}

// nameOf is the name of the first tool (in registration order) whose spec
// is, "" when none is: how the agent's own words name a tool by its role.
func (c catalog) nameOf(is func(tools.Spec) bool) string {
	for _, s := range c.specs {
		if is(s) {
			return s.Name
		}
	}
	return ""
}

// listsTables is the role of the tool listing every table: a lookup of
// names and counts (SchemaStructure) that is not a question to the user.
func listsTables(s tools.Spec) bool {
	return s.SchemaLevel == tools.SchemaStructure && s.Evidence == tools.EvidenceNone && s.Guidance.Stage != tools.StageClarify
}

// describesTables is the role of the tool describing a table's columns
// (SchemaDescribe).
func describesTables(s tools.Spec) bool { return s.SchemaLevel == tools.SchemaDescribe }
