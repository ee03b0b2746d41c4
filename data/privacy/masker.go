package privacy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// MinTextRunes is the shortest private value MaskText replaces inside
// free text. A value of one or two characters identifies no one and would
// collide with ordinary words and numbers.
const MinTextRunes = 3

// foldRunes is the length from which a value is also found in any letter
// case (lower(name), upper(email)). Shorter values match their exact case
// only, so that a private "May" does not swallow the word "may".
const foldRunes = 6

// Masker maps private values to stable placeholders for one conversation:
// the same value always gets the same placeholder (<email_3>), so a model
// that sees only placeholders can still count, group and join. It is safe
// for concurrent use.
type Masker struct {
	mu    sync.Mutex
	toPh  map[string]string // value → placeholder
	toVal map[string]string // placeholder → value
	next  map[Kind]int
	// index finds known values in text: the lower-cased first word of a
	// value → the shapes (offset of that word, byte length) of the values
	// starting with it, longest first. A candidate is then one map lookup.
	index map[string][]shape
	// folded maps the lower-cased form of values of foldRunes or more.
	folded map[string]string
}

type shape struct {
	offset int // byte offset of the first word in the value
	length int // the value's length in bytes
}

// NewMasker returns an empty masker.
func NewMasker() *Masker {
	return &Masker{toPh: map[string]string{}, toVal: map[string]string{}, next: map[Kind]int{}, index: map[string][]shape{}, folded: map[string]string{}}
}

// Mask returns value's placeholder, making one of kind k ("" counts as
// Private) the first time value is seen. The empty string stays empty.
func (m *Masker) Mask(value string, k Kind) string {
	if value == "" {
		return ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.maskLocked(value, k)
}

func (m *Masker) maskLocked(value string, k Kind) string {
	if ph, ok := m.toPh[value]; ok {
		return ph
	}
	if k == "" {
		k = Private
	}
	m.next[k]++
	ph := fmt.Sprintf("<%s_%d>", k, m.next[k])
	m.toPh[value] = ph
	m.toVal[ph] = value
	m.indexLocked(value)
	return ph
}

// Len is how many values have placeholders.
func (m *Masker) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.toPh)
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// indexLocked makes value findable by MaskText, if it is long enough and
// has a word in it.
func (m *Masker) indexLocked(value string) {
	n := utf8.RuneCountInString(value)
	if n < MinTextRunes {
		return
	}
	start := strings.IndexFunc(value, isWord)
	if start < 0 {
		return
	}
	end := start + strings.IndexFunc(value[start:], func(r rune) bool { return !isWord(r) })
	if end < start {
		end = len(value)
	}
	key := strings.ToLower(value[start:end])
	if n >= foldRunes {
		if _, ok := m.folded[strings.ToLower(value)]; !ok {
			m.folded[strings.ToLower(value)] = m.toPh[value]
		}
	}
	sh := shape{offset: start, length: len(value)}
	es := m.index[key]
	for _, e := range es {
		if e == sh {
			return
		}
	}
	es = append(es, sh)
	sort.Slice(es, func(i, j int) bool { return es[i].length > es[j].length })
	m.index[key] = es
}

