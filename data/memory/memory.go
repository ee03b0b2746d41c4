// Package memory is the workspace's query memory: every successful query
// with the question it answered, the tables it read and a short
// description of its result, per conversation and per workspace. Similar
// finds the earlier queries closest to a new question, so that the agent
// adapts one instead of starting over ("the same, for 2024").
//
// Entries live in a JSON-lines file beside the workspace database
// (FileName), appended and synced one at a time: a crash loses at most the
// entry being written, and a torn last line is skipped when read.
package memory

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/data/index"
)

// FileName is the memory's file inside the workspace folder.
const FileName = "query-memory.jsonl"

// Entry is one remembered query.
type Entry struct {
	ID       string    `json:"id"`
	Chat     string    `json:"chat,omitempty"` // the conversation it was asked in
	Question string    `json:"question"`
	SQL      string    `json:"sql"`
	Tables   []string  `json:"tables,omitempty"`
	Result   string    `json:"result,omitempty"` // "12 rows: region, total"
	At       time.Time `json:"at"`
	// Verdict is the user's on the answer this query backs: "up" (the
	// question and SQL are verified), "down" (wrong: never offered again),
	// or "" (none). A later line with a verdict updates the entry.
	Verdict string `json:"verdict,omitempty"`
}

// Verdicts an entry can carry.
const (
	Verified = "up"
	Rejected = "down"
)

// Match is an earlier query similar to a question.
type Match struct {
	Entry
	// Score is the questions' cosine similarity over their stemmed words,
	// weighted by rarity, 0–1; same-conversation entries get a small bonus.
	Score    float64 `json:"score"`
	SameChat bool    `json:"same_chat"`
	Verified bool    `json:"verified,omitempty"` // the user confirmed the answer this query backs
}

// Store is an open query memory. It is safe for concurrent use.
type Store struct {
	path string
	mu   sync.Mutex
	all  []remembered
	df   map[string]int // term → entries whose question has it
}

type remembered struct {
	Entry
	terms map[string]int
}

// Open reads the memory of the workspace in wsDir (empty when there is
// none yet).
func Open(wsDir string) (*Store, error) {
	s := &Store{path: filepath.Join(wsDir, FileName), df: map[string]int{}}
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open the query memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	bad := 0
	for sc.Scan() {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			bad++ // a line torn by a crash
			continue
		}
		s.add(e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the query memory: %w", err)
	}
	if bad > 0 {
		slog.Warn("skipped unreadable query memory lines", "subsystem", "memory", "lines", bad)
	}
	return s, nil
}

func (s *Store) add(e Entry) {
	if e.Verdict != "" {
		for i := range s.all {
			if s.all[i].Chat == e.Chat && s.all[i].Question == e.Question && s.all[i].SQL == e.SQL {
				s.all[i].Verdict = e.Verdict
				return
			}
		}
	}
	r := remembered{Entry: e, terms: map[string]int{}}
	for _, t := range index.Terms(e.Question) {
		r.terms[t]++
	}
	for t := range r.terms {
		s.df[t]++
	}
	s.all = append(s.all, r)
}

// Len returns the number of entries.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.all)
}

// Remember stores e (a successful query) and returns it with its ID and
// time filled in. An entry with the same chat, question and SQL as an
// earlier one is not stored twice.
func (s *Store) Remember(ctx context.Context, e Entry) (Entry, error) {
	if err := ctx.Err(); err != nil {
		return Entry{}, err
	}
	if strings.TrimSpace(e.SQL) == "" || strings.TrimSpace(e.Question) == "" {
		return Entry{}, errors.New("remember a query: question and SQL are required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.all {
		if r.Chat == e.Chat && r.Question == e.Question && r.SQL == e.SQL && (e.Verdict == "" || e.Verdict == r.Verdict) {
			return r.Entry, nil
		}
	}
	return s.append(e)
}

// Mark records the user's verdict (Verified or Rejected) on the queries
// sqls that answered question in conversation chat: each is remembered
// with it (added when it was not remembered yet). A verified query is
// offered first for similar questions; a rejected one never again.
func (s *Store) Mark(ctx context.Context, chat, question string, sqls []string, verdict string, tables []string) error {
	if verdict != Verified && verdict != Rejected {
		return fmt.Errorf("mark queries: the verdict must be %q or %q", Verified, Rejected)
	}
	for _, q := range sqls {
		if _, err := s.Remember(ctx, Entry{Chat: chat, Question: question, SQL: q, Tables: TablesIn(q, tables), Verdict: verdict}); err != nil {
			return err
		}
	}
	return nil
}

// append writes e as a new line and adds it; s.mu is held.
func (s *Store) append(e Entry) (Entry, error) {
	if e.ID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:]) // never fails on supported platforms
		e.ID = "m_" + hex.EncodeToString(b[:])
	}
	if e.At.IsZero() {
		e.At = time.Now().UTC()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return Entry{}, fmt.Errorf("encode a query memory entry: %w", err)
	}
	f, err := os.OpenFile(s.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return Entry{}, fmt.Errorf("open the query memory: %w", err)
	}
	_, werr := f.Write(append(line, '\n'))
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return Entry{}, fmt.Errorf("write the query memory: %w", err)
	}
	s.add(e)
	return e, nil
}

