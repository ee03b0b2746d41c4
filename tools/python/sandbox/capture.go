package sandbox

import (
	"sync"
	"sync/atomic"
)

// stream keeps the first head and the last tail bytes written to it and
// counts the rest. When the bytes written to all streams sharing a flood
// counter pass its limit, flood's channel is closed.
type stream struct {
	head, tail int
	buf        []byte // the first head bytes
	ring       []byte // the last tail bytes, a ring once full
	pos        int    // next write position in ring
	full       bool   // ring has wrapped
	total      int64
	flood      *flood
}

func newStream(head, tail int, f *flood) *stream {
	return &stream{head: head, tail: tail, flood: f}
}

func (s *stream) Write(p []byte) (int, error) {
	n := len(p)
	s.total += int64(n)
	s.flood.add(int64(n))
	if room := s.head - len(s.buf); room > 0 {
		k := min(room, len(p))
		s.buf = append(s.buf, p[:k]...)
		p = p[k:]
	}
	if s.tail <= 0 || len(p) == 0 {
		return n, nil
	}
	if len(p) >= s.tail {
		s.ring = append(s.ring[:0], p[len(p)-s.tail:]...)
		s.pos, s.full = 0, true
		return n, nil
	}
	for len(p) > 0 {
		if !s.full && len(s.ring) < s.tail {
			k := min(s.tail-len(s.ring), len(p))
			s.ring = append(s.ring, p[:k]...)
			p = p[k:]
			if len(s.ring) == s.tail {
				s.full, s.pos = true, 0
			}
			continue
		}
		k := copy(s.ring[s.pos:], p)
		s.pos = (s.pos + k) % s.tail
		p = p[k:]
	}
	return n, nil
}

// Text is what was kept: the head, then, when bytes were dropped, the
// tail; Dropped is how many bytes lie between them.
func (s *stream) text() (head, tail string, dropped int64) {
	var t []byte
	if s.full {
		t = append(append(t, s.ring[s.pos:]...), s.ring[:s.pos]...)
	} else {
		t = s.ring
	}
	return string(s.buf), string(t), s.total - int64(len(s.buf)) - int64(len(t))
}

// flood counts bytes across streams and closes hit once limit is passed.
type flood struct {
	limit int64
	n     atomic.Int64
	once  sync.Once
	hit   chan struct{}
}

func newFlood(limit int64) *flood { return &flood{limit: limit, hit: make(chan struct{})} }

func (f *flood) add(n int64) {
	if f.n.Add(n) > f.limit {
		f.once.Do(func() { close(f.hit) })
	}
}
