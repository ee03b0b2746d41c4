package session

import (
	"context"
	"sync"

	"github.com/loupeapp/loupe/app/retrieve"
)

// Pool holds the databases a session is connected to: each opened (and
// its schema discovered) on first use, then shared by the runs of its
// conversations, the sidebar and imports. A connection that is edited or
// removed is evicted: closed once its last user lets go. Close closes
// them all. It is safe for concurrent use.
type Pool struct {
	mu     sync.Mutex
	conns  map[string]*pooled
	closed bool
	// marks is, for each open connection, what its user last noted of it
	// (the window: its notes file as it was when its tables were last
	// described with the notes).
	marks map[*retrieve.Remote]any
}

// pooled is one open connection and how many hold it.
type pooled struct {
	ready chan struct{} // closed once the open ended
	rem   *retrieve.Remote
	err   error
	refs  int
	gone  bool // evicted: closed when refs drops to 0
}

// NewPool returns an empty pool.
func NewPool() *Pool {
	return &Pool{conns: map[string]*pooled{}, marks: map[*retrieve.Remote]any{}}
}

// Acquire returns the open connection name, opening it with open when no
// one has; several callers share one open. The caller calls release once
// done with it. A failed open is not kept: the next Acquire tries again.
// Waiting for another caller's open ends with ctx. After Close it fails
// with CodeCanceled.
func (p *Pool) Acquire(ctx context.Context, name string, open func(context.Context) (*retrieve.Remote, error)) (rem *retrieve.Remote, release func(), err error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, nil, NewError(CodeCanceled, "Loupe is shutting down.", "")
	}
	c := p.conns[name]
	opener := c == nil
	if opener {
		c = &pooled{ready: make(chan struct{})}
		p.conns[name] = c
	}
	c.refs++
	p.mu.Unlock()
	if opener {
		r, err := open(ctx)
		p.mu.Lock()
		c.rem, c.err = r, err
		if err != nil && p.conns[name] == c {
			delete(p.conns, name)
		}
		close(c.ready)
		p.mu.Unlock()
	} else {
		select {
		case <-c.ready:
		case <-ctx.Done():
			p.release(c)
			return nil, nil, ctx.Err()
		}
	}
	if c.err != nil {
		p.release(c)
		return nil, nil, c.err
	}
	var once sync.Once
	return c.rem, func() { once.Do(func() { p.release(c) }) }, nil
}

func (p *Pool) release(c *pooled) {
	p.mu.Lock()
	c.refs--
	last := c.gone && c.refs == 0 && c.rem != nil
	if last {
		delete(p.marks, c.rem)
	}
	p.mu.Unlock()
	if last {
		_ = c.rem.Close() // the source and its schema index
	}
}

// Evict forgets the open connection name; it closes once unused.
func (p *Pool) Evict(name string) {
	p.mu.Lock()
	c := p.conns[name]
	delete(p.conns, name)
	last := false
	if c != nil {
		c.gone = true
		last = c.refs == 0 && c.rem != nil
		if last {
			delete(p.marks, c.rem)
		}
	}
	p.mu.Unlock()
	if last {
		_ = c.rem.Close() // the source and its schema index
	}
}

// Close evicts every connection and refuses new ones.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	names := make([]string, 0, len(p.conns))
	for n := range p.conns {
		names = append(names, n)
	}
	p.mu.Unlock()
	for _, n := range names {
		p.Evict(n)
	}
}

// Mark notes v of the open connection r, until it closes.
func (p *Pool) Mark(r *retrieve.Remote, v any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.marks[r] = v
}

// Marked is what was last noted of the open connection r.
func (p *Pool) Marked(r *retrieve.Remote) (any, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.marks[r]
	return v, ok
}
