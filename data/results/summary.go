package results

import "math"

// ColumnSummary sums up one column of the rows held: how many cells have a
// value, how many are NULL, how many distinct values there are, and for
// numbers the smallest, the largest and the mean.
type ColumnSummary struct {
	Column   string   `json:"column"`
	Count    int      `json:"count"`
	Nulls    int      `json:"nulls"`
	Distinct int      `json:"distinct"`
	Min      *float64 `json:"min,omitempty"`
	Max      *float64 `json:"max,omitempty"`
	Mean     *float64 `json:"mean,omitempty"`
}

// Summary is every column's summary over the rows held of a result. Rows
// is how many were summed up; Partial is true when the result holds fewer
// rows than its query produced, so the figures cover Rows of Total only.
type Summary struct {
	Rows    int             `json:"rows"`
	Total   int64           `json:"total"`
	Partial bool            `json:"partial"`
	Columns []ColumnSummary `json:"columns"`
}

// Summarize sums up the rows held of e, column by column.
func Summarize(e *Entry) Summary {
	out := Summary{Rows: len(e.Rows), Total: e.Total, Partial: e.Truncated, Columns: make([]ColumnSummary, len(e.Columns))}
	for i, c := range e.Columns {
		s := ColumnSummary{Column: c.Name}
		seen := map[string]bool{}
		num := IsNumeric(c.Type)
		var sum float64
		var nums int
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range e.Rows {
			v := r[i]
			if v == nil {
				s.Nulls++
				continue
			}
			s.Count++
			seen[CellText(v)] = true
			if n, ok := Number(v); num && ok {
				sum += n
				nums++
				lo, hi = math.Min(lo, n), math.Max(hi, n)
			}
		}
		s.Distinct = len(seen)
		if nums > 0 {
			mean := sum / float64(nums)
			s.Min, s.Max, s.Mean = &lo, &hi, &mean
		}
		out.Columns[i] = s
	}
	return out
}
