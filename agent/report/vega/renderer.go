package vega

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// SpecError says a spec cannot be drawn: Vega-Lite refused it, Vega failed
// on it, or it asked for external data. Msg is Vega's own message.
type SpecError struct {
	Msg  string
	Logs []string // warnings Vega logged before failing
}

func (e *SpecError) Error() string { return "vega: cannot draw the chart: " + e.Msg }

// ErrStalled is returned when a render neither finished nor had anything
// left to run (a Vega defect, not a spec problem).
var ErrStalled = errors.New("vega: render stalled with nothing left to run")

// Renderer draws Vega-Lite specs as SVG on a pool of warm engines. It is safe
// for concurrent use; at most Size renders run at once, others wait.
type Renderer struct {
	slots chan struct{} // one token per engine that may exist or run
	// IdleTTL is how long an unused engine is kept warm (each holds ~20 MB).
	idleTTL time.Duration
	// timeout bounds one render when ctx has no earlier deadline.
	timeout time.Duration

	mu    sync.Mutex
	idle  []*idleEngine
	cache *svgCache
}

type idleEngine struct {
	e     *engine
	since time.Time
}

// Options tune a Renderer; zero values take the defaults.
type Options struct {
	Size    int           // engines at most; default min(2, GOMAXPROCS)
	IdleTTL time.Duration // default 2 minutes
	Timeout time.Duration // per render; default 30 s
	// CacheSize is how many drawn charts are kept by spec, so that
	// exporting the same report again draws nothing; default 64, negative
	// turns the cache off.
	CacheSize int
}

// NewRenderer returns a Renderer; engines start on first use (or Warm).
func NewRenderer(o Options) *Renderer {
	if o.Size <= 0 {
		o.Size = min(2, runtime.GOMAXPROCS(0))
	}
	if o.IdleTTL <= 0 {
		o.IdleTTL = 2 * time.Minute
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.CacheSize == 0 {
		o.CacheSize = 64
	}
	return &Renderer{slots: make(chan struct{}, o.Size), idleTTL: o.IdleTTL, timeout: o.Timeout,
		cache: newSVGCache(o.CacheSize)}
}

// Shared returns the process-wide Renderer with default options.
var Shared = sync.OnceValue(func() *Renderer { return NewRenderer(Options{}) })

// Warm starts one engine ahead of use so that the first SVG call is fast.
func (r *Renderer) Warm(ctx context.Context) error {
	e, err := r.acquire(ctx)
	if err != nil {
		return err
	}
	r.release(e)
	return nil
}

// SVG draws spec, a Vega-Lite JSON spec with its data inline, and returns the
// SVG document. A spec Vega cannot draw is a *SpecError; ctx ending stops the
// render at once and returns ctx.Err().
func (r *Renderer) SVG(ctx context.Context, spec []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if svg, ok := r.cache.get(spec); ok {
		return svg, nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	e, err := r.acquire(ctx)
	if err != nil {
		return nil, err
	}
	svg, err := e.render(ctx, string(spec))
	if e.broken {
		r.discard()
	} else {
		r.release(e)
	}
	if err != nil {
		return nil, err
	}
	r.cache.put(spec, []byte(svg))
	return []byte(svg), nil
}

// acquire takes a slot and a warm engine, starting one if none is idle.
func (r *Renderer) acquire(ctx context.Context) (*engine, error) {
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	r.mu.Lock()
	if n := len(r.idle); n > 0 {
		e := r.idle[n-1].e
		r.idle = r.idle[:n-1]
		r.mu.Unlock()
		return e, nil
	}
	r.mu.Unlock()
	e, err := newEngine(ctx)
	if err != nil {
		<-r.slots
		return nil, err
	}
	return e, nil
}

func (r *Renderer) release(e *engine) {
	r.mu.Lock()
	r.idle = append(r.idle, &idleEngine{e: e, since: time.Now()})
	r.mu.Unlock()
	<-r.slots
	time.AfterFunc(r.idleTTL, r.reap)
}

func (r *Renderer) discard() { <-r.slots }

// reap drops engines idle for IdleTTL or longer.
func (r *Renderer) reap() {
	r.mu.Lock()
	defer r.mu.Unlock()
	keep := r.idle[:0]
	for _, ie := range r.idle {
		if time.Since(ie.since) < r.idleTTL {
			keep = append(keep, ie)
		}
	}
	clear(r.idle[len(keep):])
	r.idle = keep
}

// Idle reports how many warm engines are waiting for work.
func (r *Renderer) Idle() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.idle)
}

