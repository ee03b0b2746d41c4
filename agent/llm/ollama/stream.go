package ollama

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/ollama/ollama/api"
)

// maxLine bounds one NDJSON line, as api.Client does.
const maxLine = 8 << 20

// chatStream posts req to /api/chat and calls fn for each streamed
// response. It behaves like api.Client.Chat (same request, same errors:
// api.StatusError, api.AuthorizationError, an in-stream "error" as a plain
// error) but its line buffer starts small and grows, where api.Client
// allocates 8 MB per call — which alone cost ~2 ms per request.
func (p *Provider) chatStream(ctx context.Context, req *api.ChatRequest, fn func(api.ChatResponse) error) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base.JoinPath("/api/chat").String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/x-ndjson")
	hreq.Header.Set("User-Agent", "loupe")
	res, err := p.http.Do(hreq)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= http.StatusBadRequest {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		return statusError(res, b)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 0, 16<<10), maxLine)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r struct {
			api.ChatResponse
			Error string `json:"error"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		if r.Error != "" {
			return errors.New(r.Error)
		}
		if err := fn(r.ChatResponse); err != nil {
			return err
		}
	}
	return sc.Err()
}

// statusError reads an error response the way api.Client does.
func statusError(res *http.Response, body []byte) error {
	var e struct {
		Error     string `json:"error"`
		SigninURL string `json:"signin_url"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == "" {
		e.Error = string(bytes.TrimSpace(body))
	}
	if res.StatusCode == http.StatusUnauthorized {
		return api.AuthorizationError{StatusCode: res.StatusCode, Status: res.Status, SigninURL: e.SigninURL}
	}
	return api.StatusError{StatusCode: res.StatusCode, Status: res.Status, ErrorMessage: e.Error}
}
