package store

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSearch caps a search's text, in runes.
const MaxSearch = 200

// Hit is a conversation a Search found: where the text first appears in
// it (In: "title", "question" or "answer"), a snippet around that place,
// and in how many of its messages it appears.
type Hit struct {
	Conversation Conversation
	In           string
	Snippet      Snippet
	Matches      int
}

// Snippet is a short passage around a match, in three parts so that the
// match can be marked: Before + Match + After. Whitespace is collapsed, and
// Before or After start or end with "…" where the passage was cut.
type Snippet struct {
	Before string `json:"before"`
	Match  string `json:"match"`
	After  string `json:"after"`
}

// Search finds the conversations whose name or messages (questions and
// answers as shown, not tool results) contain text, ignoring case, most
// recently updated first, at most limit of them (all when limit <= 0).
// A blank text finds none. An ASCII text is matched by SQLite (LIKE), any
// other by reading every message; either reads each message once.
func (s *Store) Search(ctx context.Context, text string, limit int) ([]Hit, error) {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return []Hit{}, nil
	}
	if utf8.RuneCountInString(text) > MaxSearch {
		text = string([]rune(text)[:MaxSearch])
	}
	convs, err := s.Conversations(ctx)
	if err != nil {
		return nil, err
	}
	found, err := s.searchMessages(ctx, text)
	if err != nil {
		return nil, err
	}
	out := []Hit{}
	for _, c := range convs {
		h, ok := found[c.ID]
		if !ok {
			start, end := foldIndex(c.Name, text)
			if start < 0 {
				continue
			}
			h = &Hit{In: "title", Snippet: snippetAt(c.Name, start, end)}
		}
		h.Conversation = c
		out = append(out, *h)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// searchMessages returns, per conversation, its first message holding
// text (by seq) and how many do.
func (s *Store) searchMessages(ctx context.Context, text string) (map[string]*Hit, error) {
	q := `SELECT conversation_id, role, content FROM messages WHERE content != ''`
	var args []any
	if isASCII(text) { // SQLite's LIKE ignores the case of ASCII letters only
		q += ` AND content LIKE ? ESCAPE '\'`
		// A space also stands for a line break or a run of spaces
		// (foldIndex decides).
		args = append(args, "%"+strings.ReplaceAll(likeEscape(text), " ", "%")+"%")
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY conversation_id, seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: search the conversations: %w", err)
	}
	defer rows.Close()
	out := map[string]*Hit{}
	for rows.Next() {
		var conv, role, content string
		if err := rows.Scan(&conv, &role, &content); err != nil {
			return nil, fmt.Errorf("store: search the conversations: %w", err)
		}
		start, end := foldIndex(content, text)
		if start < 0 {
			continue
		}
		if h, ok := out[conv]; ok {
			h.Matches++
			continue
		}
		in := "answer"
		if Role(role) == User {
			in = "question"
		}
		out[conv] = &Hit{In: in, Snippet: snippetAt(content, start, end), Matches: 1}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search the conversations: %w", err)
	}
	return out, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// likeEscape escapes LIKE's wildcards with \.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// foldIndex returns the byte span of the first place in s where sub
// appears, ignoring case (Unicode simple folding) and treating any run of
// whitespace in s as the single spaces of sub; -1, -1 when it does not.
func foldIndex(s, sub string) (int, int) {
	if sub == "" {
		return -1, -1
	}
	first, _ := utf8.DecodeRuneInString(sub)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if equalFold(r, first) {
			if end := prefixFold(s[i:], sub); end >= 0 {
				return i, i + end
			}
		}
		i += n
	}
	return -1, -1
}

// prefixFold returns the length in s of sub at its start, or -1.
func prefixFold(s, sub string) int {
	i := 0
	for _, want := range sub {
		if i >= len(s) {
			return -1
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if want == ' ' && unicode.IsSpace(r) {
			for i < len(s) {
				r, n = utf8.DecodeRuneInString(s[i:])
				if !unicode.IsSpace(r) {
					break
				}
				i += n
			}
			continue
		}
		if !equalFold(r, want) {
			return -1
		}
		i += n
	}
	return i
}

func equalFold(a, b rune) bool {
	if a == b {
		return true
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

// Around a snippet's match: how many runes of context it keeps.
const (
	snippetBefore = 60
	snippetAfter  = 100
)

// snippetAt is the passage of s around s[start:end].
func snippetAt(s string, start, end int) Snippet {
	before := []rune(s[:start])
	after := []rune(s[end:])
	sn := Snippet{Match: collapse(s[start:end])}
	if len(before) > snippetBefore {
		cut := string(before[len(before)-snippetBefore:])
		if i := strings.IndexFunc(cut, unicode.IsSpace); i >= 0 && i < len(cut)-1 {
			cut = cut[i:]
		}
		sn.Before = "…" + strings.TrimLeft(collapse(cut), " ")
	} else {
		sn.Before = strings.TrimLeft(collapse(string(before)), " ")
	}
	if len(after) > snippetAfter {
		cut := string(after[:snippetAfter])
		if i := strings.LastIndexFunc(cut, unicode.IsSpace); i > 0 {
			cut = cut[:i]
		}
		sn.After = strings.TrimRight(collapse(cut), " ") + "…"
	} else {
		sn.After = strings.TrimRight(collapse(string(after)), " ")
	}
	return sn
}

// collapse makes every run of whitespace one space and drops Markdown's
// emphasis and heading marks, which a snippet shows as text.
func collapse(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case r == '*' || r == '#' || r == '`':
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}