// MaskText replaces, in s, every known private value (whole, not inside a
// longer word; values of foldRunes or more in any case) and every value
// whose shape is personal wherever it appears — email addresses, card
// numbers passing Luhn, IBANs, US SSNs, phone numbers written with + or
// separators — with its placeholder. Values found by shape join the
// masker, so they keep their placeholder from then on.
func (m *Masker) MaskText(s string) string {
	if s == "" {
		return s
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.maskShapes(m.maskKnown(s))
}

func (m *Masker) maskKnown(s string) string {
	if len(m.index) == 0 {
		return s
	}
	var b strings.Builder
	last := 0 // s[:last] is written or replaced
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWord(r) || i > 0 && isWord(lastRune(s[:i])) {
			i += size
			continue
		}
		tokEnd := len(s)
		if end := strings.IndexFunc(s[i:], func(r rune) bool { return !isWord(r) }); end >= 0 {
			tokEnd = i + end
		}
		if start, stop, ph, ok := m.matchAt(s, i, tokEnd, last); ok {
			b.WriteString(s[last:start])
			b.WriteString(ph)
			last, i = stop, stop
			continue
		}
		i = tokEnd
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// matchAt finds a known value whose first word is s[i:tokEnd], starting at
// or after floor, bounded by non-word characters.
func (m *Masker) matchAt(s string, i, tokEnd, floor int) (start, stop int, ph string, ok bool) {
	for _, e := range m.index[strings.ToLower(s[i:tokEnd])] {
		start = i - e.offset
		stop = start + e.length
		if start < floor || stop > len(s) {
			continue
		}
		got := s[start:stop]
		ph, ok := m.toPh[got]
		if !ok {
			ph, ok = m.folded[strings.ToLower(got)]
		}
		if !ok || !bounded(s, start, stop) || strings.Contains(got, "@") && !emailBounded(s, start, stop) {
			continue
		}
		return start, stop, ph, true
	}
	return 0, 0, "", false
}

// bounded reports whether s[start:stop] stands apart: neither glued to a
// word before it nor to one after it (so ".x@mail.example.com" is not
// found inside "ann.x@mail.example.com", nor "Ann" inside "Anna").
func bounded(s string, start, stop int) bool {
	if start > 0 && isWord(lastRune(s[:start])) {
		return false
	}
	if stop < len(s) {
		next, _ := utf8.DecodeRuneInString(s[stop:])
		if isWord(next) {
			return false
		}
	}
	return true
}

// emailBounded reports whether an address at s[start:stop] is not the
// tail or head of a longer one (ann.x@mail.example.com holds
// x@mail.example.com; x@mail.example.com.au holds x@mail.example.com).
func emailBounded(s string, start, stop int) bool {
	if start > 0 && strings.ContainsRune("._%+-", lastRune(s[:start])) {
		return false
	}
	if stop+1 < len(s) && (s[stop] == '.' || s[stop] == '-') {
		next, _ := utf8.DecodeRuneInString(s[stop+1:])
		return !isWord(next)
	}
	return true
}

var (
	emailIn = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9._%+\-]*@[A-Za-z0-9\-]+(\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`)
	ibanIn  = regexp.MustCompile(`\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b`)
	ssnIn   = regexp.MustCompile(`\b\d{3}-\d{2}-\d{4}\b`)
	// numberIn is a run of digits with single spaces, dashes, dots or
	// parentheses between, optionally after a +: card and phone numbers.
	numberIn = regexp.MustCompile(`\+?\(?\d[\d()]*(?:[ .\-]?\(?\d[\d()]*)+`)
)

func (m *Masker) maskShapes(s string) string {
	s = emailIn.ReplaceAllStringFunc(s, func(v string) string { return m.maskLocked(v, Email) })
	s = ibanIn.ReplaceAllStringFunc(s, func(v string) string {
		if isIBAN(v) {
			return m.maskLocked(v, IBAN)
		}
		return v
	})
	s = ssnIn.ReplaceAllStringFunc(s, func(v string) string {
		if isSSN(v) {
			return m.maskLocked(v, SSN)
		}
		return v
	})
	return numberIn.ReplaceAllStringFunc(s, func(v string) string {
		t := strings.TrimRight(v, " .-")
		switch {
		case isCard(t):
			return m.maskLocked(t, Card) + v[len(t):]
		case isPhone(t):
			return m.maskLocked(t, Phone) + v[len(t):]
		}
		return v
	})
}

var placeholderRe = regexp.MustCompile(`<[a-z]+(?:_[a-z]+)*_\d+>`)

// Unmask replaces every placeholder this masker made with its value;
// other text, and placeholders it did not make, are left as they are.
func (m *Masker) Unmask(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return placeholderRe.ReplaceAllStringFunc(s, func(ph string) string {
		if v, ok := m.toVal[ph]; ok {
			return v
		}
		return ph
	})
}

// UnmaskCall unmasks a tool call's JSON arguments (see UnmaskJSON). The
// values are the user's data, so hostile text: one put back inside a
// quoted part of a SQL text stays inside it, whatever came before in the
// statement (quotes in names or comments). Inside a string literal
// ('<name_3>', '%<name_3>%') its single quotes are doubled, so that
// O'Brien stays one literal, and its backslashes too in an E'…' literal;
// inside a quoted name ("<name_3>") its double quotes are doubled; inside
// a dollar-quoted string ($$…$$) a value holding the closing tag is left
// masked (no such value is found) rather than end the string. Elsewhere
// (prose, a bare placeholder) the value is put back as it is.
func (m *Masker) UnmaskCall(raw []byte) []byte {
	return m.mapJSON(raw, func(s string) string { return m.unmaskQuoted(s, false) })
}

// UnmaskCallMySQL is UnmaskCall for calls whose SQL runs on MySQL or
// MariaDB, which Loupe's sessions keep reading a backslash as an escape
// and "…" as a string (see data/remote/mysql): a value put back in a
// literal has its backslashes doubled too, so that x\ cannot escape the
// closing quote, and one in a `quoted name` its backticks doubled.
func (m *Masker) UnmaskCallMySQL(raw []byte) []byte {
	return m.mapJSON(raw, func(s string) string { return m.unmaskQuoted(s, true) })
}

func (m *Masker) unmaskQuoted(s string, mysql bool) string {
	if !strings.Contains(s, "<") {
		return s
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	locs := placeholderRe.FindAllStringIndex(s, -1)
	parts := quotedParts(s, mysql)
	var b strings.Builder
	last := 0
	for _, l := range locs {
		v, ok := m.toVal[s[l[0]:l[1]]]
		if !ok {
			continue
		}
		if v, ok = partAt(parts, l[0]).escape(v); !ok {
			continue
		}
		b.WriteString(s[last:l[0]])
		b.WriteString(v)
		last = l[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// MaskJSON masks every string inside the JSON document raw (keys too). Text
// that is not JSON is masked as text.
func (m *Masker) MaskJSON(raw []byte) []byte {
	return m.mapJSON(raw, m.MaskText)
}

// UnmaskJSON unmasks every string inside the JSON document raw, so that a
// value put back is escaped as JSON needs. Text that is not JSON is
// unmasked as text.
func (m *Masker) UnmaskJSON(raw []byte) []byte {
	return m.mapJSON(raw, m.Unmask)
}

func (m *Masker) mapJSON(raw []byte, f func(string) string) []byte {
	if len(raw) == 0 {
		return raw
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return []byte(f(string(raw)))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // placeholders stay <email_3>, not \u003c…
	if err := enc.Encode(mapStrings(v, f)); err != nil {
		return []byte(f(string(raw)))
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func mapStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = mapStrings(x[i], f)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[f(k)] = mapStrings(e, f)
		}
		return out
	}
	return v
}
