package web_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/app/web"
)

// TestBridgeRefusesCallsWithoutTheToken is the attack of issue 16 §4: any
// local program, or any page on a loopback origin, could call every method
// (read /etc/passwd as a dataset, change the settings). Now each needs the
// token, and pages only from the server's own origin or one allowed.
func TestBridgeRefusesCallsWithoutTheToken(t *testing.T) {
	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })
	b := newBridge(t)
	wrong, err := web.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	own := b.url // http://127.0.0.1:PORT, the page's own origin
	for _, tc := range []struct {
		name   string
		header http.Header
		status int
	}{
		{"no token", http.Header{}, http.StatusUnauthorized},
		{"no token, own origin", http.Header{"Origin": {own}}, http.StatusUnauthorized},
		{"wrong token", http.Header{web.TokenHeader: {wrong}}, http.StatusUnauthorized},
		{"token with a character changed", http.Header{web.TokenHeader: {b.token[:len(b.token)-1] + flip(b.token[len(b.token)-1])}}, http.StatusUnauthorized},
		{"token prefix", http.Header{web.TokenHeader: {b.token[:20]}}, http.StatusUnauthorized},
		{"token in another header", http.Header{"Authorization": {"Bearer " + b.token}}, http.StatusUnauthorized},
		{"token from a foreign origin", http.Header{web.TokenHeader: {b.token}, "Origin": {"http://evil.example"}}, http.StatusForbidden},
		{"token from another loopback origin", http.Header{web.TokenHeader: {b.token}, "Origin": {"http://127.0.0.1:4173"}}, http.StatusForbidden},
		{"token from an opaque origin", http.Header{web.TokenHeader: {b.token}, "Origin": {"null"}}, http.StatusForbidden},
		{"no token from a foreign origin", http.Header{"Origin": {"http://evil.example"}}, http.StatusForbidden},
		{"token, no origin (a program)", http.Header{web.TokenHeader: {b.token}}, http.StatusOK},
		{"token from the own origin", http.Header{web.TokenHeader: {b.token}, "Origin": {own}}, http.StatusOK},
		{"token from the allowed origin", http.Header{web.TokenHeader: {b.token}, "Origin": {"http://localhost:5173"}}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, body := b.raw(t, "ListChats", []any{}, tc.header)
			if got != tc.status {
				t.Fatalf("%d %s, want %d", got, body, tc.status)
			}
			if got == http.StatusOK {
				return
			}
			var e struct{ Code, Message, Hint string }
			if err := json.Unmarshal(body, &e); err != nil || e.Message == "" || !strings.Contains(e.Hint, "loupe serve") {
				t.Errorf("the refusal does not say what to do: %s", body)
			}
		})
	}

	// The attacks themselves: nothing happens without the token.
	if got, body := b.raw(t, "OpenFiles", []any{[]string{"/etc/passwd"}}, nil); got != http.StatusUnauthorized {
		t.Fatalf("OpenFiles without the token: %d %s", got, body)
	}
	if got, body := b.raw(t, "SaveSettings", []any{map[string]any{"provider": "openai", "model": "x",
		"ollamaURL": "http://127.0.0.1:11434", "openaiBaseURL": "http://evil.example/v1", "maxSteps": 8, "timeoutSeconds": 60, "theme": "light"}},
		http.Header{"Origin": {own}}); got != http.StatusUnauthorized {
		t.Fatalf("SaveSettings without the token: %d %s", got, body)
	}
	var datasets []any
	b.call(t, "ListDatasets", []any{}, &datasets)
	var settings map[string]any
	b.call(t, "GetSettings", []any{}, &settings)
	if len(datasets) != 0 || settings["theme"] != "dark" || settings["openaiBaseURL"] != "https://api.openai.com/v1" {
		t.Errorf("refused calls changed the state: datasets %v, settings %v", datasets, settings)
	}

	// The method list and the event stream need it too; the page does not.
	for _, path := range []string{"/api/", "/api/events", "/api"} {
		res, err := http.Get(b.url + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d", path, res.StatusCode)
		}
	}
	for _, path := range []string{"/", "/assets/app.js"} {
		res, err := http.Get(b.url + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s (the page) without the token: %d", path, res.StatusCode)
		}
	}
	if strings.Contains(logs.String(), b.token) || strings.Contains(logs.String(), wrong) {
		t.Errorf("a token is in the log:\n%s", logs.String())
	}
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

// TestBridgePreflight: the Vite dev server's page (allowed) may send the
// token header across origins; other pages get no CORS permission.
func TestBridgePreflight(t *testing.T) {
	b := newBridge(t)
	for _, tc := range []struct {
		origin string
		status int
	}{
		{"http://localhost:5173", http.StatusNoContent},
		{"http://localhost:5174", http.StatusForbidden},
		{"http://evil.example", http.StatusForbidden},
	} {
		req, _ := http.NewRequest(http.MethodOptions, b.url+"/api/ListChats", nil)
		req.Header.Set("Origin", tc.origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type,x-loupe-token")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		allow := res.Header.Get("Access-Control-Allow-Origin")
		if res.StatusCode != tc.status {
			t.Errorf("preflight from %s: %d, want %d", tc.origin, res.StatusCode, tc.status)
		}
		if tc.status == http.StatusNoContent && (allow != tc.origin || !strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), web.TokenHeader)) {
			t.Errorf("preflight from %s: allow origin %q, headers %q", tc.origin, allow, res.Header.Get("Access-Control-Allow-Headers"))
		}
		if tc.status != http.StatusNoContent && allow != "" {
			t.Errorf("preflight from %s is allowed: %q", tc.origin, allow)
		}
	}
}

func TestHandlerNeedsAToken(t *testing.T) {
	for _, token := range []string{"", "short"} {
		if _, err := web.Handler(nil, web.NewHub(), nil, web.Options{Token: token}); !errors.Is(err, web.ErrNoToken) {
			t.Errorf("token %q: %v", token, err)
		}
	}
	a, _ := web.NewToken()
	c, _ := web.NewToken()
	if a == c || len(a) < 43 {
		t.Errorf("tokens %q and %q: not fresh or shorter than 256 bits", a, c)
	}
}

func TestParseOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"http://localhost:5173":   "http://localhost:5173",
		"HTTP://LocalHost:5173/":  "http://localhost:5173",
		"http://127.0.0.1:4173":   "http://127.0.0.1:4173",
		"http://[::1]:5173":       "http://[::1]:5173",
		"http://evil.example":     "",
		"http://localhost:5173/x": "",
		"localhost:5173":          "",
		"ftp://localhost":         "",
		"http://u:p@localhost:1":  "",
	} {
		got, err := web.ParseOrigin(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
