package web

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// subscriberBuffer is how many events a slow event stream may fall behind
// before it is dropped (the browser's EventSource then reconnects).
const subscriberBuffer = 4096

// keepAlive is how often an idle stream gets a comment line, so that
// proxies and the browser keep it open.
const keepAlive = 15 * time.Second

// Hub fans the App's events out to every open event stream. Pass its
// Publish as app.Options.Emit. It is safe for concurrent use.
type Hub struct {
	mu   sync.Mutex
	subs map[chan []byte]struct{}
	log  *slog.Logger
}

// NewHub returns a hub with no subscribers.
func NewHub() *Hub {
	return &Hub{subs: map[chan []byte]struct{}{}, log: slog.Default().With("subsystem", "web")}
}

// Publish sends the event to every stream; it never blocks. A stream that
// has fallen subscriberBuffer events behind is closed.
func (h *Hub) Publish(name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		h.log.Error("encode event", "event", name, "err", err)
		return
	}
	msg := []byte(fmt.Sprintf("event: %s\ndata: %s\n\n", name, b))
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- msg:
		default:
			h.log.Warn("event stream too slow: closing it", "event", name)
			delete(h.subs, ch)
			close(ch)
		}
	}
}

func (h *Hub) subscribe() chan []byte {
	ch := make(chan []byte, subscriberBuffer)
	h.mu.Lock()
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return ch
}

func (h *Hub) unsubscribe(ch chan []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[ch]; ok {
		delete(h.subs, ch)
		close(ch)
	}
}

// serveEvents streams events as text/event-stream until the client leaves.
func (h *Hub) serveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ch := h.subscribe()
	defer h.unsubscribe(ch)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// The retry delay, and a first line so the client sees the stream open.
	fmt.Fprint(w, "retry: 1000\n: connected\n\n")
	fl.Flush()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case msg, ok := <-ch:
			if !ok {
				return
			}
			if _, err := w.Write(msg); err != nil {
				return
			}
			fl.Flush()
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		}
	}
}
