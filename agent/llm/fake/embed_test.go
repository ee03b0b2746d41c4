package fake

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
)

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestVector(t *testing.T) {
	v := Vector("Staff roster: employee names and hire dates")
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if len(v) != Dims || math.Abs(n-1) > 1e-5 {
		t.Fatalf("len %d, norm² %f", len(v), n)
	}
	w := Vector("Staff roster: employee names and hire dates")
	for i := range v {
		if v[i] != w[i] {
			t.Fatal("not deterministic")
		}
	}
	q := Vector("What is our headcount?")
	if c := cosine(q, Vector("table personnel (full name, hired on)")); c < 0.4 {
		t.Errorf("headcount ~ personnel: cosine %.2f, want a synonym match", c)
	}
	if c := cosine(q, Vector("table weather (city, rain mm)")); math.Abs(c) > 0.2 {
		t.Errorf("headcount ~ weather: cosine %.2f, want near 0", c)
	}
	if c := cosine(Vector("orders by customers"), Vector("CustomerOrder")); c < 0.999 {
		t.Errorf("camelCase and plurals: cosine %.2f", c)
	}
	if z := Vector("the of and"); cosine(z, z) != 0 {
		t.Errorf("only stop words: %v", z[:4])
	}
}

func TestOllamaEmbedWire(t *testing.T) {
	s := Start(t, Options{Models: []Model{{Name: "nomic-embed-text", Embedding: true}}})
	res, body := post(t, s.OllamaURL()+"/api/embed", `{"model":"nomic-embed-text","input":["staff","weather"]}`)
	var out struct {
		Model      string
		Embeddings [][]float32
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || res.StatusCode != 200 {
		t.Fatalf("%d %s %v", res.StatusCode, body, err)
	}
	if out.Model != "nomic-embed-text" || len(out.Embeddings) != 2 || cosine(out.Embeddings[0], Vector("staff")) < 0.999 {
		t.Errorf("embed answer %s", body)
	}
	_, body = post(t, s.OllamaURL()+"/api/embed", `{"model":"nomic-embed-text","input":"one text","dimensions":64}`)
	json.Unmarshal([]byte(body), &out)
	if len(out.Embeddings) != 1 || len(out.Embeddings[0]) != 64 {
		t.Errorf("a single string with dimensions 64: %s", body)
	}
	res, body = post(t, s.OllamaURL()+"/api/embed", `{"model":"all-minilm","input":"x"}`)
	if res.StatusCode != 404 || !strings.Contains(body, "not found") {
		t.Errorf("unknown model: %d %s", res.StatusCode, body)
	}
	res, _ = post(t, s.OllamaURL()+"/api/embed", `{"model":"nomic-embed-text","input":[]}`)
	if res.StatusCode != 400 {
		t.Errorf("empty input: %d", res.StatusCode)
	}
	if s.Embedded() != 3 {
		t.Errorf("embedded %d texts, want 3", s.Embedded())
	}
	s.FailEmbeddings(Status(500, "model runner crashed"))
	res, body = post(t, s.OllamaURL()+"/api/embed", `{"model":"nomic-embed-text","input":"x"}`)
	if res.StatusCode != 500 || !strings.Contains(body, "model runner crashed") {
		t.Errorf("failing: %d %s", res.StatusCode, body)
	}
	_, body = post(t, s.OllamaURL()+"/api/show", `{"model":"nomic-embed-text"}`)
	if !strings.Contains(body, `"capabilities":["embedding"]`) {
		t.Errorf("show: %s", body)
	}
}

func TestOpenAIEmbedWire(t *testing.T) {
	s := Start(t, Options{APIKey: "sk-test"})
	req := func(body string) (*http.Response, string) {
		r, _ := http.NewRequest("POST", s.OpenAIURL()+"/embeddings", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer sk-test")
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b strings.Builder
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			b.WriteString(sc.Text())
		}
		return res, b.String()
	}
	_, body := req(`{"model":"text-embedding-3-small","input":["staff","weather"]}`)
	var out struct {
		Object string
		Data   []struct {
			Object    string
			Index     int
			Embedding json.RawMessage
		}
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		}
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err, body)
	}
	var v []float32
	json.Unmarshal(out.Data[1].Embedding, &v)
	if out.Object != "list" || len(out.Data) != 2 || out.Data[1].Index != 1 || out.Data[1].Object != "embedding" ||
		cosine(v, Vector("weather")) < 0.999 || out.Usage.PromptTokens == 0 {
		t.Errorf("float answer %.300s", body)
	}
	_, body = req(`{"model":"text-embedding-3-small","input":"staff","encoding_format":"base64"}`)
	json.Unmarshal([]byte(body), &out)
	var b64 string
	json.Unmarshal(out.Data[0].Embedding, &b64)
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(raw) != 4*Dims {
		t.Fatalf("base64 answer: %v, %d bytes", err, len(raw))
	}
	if x := math.Float32frombits(binary.LittleEndian.Uint32(raw)); x != Vector("staff")[0] {
		t.Errorf("base64 vector starts %v", x)
	}
	r, _ := http.NewRequest("POST", s.OpenAIURL()+"/embeddings", strings.NewReader(`{"model":"m","input":"x"}`))
	res, err := http.DefaultClient.Do(r)
	if err != nil || res.StatusCode != 401 {
		t.Errorf("without the key: %v %v", res.StatusCode, err)
	}
	res.Body.Close()
}

