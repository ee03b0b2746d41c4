package index

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/registry"
)

// Analyzer names, registered with bleve so that an index reopened later
// finds them.
const (
	// identAnalyzer splits identifiers and English text alike: snake_case,
	// camelCase and digits become words, then lower case, common
	// abbreviations spelled out, stop words dropped, Porter stems.
	identAnalyzer = "loupe_ident"
	// queryAnalyzer is identAnalyzer plus the words a question is made of
	// that say nothing about which table holds the answer ("show", "list",
	// "how many").
	queryAnalyzer = "loupe_query"
)

func init() {
	must(registry.RegisterAnalyzer(identAnalyzer, func(_ map[string]any, c *registry.Cache) (analysis.Analyzer, error) {
		return newAnalyzer(c, false)
	}))
	must(registry.RegisterAnalyzer(queryAnalyzer, func(_ map[string]any, c *registry.Cache) (analysis.Analyzer, error) {
		return newAnalyzer(c, true)
	}))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func newAnalyzer(c *registry.Cache, question bool) (analysis.Analyzer, error) {
	lower, err := c.TokenFilterNamed(lowercase.Name)
	if err != nil {
		return nil, err
	}
	stop, err := c.TokenFilterNamed(en.StopName)
	if err != nil {
		return nil, err
	}
	stem, err := c.TokenFilterNamed(porter.Name)
	if err != nil {
		return nil, err
	}
	filters := []analysis.TokenFilter{lower, shortFilter{}, wordFilter{question: question}, stop}
	if question {
		filters = append(filters, questionFilter{})
	}
	filters = append(filters, stem)
	return &analysis.DefaultAnalyzer{Tokenizer: identTokenizer{}, TokenFilters: filters}, nil
}

// identTokenizer splits text into words the way identifiers are built:
// at every character that is not a letter or digit, between a lower-case
// letter and an upper-case one (orderDate), before the last capital of a
// run followed by lower case (XMLFile → XML File), and between letters and
// digits (address2 → address 2).
type identTokenizer struct{}

func (identTokenizer) Tokenize(in []byte) analysis.TokenStream {
	var out analysis.TokenStream
	start := -1
	var prev rune
	emit := func(end int) {
		if start >= 0 && end > start {
			out = append(out, &analysis.Token{Start: start, End: end, Term: append([]byte(nil), in[start:end]...),
				Position: len(out) + 1, Type: analysis.AlphaNumeric})
		}
		start = -1
	}
	for i := 0; i < len(in); {
		r, size := utf8.DecodeRune(in[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			emit(i)
			prev = 0
			i += size
			continue
		}
		if start >= 0 && boundary(prev, r, in[i+size:]) {
			emit(i)
		}
		if start < 0 {
			start = i
		}
		prev = r
		i += size
	}
	emit(len(in))
	return out
}

// boundary reports whether a word ends between prev and r; rest follows r.
func boundary(prev, r rune, rest []byte) bool {
	switch {
	case unicode.IsDigit(prev) != unicode.IsDigit(r):
		return true
	case unicode.IsLower(prev) && unicode.IsUpper(r):
		return true
	case unicode.IsUpper(prev) && unicode.IsUpper(r):
		next, _ := utf8.DecodeRune(rest)
		return unicode.IsLower(next)
	}
	return false
}

// shortFilter drops one-character tokens ("s" of "customer's", the "x" of
// "x2"): they match everywhere and mean little.
type shortFilter struct{}

func (shortFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := in[:0]
	for _, t := range in {
		if utf8.RuneCount(t.Term) > 1 {
			out = append(out, t)
		}
	}
	return out
}

// wordFilter spells out the abbreviations schemas are full of (qty, amt,
// cust) and adds the base form of irregular verbs (sold → sell), so that a
// question in plain words meets a terse column name. Both the indexed text
// and the question go through it, but an abbreviation that is a word of
// its own (cat) is spelled out only in identifiers, where it is kept too:
// a question about cats is not about categories.
type wordFilter struct{ question bool }

func (f wordFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(in))
	for _, t := range in {
		if full, ok := abbreviations[string(t.Term)]; ok {
			switch {
			case !wordsToo[string(t.Term)]:
				t.Term = []byte(full)
			case !f.question:
				out = append(out, &analysis.Token{Start: t.Start, End: t.End, Term: []byte(full), Position: t.Position, Type: t.Type})
			}
		}
		out = append(out, t)
		for _, extra := range related[string(t.Term)] {
			out = append(out, &analysis.Token{Start: t.Start, End: t.End, Term: []byte(extra), Position: t.Position, Type: t.Type})
		}
	}
	return out
}

// questionFilter drops words that ask rather than name: "show me the list
// of…", "how many…", "what is the total…".
type questionFilter struct{}

func (questionFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := in[:0]
	for _, t := range in {
		if !questionWords[string(t.Term)] {
			out = append(out, t)
		}
	}
	return out
}

// Terms returns the terms a question is searched for: its words split,
// lower-cased, spelled out, stop words dropped and stemmed — the index's
// own analysis. Equal terms mean the same word.
func Terms(text string) []string {
	return analyzeWith(queryAnalyzer, text)
}

// IdentTerms is Terms for identifiers and descriptions: it keeps the words
// a question would drop ("list", "total").
func IdentTerms(text string) []string {
	return analyzeWith(identAnalyzer, text)
}

var (
	analyzersOnce sync.Once
	analyzers     map[string]analysis.Analyzer
)

func analyzeWith(name, text string) []string {
	analyzersOnce.Do(func() {
		c := registry.NewCache()
		analyzers = map[string]analysis.Analyzer{}
		for _, n := range []string{identAnalyzer, queryAnalyzer} {
			a, err := c.AnalyzerNamed(n)
			must(err) // registered in init
			analyzers[n] = a
		}
	})
	toks := analyzers[name].Analyze([]byte(text))
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		out = append(out, string(t.Term))
	}
	return out
}

// Words splits an identifier into its lower-case words, abbreviations
// spelled out, nothing dropped or stemmed: "sbCustId" → sb customer id.
func Words(ident string) []string {
	toks := identTokenizer{}.Tokenize([]byte(ident))
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		w := strings.ToLower(string(t.Term))
		if full, ok := abbreviations[w]; ok {
			w = full
		}
		out = append(out, w)
	}
	return out
}
