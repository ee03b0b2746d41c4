package agent

import (
	"strings"
	"testing"
)

func TestRedactError(t *testing.T) {
	s := Schema{Tables: []Table{{Name: "sales", Columns: []Column{{Name: "full_name"}, {Name: "Total 2024"}}}}}
	for _, tc := range []struct{ in, want string }{
		{"Conversion Error: Could not convert string 'Quillon Vexbridge' to INT32", "Conversion Error: Could not convert string '…' to INT32"},
		{`Binder Error: Referenced column "fullname" not found! Candidate bindings: "full_name", "Total 2024"`, `Binder Error: Referenced column "…" not found! Candidate bindings: "full_name", "Total 2024"`},
		{`invalid date field format: "cv-note-7f3a", expected format is (YYYY-MM-DD)`, `invalid date field format: "…", expected format is (YYYY-MM-DD)`},
		{"Out of Range Error: Overflow in multiplication of INT32 (7345111 * 2)!", "Out of Range Error: Overflow in multiplication of INT32 (# * #)!"},
		{"LINE 12: SELECT x2 FROM t WHERE amount > 900", "LINE 12: SELECT x2 FROM t WHERE amount > #"},
	} {
		got := redactError(tc.in, s)
		if first, _, _ := strings.Cut(got, "\n"); first != tc.want {
			t.Errorf("redactError(%q) = %q, want %q", tc.in, first, tc.want)
		}
	}
}
