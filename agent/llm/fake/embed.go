package fake

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
)

// FailEmbeddings makes every later embedding request (both wires) fail
// with f: FaultStatus answers with its status, FaultDrop closes the
// connection, FaultHang hangs; nil makes them work again.
func (s *Server) FailEmbeddings(f *Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedFault = f
}

// LimitEmbedInput makes every later embedding request that holds a text of
// more than chars bytes fail with 400 "the input length exceeds the
// context length", as a model with a small context does (both wires); 0
// lifts the limit.
func (s *Server) LimitEmbedInput(chars int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedLimit = chars
}

// Embedded counts the texts embedded so far (failed requests excluded).
func (s *Server) Embedded() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embedded
}

// embedInput reads an "input" that is a string or an array of strings.
func embedInput(raw json.RawMessage) ([]string, error) {
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("input must be a string or an array of strings (token arrays are not supported by the fake)")
	}
	if len(many) == 0 {
		return nil, errors.New("input is empty")
	}
	return many, nil
}

// embed runs the checks common to both wires and returns the vectors of
// texts, or writes the failure and returns nil.
func (s *Server) embed(w http.ResponseWriter, r *http.Request, wr wire, model string, raw json.RawMessage, dims int) [][]float32 {
	s.mu.Lock()
	f := s.embedFault
	s.mu.Unlock()
	if f != nil {
		switch f.Kind {
		case FaultDrop:
			drop(w)
		case FaultHang:
			s.hang(r.Context())
		default:
			if f.Kind != FaultStatus {
				f = Status(http.StatusInternalServerError, f.message())
			}
			wr.writeError(w, f)
		}
		return nil
	}
	if _, ok := s.model(model); !ok {
		wr.writeError(w, wr.notFound(model))
		return nil
	}
	texts, err := embedInput(raw)
	if err != nil {
		wr.writeError(w, Status(http.StatusBadRequest, err.Error()))
		return nil
	}
	s.mu.Lock()
	limit := s.embedLimit
	s.mu.Unlock()
	for _, t := range texts {
		if limit > 0 && len(t) > limit {
			wr.writeError(w, Status(http.StatusBadRequest, "the input length exceeds the context length"))
			return nil
		}
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := Vector(t)
		if dims > 0 && dims < len(v) {
			v = renormalise(v[:dims])
		}
		out[i] = v
	}
	s.mu.Lock()
	s.embedded += len(texts)
	s.embeddedTexts = append(s.embeddedTexts, texts...)
	s.mu.Unlock()
	return out
}

// EmbeddedTexts returns the texts embedded so far, in order (failed
// requests excluded): what an embedding model server would have been told.
func (s *Server) EmbeddedTexts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.embeddedTexts...)
}

// renormalise scales v to unit length in place (a zero vector stays zero).
func renormalise(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// ollamaEmbed answers Ollama's POST /api/embed.
func (s *Server) ollamaEmbed(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Model      string          `json:"model"`
		Input      json.RawMessage `json:"input"`
		Dimensions int             `json:"dimensions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		ollamaWire{}.writeError(w, Status(http.StatusBadRequest, err.Error()))
		return
	}
	vs := s.embed(w, r, ollamaWire{}, in.Model, in.Input, in.Dimensions)
	if vs == nil {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"model": in.Model, "embeddings": vs,
		"total_duration": 1_000_000, "load_duration": 100_000, "prompt_eval_count": tokens(in.Input)})
}

// openaiEmbed answers the OpenAI-compatible POST /v1/embeddings, as float
// arrays or, with encoding_format "base64", little-endian float32 bytes.
func (s *Server) openaiEmbed(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var in struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		EncodingFormat string          `json:"encoding_format"`
		Dimensions     int             `json:"dimensions"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		openaiWire{}.writeError(w, Status(http.StatusBadRequest, "fake: cannot decode request: "+err.Error()))
		return
	}
	if in.EncodingFormat != "" && in.EncodingFormat != "float" && in.EncodingFormat != "base64" {
		openaiWire{}.writeError(w, Status(http.StatusBadRequest, fmt.Sprintf("encoding_format %q is not float or base64", in.EncodingFormat)))
		return
	}
	vs := s.embed(w, r, openaiWire{}, in.Model, in.Input, in.Dimensions)
	if vs == nil {
		return
	}
	data := make([]map[string]any, len(vs))
	for i, v := range vs {
		var emb any = v
		if in.EncodingFormat == "base64" {
			b := make([]byte, 4*len(v))
			for j, x := range v {
				binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(x))
			}
			emb = base64.StdEncoding.EncodeToString(b)
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": emb}
	}
	n := tokens(in.Input)
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "model": in.Model, "data": data,
		"usage": map[string]int{"prompt_tokens": n, "total_tokens": n}})
}

func tokens(raw json.RawMessage) int {
	texts, _ := embedInput(raw)
	return estimate(texts...)
}
