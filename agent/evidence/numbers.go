// Package evidence holds an answer's numbers to the data: it finds the
// numbers a text states that need evidence, and checks each against the
// numbers the run's tool results hold, allowing rounding, thousands
// separators, percentages and units (k, million, …).
package evidence

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Number is a number a text states.
type Number struct {
	Text     string  `json:"text"`  // as written: "1,234.5", "45%", "$1.2M"
	Value    float64 `json:"value"` // what it means: 1234.5, 45, 1200000
	Shown    float64 `json:"-"`     // the digits as written, before Scale: 1.2 of "1.2M"
	Decimals int     `json:"-"`     // digits after the point
	Scale    float64 `json:"-"`     // 1, 1e3, 1e6, 1e9
	Percent  bool    `json:"percent,omitempty"`
	Start    int     `json:"-"` // byte offsets of Text
	End      int     `json:"-"`
}

var (
	numberRE = regexp.MustCompile(`(?i)-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?(?:%|percent\b|per cent\b|pp\b|k\b|thousand\b|m\b|mn\b|million\b|bn\b|b\b|billion\b))?`)
	dateRE   = regexp.MustCompile(`\b\d{4}-\d{1,2}(?:-\d{1,2})?(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?|\b\d{1,2}:\d{2}(?::\d{2})?\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b`)
	ordinal  = regexp.MustCompile(`(?m)^[ \t>*]*(\d+)[.)][ \t]`)
	refRE    = regexp.MustCompile(`\{\{[^{}]*\}\}`)
	// urlRE is an address (with a scheme, or a bare IP with a port or
	// path): its digits name a place, they claim nothing, and a mark
	// written inside it would break it.
	urlRE = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s<>()\[\]]+|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?(?:/[^\s<>()\[\]]*)?`)
)

// Claims returns the numbers in text that need evidence. Not counted:
// digits inside a word or name (q1, Q3, region_2, 3rd), list ordinals at a
// line's start, years (1900–2100 written as four bare digits), dates and
// times, web addresses, and {{…}} references (filled in from real results,
// so backed).
func Claims(text string) []Number {
	skip := spans(text, dateRE, refRE, urlRE)
	for _, m := range ordinal.FindAllStringSubmatchIndex(text, -1) {
		skip = append(skip, [2]int{m[2], m[3]})
	}
	var out []Number
	for _, loc := range numberRE.FindAllStringIndex(text, -1) {
		n, ok := parse(text, loc[0], loc[1])
		if !ok || overlaps(skip, n.Start, n.End) || inWord(text, n.Start, n.End) || isYear(n) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// Values returns every number in a source text (a tool result, a query):
// everything Claims counts and also years and the digits of dates, so that
// a claim copied from anywhere in it is found. Digits inside names are
// still skipped.
func Values(text string) []float64 {
	var out []float64
	for _, loc := range numberRE.FindAllStringIndex(text, -1) {
		n, ok := parse(text, loc[0], loc[1])
		if !ok || inWord(text, n.Start, n.End) {
			continue
		}
		out = append(out, n.Value)
		if n.Scale != 1 || n.Percent {
			out = append(out, n.Shown)
		}
	}
	return out
}

// parse reads the number matched at text[start:end].
func parse(text string, start, end int) (Number, bool) {
	raw := text[start:end]
	n := Number{Start: start, End: end, Scale: 1}
	digits := raw
	if i := strings.IndexFunc(raw, func(r rune) bool { return r == '%' || r == ' ' || unicode.IsLetter(r) }); i >= 0 {
		unit := strings.ToLower(strings.TrimSpace(raw[i:]))
		digits = raw[:i]
		switch unit {
		case "%", "percent", "per cent", "pp":
			n.Percent = true
		case "k", "thousand":
			n.Scale = 1e3
		case "m", "mn", "million":
			n.Scale = 1e6
		case "b", "bn", "billion":
			n.Scale = 1e9
		}
	}
	// A minus sign counts only when it is not a hyphen or a range dash.
	if strings.HasPrefix(digits, "-") && start > 0 {
		if r, _ := utf8.DecodeLastRuneInString(text[:start]); unicode.IsLetter(r) || unicode.IsDigit(r) {
			digits, n.Start = digits[1:], start+1
		}
	}
	plain := strings.ReplaceAll(digits, ",", "")
	v, err := strconv.ParseFloat(plain, 64)
	if err != nil {
		return n, false
	}
	if i := strings.IndexByte(plain, '.'); i >= 0 {
		n.Decimals = len(plain) - i - 1
	}
	n.Text = text[n.Start:end]
	n.Shown, n.Value = v, v*n.Scale
	return n, true
}

// inWord reports whether the number is part of a word, name or rank: a
// letter, digit, underscore or '#' touches it, or a letter follows it
// (3rd, 5x).
func inWord(text string, start, end int) bool {
	if start > 0 {
		r, _ := utf8.DecodeLastRuneInString(text[:start])
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '#' || r == '.' && start > 1 && unicode.IsDigit(rune(text[start-2])) {
			return true
		}
	}
	if end < len(text) {
		r, _ := utf8.DecodeRuneInString(text[end:])
		if unicode.IsLetter(r) || r == '_' {
			return true
		}
	}
	return false
}

func isYear(n Number) bool {
	return !n.Percent && n.Scale == 1 && n.Decimals == 0 && len(n.Text) == 4 && n.Value >= 1900 && n.Value <= 2100
}

func spans(text string, res ...*regexp.Regexp) [][2]int {
	var out [][2]int
	for _, re := range res {
		for _, l := range re.FindAllStringIndex(text, -1) {
			out = append(out, [2]int{l[0], l[1]})
		}
	}
	return out
}

func overlaps(spans [][2]int, start, end int) bool {
	for _, s := range spans {
		if start < s[1] && s[0] < end {
			return true
		}
	}
	return false
}

// matches reports whether the value v, shown as n, agrees with n: rounded
// or cut to the digits n shows, at n's scale.
func matches(n Number, v float64) bool {
	m := math.Abs(n.Shown)
	x := math.Abs(v) / n.Scale
	unit := math.Pow(10, -float64(n.Decimals))
	d := x - m
	return math.Abs(d) <= unit/2+1e-9*math.Max(1, m) || (d >= 0 && d < unit)
}
