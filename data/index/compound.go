package index

import "sync"

// Schemas run words together (countrylanguage, paperkeyphrase,
// starttime): the tokenizer cannot split them, so a question about
// languages would miss countrylanguage. compounds finds them in the
// index's own vocabulary: an indexed name word that is two other indexed
// words end to end is a compound of both, and a question word matches
// the compounds it is a part of, as it matches the words it begins.

// minPart is the shortest part of a compound.
const minPart = 4

// compoundMap maps an indexed term to the compound terms it is a part of,
// and a compound term to its parts.
type compoundMap struct {
	of    map[string][]string // part → compounds
	parts map[string][]string // compound → parts
	vocab map[string]bool     // every name and column term
}

// compoundCache is the index's compound map, computed on first use after
// a change (apply resets it).
type compoundCache struct {
	mu sync.Mutex
	m  *compoundMap
}

func (c *compoundCache) reset() {
	c.mu.Lock()
	c.m = nil
	c.mu.Unlock()
}

// compounds returns the compound map of the names and columns indexed
// now.
func (x *Index) compounds() *compoundMap {
	x.comp.mu.Lock()
	defer x.comp.mu.Unlock()
	if x.comp.m != nil {
		return x.comp.m
	}
	vocab := map[string]bool{}
	for _, f := range []string{fieldName, fieldColumns} {
		d, err := x.bi.FieldDict(f)
		if err != nil {
			continue // no compounds is a weaker search, not a failed one
		}
		for e, err := d.Next(); err == nil && e != nil; e, err = d.Next() {
			vocab[e.Term] = true
		}
		_ = d.Close()
	}
	m := &compoundMap{of: map[string][]string{}, parts: map[string][]string{}, vocab: vocab}
	for term := range vocab {
		if len(term) < 2*minPart {
			continue
		}
		for i := minPart; i <= len(term)-minPart; i++ {
			head, tail := term[:i], term[i:]
			if !vocab[tail] {
				continue
			}
			// the head is a whole word, stemmed in the vocabulary
			// (countri) but not inside the compound (country…)
			if h := stem(head); vocab[head] || vocab[h] {
				if !vocab[head] {
					head = h
				}
				m.of[head] = append(m.of[head], term)
				m.of[tail] = append(m.of[tail], term)
				m.parts[term] = []string{head, tail}
				break
			}
		}
	}
	x.comp.m = m
	return m
}

// stem is the Porter stem of a lower-case word, as the analysis makes it.
func stem(w string) string {
	toks := analyzeWith(identAnalyzer, w)
	if len(toks) == 1 {
		return toks[0]
	}
	return w
}

// minTypo is the shortest question word taken for a misspelling.
const minTypo = 4

// near returns the indexed name and column terms a question term unknown
// to the index may be a misspelling of: one letter dropped (carr, care →
// car), two swapped (studnet → student), or, in words of six letters or
// more, one changed.
func (m *compoundMap) near(term string) []string {
	if len(term) < minTypo || m.vocab[term] {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	try := func(w string) {
		if w != term && m.vocab[w] && !seen[w] && len(w) >= 3 {
			seen[w] = true
			out = append(out, w)
		}
	}
	b := []byte(term)
	for i := range b {
		try(term[:i] + term[i+1:])
		if i+1 < len(b) {
			s := append([]byte(nil), b...)
			s[i], s[i+1] = s[i+1], s[i]
			try(string(s))
		}
	}
	if len(term) >= 6 {
		for i := 1; i < len(b); i++ {
			for c := byte('a'); c <= 'z'; c++ {
				if c != b[i] {
					s := append([]byte(nil), b...)
					s[i] = c
					try(string(s))
				}
			}
		}
	}
	return out
}
