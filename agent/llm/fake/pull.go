package fake

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// DefaultLibrary is what /api/pull can fetch when Options.Library is
// empty.
var DefaultLibrary = []string{"qwen3:8b", "qwen3:14b", "gpt-oss:20b", "llama3.1:8b", "nomic-embed-text", "mxbai-embed-large"}

// pullSteps is how many progress lines each layer of a pull sends.
const pullSteps = 10

// layers are the blobs a pulled model is made of: weights, then small
// files (template, licence, parameters), as Ollama's pull reports them.
var layers = []struct {
	kind string
	size int64
}{{"model", 1_000_000}, {"template", 1_000}, {"params", 100}}

// ollamaPull answers Ollama's POST /api/pull: NDJSON progress lines
// ({"status", "digest", "total", "completed"}) ending in
// {"status":"success"}, or, for a model the library does not have, the
// error line Ollama sends. A pulled model is offered by /api/tags and
// /api/show afterwards. With "stream": false only the last line is sent.
func (s *Server) ollamaPull(w http.ResponseWriter, r *http.Request) {
	var in struct {
		modelRef
		Stream *bool `json:"stream"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	name := in.name()
	stream := in.Stream == nil || *in.Stream
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	fl := w.(http.Flusher)
	line := func(v any) bool {
		if err := enc.Encode(v); err != nil {
			return false
		}
		fl.Flush()
		return true
	}
	if !s.inLibrary(name) {
		line(map[string]string{"error": "pull model manifest: file does not exist"})
		return
	}
	if stream && !line(map[string]string{"status": "pulling manifest"}) {
		return
	}
	for _, l := range layers {
		sum := sha256.Sum256([]byte(name + "/" + l.kind))
		digest := fmt.Sprintf("sha256:%x", sum)
		for i := 0; i <= pullSteps && stream; i++ {
			p := map[string]any{"status": "pulling " + digest[7:19], "digest": digest, "total": l.size, "completed": l.size * int64(i) / pullSteps}
			if !line(p) || !s.wait(r.Context(), s.opts.PullStep) {
				return
			}
		}
	}
	if stream {
		for _, st := range []string{"verifying sha256 digest", "writing manifest"} {
			if !line(map[string]string{"status": st}) {
				return
			}
		}
	}
	s.mu.Lock()
	if !s.offered(name) {
		s.pulled = append(s.pulled, Model{Name: name, Tools: !strings.Contains(name, "embed"), Embedding: strings.Contains(name, "embed"), Size: layers[0].size})
	}
	s.mu.Unlock()
	line(map[string]string{"status": "success"})
}

func (s *Server) inLibrary(name string) bool {
	lib := s.opts.Library
	if len(lib) == 0 {
		lib = DefaultLibrary
	}
	for _, l := range lib {
		if sameModel(l, name) {
			return true
		}
	}
	return false
}

// offered reports whether the listing already holds name. s.mu is held.
func (s *Server) offered(name string) bool {
	for _, m := range s.modelsLocked() {
		if sameModel(m.Name, name) {
			return true
		}
	}
	return false
}
