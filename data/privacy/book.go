package privacy

import "sync"

// Book keeps one Masker per conversation for the life of the process, so
// that a follow-up question keeps the placeholders of the ones before it.
// It holds at most max conversations, forgetting the least recently used.
type Book struct {
	mu     sync.Mutex
	max    int
	tick   int
	byID   map[string]*Masker
	usedAt map[string]int
}

// NewBook returns a book of at most n conversations (at least 1).
func NewBook(n int) *Book {
	return &Book{max: max(1, n), byID: map[string]*Masker{}, usedAt: map[string]int{}}
}

// For returns the masker of conversation id, making it if needed. An empty
// id (a one-off question) gets a fresh masker each time.
func (b *Book) For(id string) *Masker {
	if id == "" {
		return NewMasker()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tick++
	m, ok := b.byID[id]
	if !ok {
		if len(b.byID) >= b.max {
			b.evict()
		}
		m = NewMasker()
		b.byID[id] = m
	}
	b.usedAt[id] = b.tick
	return m
}

func (b *Book) evict() {
	oldest, at := "", -1
	for id, t := range b.usedAt {
		if at < 0 || t < at {
			oldest, at = id, t
		}
	}
	delete(b.byID, oldest)
	delete(b.usedAt, oldest)
}
