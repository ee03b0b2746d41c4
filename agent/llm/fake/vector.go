package fake

import (
	"hash/fnv"
	"strings"
	"unicode"
)

// Dims is the length of the fake embedding model's vectors.
const Dims = 256

// Vector is the fake embedding model: a hashed bag of the text's stemmed
// words in Dims dimensions, normalised to length 1. Words are split on
// anything but letters and digits and on camelCase; stop words are
// dropped; each word is stemmed (plural and -ing/-ed endings) and mapped
// through a small synonym table (staff, personnel and headcount are all
// "employee"), so that texts sharing words or synonyms point the same way
// and the cosine of unrelated texts is near 0. It is deterministic.
func Vector(text string) []float32 {
	v := make([]float32, Dims)
	for _, w := range words(text) {
		h := fnv.New64a()
		h.Write([]byte(w))
		x := h.Sum64()
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		v[x%Dims] += sign
	}
	return renormalise(v)
}

// words are text's searchable words, stemmed and with synonyms merged.
func words(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		for _, w := range splitCamel(f) {
			w = strings.ToLower(w)
			if len(w) < 2 || stop[w] {
				continue
			}
			w = stem(w)
			if s, ok := synonyms[w]; ok {
				w = s
			}
			out = append(out, w)
		}
	}
	return out
}

// splitCamel cuts "sbCustomerID" into sb, Customer, ID.
func splitCamel(s string) []string {
	r := []rune(s)
	var out []string
	start := 0
	for i := 1; i < len(r); i++ {
		lowerToUpper := unicode.IsLower(r[i-1]) && unicode.IsUpper(r[i])
		acronymEnd := i+1 < len(r) && unicode.IsUpper(r[i-1]) && unicode.IsUpper(r[i]) && unicode.IsLower(r[i+1])
		if lowerToUpper || acronymEnd {
			out = append(out, string(r[start:i]))
			start = i
		}
	}
	return append(out, string(r[start:]))
}

// stem strips the commonest English endings.
func stem(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s") && len(w) > 3:
		return w[:len(w)-1]
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		return w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		return w[:len(w)-2]
	}
	return w
}

// synonyms maps stemmed words to one word of their meaning.
var synonyms = map[string]string{
	"staff": "employee", "personnel": "employee", "headcount": "employee", "worker": "employee", "workforce": "employee",
	"revenue": "income", "turnover": "income", "taking": "income", "earning": "income",
	"client": "customer", "shopper": "customer", "buyer": "customer",
	"film": "movie", "motion": "movie",
	"automobile": "car", "vehicle": "car",
	"physician": "doctor", "medic": "doctor",
	"town": "city", "municipality": "city",
	"salary": "pay", "wage": "pay", "compensation": "pay",
	"rainfall": "rain", "precipitation": "rain",
}

var stop = map[string]bool{
	"the": true, "a": true, "an": true, "of": true, "in": true, "on": true, "for": true, "to": true, "and": true,
	"or": true, "is": true, "are": true, "was": true, "what": true, "which": true, "how": true, "many": true,
	"by": true, "with": true, "from": true, "per": true, "our": true, "we": true, "do": true, "does": true,
	"me": true, "show": true, "list": true, "each": true, "all": true, "that": true, "this": true, "it": true,
	// words every schema has, which say nothing about a table's subject
	"table": true, "column": true, "id": true, "name": true, "number": true, "count": true, "total": true,
	"date": true, "type": true, "value": true, "code": true, "average": true, "avg": true, "sum": true,
	"top": true, "get": true, "find": true, "give": true, "be": true, "have": true, "has": true, "their": true,
}
