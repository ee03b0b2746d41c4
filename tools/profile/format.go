package profile

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxForModel bounds the text the model reads; the display has it all.
const maxForModel = 6000

// forModel renders the profile compactly: a header, one line per column,
// and one "!" line per flag.
func forModel(p *Profile, tableCols int) string {
	var b strings.Builder
	how := "exact figures"
	if p.Approx {
		how = "large table: quantiles approx., distinct counts approx. above 100000"
	}
	fmt.Fprintf(&b, "%s: %d rows; %d of %d columns profiled (%s).\n", p.Table, p.Rows, len(p.Columns), tableCols, how)
	for i, c := range p.Columns {
		line := columnLine(c, p.Approx)
		if b.Len()+len(line) > maxForModel {
			rest := make([]string, 0, len(p.Columns)-i)
			for _, r := range p.Columns[i:] {
				rest = append(rest, r.Name)
			}
			fmt.Fprintf(&b, "… %d more columns not shown (%s); profile them with columns=[…].\n", len(rest), strings.Join(rest, ", "))
			break
		}
		b.WriteString(line)
	}
	return strings.TrimRight(b.String(), "\n")
}

func columnLine(c Column, approx bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- %s %s: ", c.Name, c.Type)
	if c.Nulls > 0 {
		fmt.Fprintf(&b, "%d nulls (%s%%)", c.Nulls, num(c.NullPct))
	} else {
		b.WriteString("no nulls")
	}
	if c.Kind != "other" && c.Kind != "bool" {
		fmt.Fprintf(&b, ", %d distinct", c.Distinct)
		if c.DistinctApprox {
			b.WriteString(" (approx.)")
		}
	}
	var parts []string
	switch c.Kind {
	case "number":
		if c.Quantiles != nil {
			q := c.Quantiles
			s := fmt.Sprintf("min %s, p05 %s, p25 %s, median %s, p75 %s, p95 %s, max %s", any2(c.Min), num(q.P05), num(q.P25), num(q.Median), num(q.P75), num(q.P95), any2(c.Max))
			if approx {
				s = "quantiles approx.: " + s
			}
			parts = append(parts, s)
		}
		if c.Mean != nil {
			s := "mean " + num(*c.Mean)
			if c.Stddev != nil {
				s += ", sd " + num(*c.Stddev)
			}
			parts = append(parts, s)
		}
		if c.Outliers != nil && c.Outliers.Count > 0 {
			parts = append(parts, fmt.Sprintf("%d outliers outside [%s, %s] (1.5×IQR)", c.Outliers.Count, num(c.Outliers.Low), num(c.Outliers.High)))
		}
	case "time":
		if c.Min != nil {
			parts = append(parts, fmt.Sprintf("%v … %v", c.Min, c.Max))
		}
	case "text":
		switch {
		case c.Text == nil || c.Text.MaxLen == 0:
		case c.Text.MinLen == c.Text.MaxLen:
			parts = append(parts, fmt.Sprintf("length %d", c.Text.MinLen))
		default:
			parts = append(parts, fmt.Sprintf("length %d–%d", c.Text.MinLen, c.Text.MaxLen))
		}
	case "bool":
		if c.Trues != nil {
			parts = append(parts, fmt.Sprintf("true %d, false %d", *c.Trues, c.nonNull-*c.Trues))
		}
	}
	// Frequent values say something only when values repeat.
	if len(c.Top) > 0 && c.Kind != "bool" && c.Distinct < c.nonNull {
		top := make([]string, len(c.Top))
		for i, v := range c.Top {
			top[i] = fmt.Sprintf("%s %d", clip(v.Value), v.Count)
		}
		parts = append(parts, "top: "+strings.Join(top, ", "))
	}
	if len(parts) > 0 {
		b.WriteString("; " + strings.Join(parts, "; "))
	}
	b.WriteByte('\n')
	for _, f := range c.Flags {
		fmt.Fprintf(&b, "  ! %s: %s\n", f.Code, f.Message)
	}
	return b.String()
}

// num prints a number briefly: integers whole, others to 4 significant
// digits, without exponents for everyday magnitudes.
func num(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	a := math.Abs(f)
	switch {
	case a >= 1e4:
		return strconv.FormatFloat(f, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(round(f, 5), 'f', -1, 64)
	}
	return strconv.FormatFloat(round(f, 4), 'g', -1, 64)
}

func any2(v any) string {
	if f, ok := v.(float64); ok {
		return num(f)
	}
	return fmt.Sprint(v)
}

// clip shortens a value for the text, quoting it when its spaces matter.
func clip(s string) string {
	r := []rune(s)
	if len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	if s == "" || strings.TrimSpace(s) != s {
		return strconv.Quote(s)
	}
	return s
}
