package fake

import "net/http"

// Seen is one request the server received, of any kind (chat, model
// listing, embeddings…): enough to check what a client sent, such as its
// Authorization header.
type Seen struct {
	Method string
	Path   string
	Header http.Header
}

// Seen returns every request received so far, in order.
func (s *Server) Seen() []Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Seen(nil), s.seen...)
}

// Authorizations returns the credentials of every request received so far
// (its Authorization and api-key headers), in order; requests without any
// give none.
func (s *Server) Authorizations() []string {
	var out []string
	for _, r := range s.Seen() {
		for _, h := range []string{"Authorization", "Api-Key"} {
			if v := r.Header.Get(h); v != "" {
				out = append(out, h+": "+v)
			}
		}
	}
	return out
}
