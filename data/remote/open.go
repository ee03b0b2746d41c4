package remote

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// Opener connects to the source a profile describes. password is "" when
// the profile needs none.
type Opener func(ctx context.Context, p Profile, password string) (Source, error)

var (
	openersMu sync.RWMutex
	openers   = map[Kind]Opener{}
)

// Register makes an engine available to Open; each engine's package calls
// it from init, so importing the package (data/remote/pg, …) is enough.
func Register(k Kind, o Opener) {
	openersMu.Lock()
	defer openersMu.Unlock()
	openers[k] = o
}

// Registered lists the kinds whose packages are linked in.
func Registered() []Kind {
	openersMu.RLock()
	defer openersMu.RUnlock()
	var out []Kind
	for k := range openers {
		out = append(out, k)
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}

// Open checks p and connects to it. The connection is tried at once, so a
// wrong host, password, database or TLS mode fails here with a *ConnError.
func Open(ctx context.Context, p Profile, password string) (Source, error) {
	p, err := p.Normalize()
	if err != nil {
		return nil, err
	}
	openersMu.RLock()
	o := openers[p.Kind]
	openersMu.RUnlock()
	if o == nil {
		return nil, fmt.Errorf("no connector for %s is linked into this program", p.Kind)
	}
	return o(ctx, p, password)
}
