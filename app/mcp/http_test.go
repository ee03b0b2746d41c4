package mcp_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupeapp/loupe/app/mcp"
	"github.com/loupeapp/loupe/data/privacy"
)

// bearer adds the token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Over HTTP the server listens on loopback only, refuses a request
// without the token (401) or addressed to another host (403), and serves
// a client that sends the token; the token is kept in the config folder.
func TestHTTPToken(t *testing.T) {
	for _, bad := range []string{"0.0.0.0:7481", "192.168.1.4:80", ":7481", "example.org:80"} {
		if err := mcp.CheckLoopback(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	for _, ok := range []string{"127.0.0.1:0", "[::1]:7481", "localhost:7481"} {
		if err := mcp.CheckLoopback(ok); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	dir := t.TempDir()
	token, err := mcp.Token(dir)
	if err != nil || len(token) != 64 {
		t.Fatalf("token %q %v", token, err)
	}
	if again, _ := mcp.Token(dir); again != token {
		t.Fatal("the token changed between starts")
	}
	w := newWorld(t, privacy.Open)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	addrc := make(chan net.Addr, 1)
	go func() { _ = w.srv.ServeHTTP(ctx, "127.0.0.1:0", token, func(a net.Addr) { addrc <- a }) }()
	url := "http://" + (<-addrc).String() + mcp.Path
	for _, tc := range []struct {
		name, auth, host string
		want             int
	}{
		{"no token", "", "", http.StatusUnauthorized},
		{"wrong token", "Bearer " + strings.Repeat("0", 64), "", http.StatusUnauthorized},
		{"rebinding", "Bearer " + token, "evil.example:80", http.StatusForbidden},
	} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "go-http", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_sql", Arguments: map[string]any{"sql": "SELECT count(*) AS n FROM orders"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "40") {
		t.Fatalf("run_sql over HTTP: %v %s", err, text(res))
	}
}