// Options narrow Similar.
type Options struct {
	Chat string // the current conversation: its entries rank a little higher
	K    int    // how many; 3 when 0
	// MinScore drops weaker matches; 0.3 when 0.
	MinScore float64
	// Tables, when set, are the tables that exist now: entries reading a
	// table no longer there are left out.
	Tables []string
	// VerifiedOnly keeps only verified entries (the prompt's examples).
	VerifiedOnly bool
}

// verifiedBonus is added to the score of a verified entry: among queries
// as close to the question, the one the user confirmed comes first.
const verifiedBonus = 0.15

// sameChatBonus is added to the score of entries from the current
// conversation: a follow-up usually adapts what was just asked.
const sameChatBonus = 0.1

// Similar returns the remembered queries whose questions are most like
// question, best first, newest first among equals.
func (s *Store) Similar(question string, o Options) []Match {
	if o.K <= 0 {
		o.K = 3
	}
	if o.MinScore <= 0 {
		o.MinScore = 0.3
	}
	var exists map[string]bool
	if o.Tables != nil {
		exists = make(map[string]bool, len(o.Tables))
		for _, t := range o.Tables {
			exists[strings.ToLower(t)] = true
		}
	}
	q := map[string]int{}
	for _, t := range index.Terms(question) {
		q[t]++
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := float64(len(s.all))
	idf := func(t string) float64 { return math.Log(1 + (n+1)/(float64(s.df[t])+1)) }
	qv := weigh(q, idf)
	var out []Match
	for _, r := range s.all {
		if exists != nil && !allExist(r.Tables, exists) || r.Verdict == Rejected || o.VerifiedOnly && r.Verdict != Verified {
			continue
		}
		score := cosine(qv, weigh(r.terms, idf))
		same := o.Chat != "" && r.Chat == o.Chat
		if same {
			score = math.Min(1, score+sameChatBonus)
		}
		if score < o.MinScore {
			continue
		}
		verified := r.Verdict == Verified
		if verified {
			score = math.Min(1, score+verifiedBonus)
		}
		out = append(out, Match{Entry: r.Entry, Score: score, SameChat: same, Verified: verified})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].At.After(out[j].At)
	})
	if len(out) > o.K {
		out = out[:o.K]
	}
	return out
}

func allExist(tables []string, exists map[string]bool) bool {
	for _, t := range tables {
		if !exists[strings.ToLower(t)] {
			return false
		}
	}
	return true
}

func weigh(tf map[string]int, idf func(string) float64) map[string]float64 {
	out := make(map[string]float64, len(tf))
	for t, n := range tf {
		out[t] = float64(n) * idf(t)
	}
	return out
}

func cosine(a, b map[string]float64) float64 {
	var dot, na, nb float64
	for t, w := range a {
		na += w * w
		dot += w * b[t]
	}
	for _, w := range b {
		nb += w * w
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

var reIdent = regexp.MustCompile(`"((?:[^"]|"")+)"|[A-Za-z_][A-Za-z0-9_]*`)

// TablesIn returns the tables of known that sql mentions (quoted or not,
// ignoring case), in the order known lists them.
func TablesIn(sql string, known []string) []string {
	seen := map[string]bool{}
	for _, m := range reIdent.FindAllStringSubmatch(sql, -1) {
		w := m[0]
		if m[1] != "" {
			w = strings.ReplaceAll(m[1], `""`, `"`)
		}
		seen[strings.ToLower(w)] = true
	}
	var out []string
	for _, k := range known {
		if seen[strings.ToLower(k)] {
			out = append(out, k)
		}
	}
	return out
}

// Verified returns the verified entries, oldest first.
func (s *Store) Verified() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Entry
	for _, r := range s.all {
		if r.Verdict == Verified {
			out = append(out, r.Entry)
		}
	}
	return out
}
