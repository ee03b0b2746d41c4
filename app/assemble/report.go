package assemble

import (
	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/tools"
)

// previewRows is how many rows of each query the report may show.
const previewRows = 50

// Exploration turns a run's outcome into the report stage's input. A run
// at the schema privacy level (Meta.SchemaOnly) gives a value-free one:
// the answer as the model wrote it (with references), no checked numbers
// or verdicts, and previews kept only to fill the report's references.
func Exploration(question string, out *agent.Outcome) report.Exploration {
	return ExplorationAt(question, out, "")
}

// ExplorationAt is Exploration for a report written at level: at Schema it
// is value-free whatever level the run had, and the answer of a run made
// at another level is left out (it holds values).
func ExplorationAt(question string, out *agent.Outcome, level privacy.Level) report.Exploration {
	if out.Meta.SchemaOnly || level == privacy.Schema {
		return schemaExploration(question, out)
	}
	exp := report.Exploration{Question: question, Summary: out.Summary}
	if exp.Summary == "" {
		exp.Summary = out.Answer
	}
	for _, f := range out.Findings {
		exp.Findings = append(exp.Findings, report.Finding{Text: f.Text, Evidence: f.Evidence})
	}
	for _, ev := range out.Evidence {
		switch {
		case ev.Chart != nil:
			exp.Charts = append(exp.Charts, report.Chart{Ref: ev.Ref, Title: ev.Chart.Title, Spec: ev.Chart.Spec, SQL: ev.SQL})
		case ev.Table != nil:
			exp.Queries = append(exp.Queries, reportQuery(ev, ev.Table))
		case ev.Display != nil && ev.Display.Kind == tools.KindVerdict:
			exp.Notes = append(exp.Notes, "Check of a finding: "+ev.Summary)
		}
	}
	for _, n := range out.Numbers {
		exp.Numbers = append(exp.Numbers, report.CheckedNumber{Text: n.Number.Text, Source: n.Source})
	}
	if out.Status != agent.Done && out.Reason != "" {
		exp.Notes = append(exp.Notes, "The exploration stopped early: "+out.Reason)
	}
	return exp
}

func reportQuery(ev agent.Evidence, t *tools.Table) report.Query {
	q := report.Query{Ref: ev.Ref, Purpose: ev.Purpose, SQL: ev.SQL, Rows: t.Rows}
	for _, c := range t.Columns {
		q.Columns = append(q.Columns, report.Column{Name: c.Name, Type: c.Type})
	}
	q.Preview = t.Preview
	if len(q.Preview) > previewRows {
		q.Preview = q.Preview[:previewRows]
	}
	return q
}

func schemaExploration(question string, out *agent.Outcome) report.Exploration {
	exp := report.Exploration{Question: question, SchemaOnly: true}
	if out.Meta.SchemaOnly {
		exp.Summary = out.Written
	} else {
		exp.Notes = append(exp.Notes, "The analyst's answer was given at another privacy level and is not shown; write from the queries.")
	}
	for _, ev := range out.Evidence {
		switch {
		case ev.Chart != nil:
			exp.Charts = append(exp.Charts, report.Chart{Ref: ev.Ref, Title: ev.Chart.Title, Spec: ev.Chart.Spec, SQL: ev.SQL})
		case ev.Table != nil:
			exp.Queries = append(exp.Queries, reportQuery(ev, ev.Table))
		}
	}
	if out.Status != agent.Done {
		exp.Notes = append(exp.Notes, "The exploration stopped early.")
	}
	return exp
}
