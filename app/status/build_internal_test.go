package status

import (
	"testing"

	"github.com/loupeapp/loupe/tools/python/sandbox"
)

// The reporter thins a step's progress to one report every `every`,
// reports every new step, moves the percentage with the bytes of a step,
// and always reports the end.
func TestReporterThinsAndEnds(t *testing.T) {
	var got []Progress
	r := &reporter{report: func(p Progress) { got = append(got, p) }}
	for i := range 50 {
		r.progress(sandbox.Progress{Step: 2, Steps: 4, Title: "RUN pip install", Bytes: int64(i) << 20, Total: 100 << 20})
	}
	r.progress(sandbox.Progress{Step: 3, Steps: 4, Title: "COPY", Line: "Step 3/4 : COPY"})
	r.final(BuildDone, "Built")
	if len(got) != 3 {
		t.Fatalf("reports %+v", got)
	}
	if got[0].Message != "Step 2/4: RUN pip install" || got[0].Percent != 25 || got[0].Detail != "0 of 100 MB" {
		t.Errorf("first %+v", got[0])
	}
	if got[1].Message != "Step 3/4: COPY" || got[1].Detail != "" {
		t.Errorf("new step %+v", got[1])
	}
	if got[2].Phase != BuildDone || got[2].Percent != 100 {
		t.Errorf("end %+v", got[2])
	}
}
