package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSearch(t *testing.T) {
	ws := t.TempDir()
	src := t.TempDir()
	a := writeFile(t, src, "rainfall.csv", "station,rainfall_mm,measured_on\nOslo,3,2024-01-01\nBergen,9,2024-01-01\n")
	b := writeFile(t, src, "invoices.csv", "InvoiceId,CustomerName,billingCity,total\n1,Ada,Paris,10\n")
	if code, _, errs := run(t, "", "load", "--workspace", ws, a, b); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	code, out, errs := run(t, "", "search", "--workspace", ws, "--json", "--k", "1", "total billed per city")
	if code != ExitOK {
		t.Fatalf("search exit %d: %s", code, errs)
	}
	var got []struct {
		Table   string  `json:"table"`
		Score   float64 `json:"score"`
		Columns []struct {
			Name string `json:"name"`
		} `json:"columns"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if len(got) != 1 || got[0].Table != "invoices" || got[0].Score <= 0 || len(got[0].Columns) == 0 {
		t.Fatalf("search --json: %s", out)
	}
	code, out, _ = run(t, "", "search", "--workspace", ws, "how much rainfall in Bergen")
	if code != ExitOK || !strings.Contains(out, " 1. rainfall") || !strings.Contains(out, "rainfall_mm") {
		t.Errorf("search: %d %q", code, out)
	}
	if code, _, _ := run(t, "", "search", "--workspace", ws); code != ExitUsage {
		t.Errorf("search without a question: exit %d", code)
	}
	code, out, _ = run(t, "", "search", "--workspace", ws, "--json", "the")
	if code != ExitOK || strings.TrimSpace(out) != "[]" {
		t.Errorf("search of stop words: %d %q", code, out)
	}
}
