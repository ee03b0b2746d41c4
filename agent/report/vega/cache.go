package vega

import (
	"bytes"
	"crypto/sha256"
	"sync"
)

// svgCache keeps the SVG of recently drawn specs, evicting the oldest.
// Callers get their own copy. A nil *svgCache caches nothing.
type svgCache struct {
	mu    sync.Mutex
	max   int
	order [][sha256.Size]byte
	svgs  map[[sha256.Size]byte][]byte
}

func newSVGCache(max int) *svgCache {
	if max <= 0 {
		return nil
	}
	return &svgCache{max: max, svgs: map[[sha256.Size]byte][]byte{}}
}

func (c *svgCache) get(spec []byte) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	k := sha256.Sum256(spec)
	c.mu.Lock()
	defer c.mu.Unlock()
	svg, ok := c.svgs[k]
	return bytes.Clone(svg), ok
}

func (c *svgCache) put(spec, svg []byte) {
	if c == nil {
		return
	}
	k := sha256.Sum256(spec)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.svgs[k]; ok {
		return
	}
	if len(c.order) >= c.max {
		delete(c.svgs, c.order[0])
		c.order = c.order[1:]
	}
	c.order = append(c.order, k)
	c.svgs[k] = bytes.Clone(svg)
}