// pullLine is one NDJSON line of /api/pull.
type pullLine struct {
	Status    string
	Digest    string
	Total     int64
	Completed int64
	Error     string
}

func pull(t *testing.T, s *Server, body string) []pullLine {
	t.Helper()
	res, err := http.Post(s.OllamaURL()+"/api/pull", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("content type %q", ct)
	}
	var out []pullLine
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		var l pullLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

func TestPull(t *testing.T) {
	s := Start(t, Options{Models: []Model{{Name: "qwen3:8b", Tools: true}}, PullStep: time.Millisecond})
	lines := pull(t, s, `{"model":"nomic-embed-text"}`)
	if len(lines) < 5 || lines[0].Status != "pulling manifest" || lines[len(lines)-1].Status != "success" {
		t.Fatalf("lines %+v", lines)
	}
	var layer []pullLine
	for _, l := range lines {
		if l.Digest != "" && l.Digest == lines[1].Digest {
			layer = append(layer, l)
		}
	}
	if len(layer) != pullSteps+1 || layer[0].Completed != 0 || layer[len(layer)-1].Completed != layer[0].Total ||
		!strings.HasPrefix(layer[0].Digest, "sha256:") || layer[0].Status != "pulling "+layer[0].Digest[7:19] {
		t.Errorf("layer progress %+v", layer)
	}
	for i := 1; i < len(layer); i++ {
		if layer[i].Completed < layer[i-1].Completed {
			t.Errorf("progress went back: %+v", layer)
		}
	}
	if _, ok := s.model("nomic-embed-text"); !ok {
		t.Error("the pulled model is not offered")
	}
	if _, body := post(t, s.OllamaURL()+"/api/embed", `{"model":"nomic-embed-text","input":"x"}`); !strings.Contains(body, "embeddings") {
		t.Errorf("embed with the pulled model: %s", body)
	}
	lines = pull(t, s, `{"model":"nomic-embed-text","stream":false}`)
	if len(lines) != 1 || lines[0].Status != "success" {
		t.Errorf("not streamed: %+v", lines)
	}
	if n := len(s.models()); n != 2 {
		t.Errorf("%d models after pulling one twice, want 2", n)
	}
	lines = pull(t, s, `{"model":"no-such-model:1b"}`)
	if len(lines) != 1 || lines[0].Error != "pull model manifest: file does not exist" {
		t.Errorf("unknown model: %+v", lines)
	}
}