// engine is one goja runtime with Vega loaded. Not safe for concurrent use.
type engine struct {
	rt       *goja.Runtime
	render_  goja.Callable
	runTimer goja.Callable
	takeLogs goja.Callable
	broken   bool // interrupted or in an unknown state: never reuse
}

const maxTimers = 10000

func newEngine(ctx context.Context) (*engine, error) {
	progs, err := programs()
	if err != nil {
		return nil, err
	}
	rt := goja.New()
	if err := rt.Set("__loupeTextWidth", textWidth); err != nil {
		return nil, fmt.Errorf("vega: start engine: %w", err)
	}
	stop := interruptOnDone(ctx, rt)
	for _, p := range progs {
		if _, err = rt.RunProgram(p); err != nil {
			break
		}
	}
	if stop() {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("vega: start engine: %w", err)
	}
	e := &engine{rt: rt}
	for name, dst := range map[string]*goja.Callable{
		"__loupeRender": &e.render_, "__loupeRunTimer": &e.runTimer, "__loupeTakeLogs": &e.takeLogs,
	} {
		fn, ok := goja.AssertFunction(rt.Get(name))
		if !ok {
			return nil, fmt.Errorf("vega: start engine: %s is not defined", name)
		}
		*dst = fn
	}
	return e, nil
}

// interruptOnDone interrupts rt when ctx ends. The returned func stops
// watching, waits until the watcher is gone, and reports whether it
// interrupted rt (an interrupted runtime is never reused).
func interruptOnDone(ctx context.Context, rt *goja.Runtime) (stop func() bool) {
	done := make(chan struct{})
	fired := make(chan bool, 1)
	go func() {
		select {
		case <-ctx.Done():
			rt.Interrupt(ctx.Err())
			fired <- true
		case <-done:
			fired <- false
		}
	}()
	return func() bool {
		close(done)
		return <-fired
	}
}

func (e *engine) render(ctx context.Context, spec string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	stop := interruptOnDone(ctx, e.rt)
	svg, err := e.run(spec)
	if stop() {
		e.broken = true
		return "", ctx.Err()
	}
	return svg, err
}

func (e *engine) run(spec string) (string, error) {
	v, err := e.render_(goja.Undefined(), e.rt.ToValue(spec))
	if err != nil {
		return "", e.specError(err)
	}
	p, ok := v.Export().(*goja.Promise)
	if !ok {
		e.broken = true
		return "", fmt.Errorf("vega: render returned %T, not a promise", v.Export())
	}
	for i := 0; p.State() == goja.PromiseStatePending; i++ {
		more, err := e.runTimer(goja.Undefined())
		if err != nil {
			return "", e.specError(err)
		}
		if !more.ToBoolean() || i >= maxTimers {
			e.broken = true
			return "", ErrStalled
		}
	}
	if p.State() == goja.PromiseStateRejected {
		return "", e.specError(jsError(p.Result()))
	}
	e.logs() // clear warnings of a successful render
	return p.Result().String(), nil
}

// jsError turns a rejection value into an error carrying its message.
func jsError(v goja.Value) error {
	if o, ok := v.(*goja.Object); ok {
		if m := o.Get("message"); m != nil && !goja.IsUndefined(m) {
			return errors.New(m.String())
		}
	}
	return errors.New(v.String())
}

func (e *engine) specError(err error) error {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		return err
	}
	msg := err.Error()
	var ex *goja.Exception
	if errors.As(err, &ex) {
		msg = ex.Value().String()
	}
	return &SpecError{Msg: trimLog(strings.TrimPrefix(msg, "Error: ")), Logs: e.logs()}
}

func (e *engine) logs() []string {
	v, err := e.takeLogs(goja.Undefined())
	if err != nil {
		return nil
	}
	var out []string
	if err := e.rt.ExportTo(v, &out); err != nil {
		return nil
	}
	for i := range out {
		out[i] = trimLog(out[i])
	}
	return out
}
