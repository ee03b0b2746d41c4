package cli

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupeapp/loupe/app/web"
)

// The tests serve as main does: web mode handed in (the CLI does not
// import the window's package).
func init() {
	Web = WebServer{
		ParseOrigin: web.ParseOrigin,
		Serve: func(ctx context.Context, c ServeConfig, ready func(net.Addr, string)) error {
			return web.Serve(ctx, web.ServeOptions{Addr: c.Addr, WorkspaceDir: c.WorkspaceDir, ConfigDir: c.ConfigDir,
				SaveDir: c.SaveDir, Assets: c.Assets, AllowOrigins: c.AllowOrigins, Ready: ready})
		},
	}
}

// syncBuffer is a bytes.Buffer safe to read while the command writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServe(t *testing.T) {
	assets := t.TempDir()
	if err := os.WriteFile(filepath.Join(assets, "index.html"), []byte("<title>Loupe test</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--workspace", t.TempDir(),
			"--config", t.TempDir(), "--assets", assets, "--save-dir", t.TempDir(), "--allow-origin", "http://localhost:5173"}, strings.NewReader(""), &out, &errb)
	}()
	// The first line is the address with the token in its fragment.
	listening := regexp.MustCompile(`^loupe serve: listening on (http://127\.0\.0\.1:\d+)/#token=([A-Za-z0-9_-]{43})\n`)
	var url, token string
	for deadline := time.Now().Add(10 * time.Second); url == ""; {
		if m := listening.FindStringSubmatch(out.String()); m != nil {
			url, token = m[1], m[2]
		} else if time.Now().After(deadline) {
			t.Fatalf("no listening line first; stdout %q stderr %q", out.String(), errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	call := func(method, token, origin string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, url+"/api/"+method, strings.NewReader("[]"))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set(web.TokenHeader, token)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	if code, body := call("SampleQuestions", token, ""); code != 200 || !strings.Contains(body, "revenue") {
		t.Errorf("SampleQuestions: %d %s", code, body)
	}
	if code, body := call("SampleQuestions", token, url); code != 200 {
		t.Errorf("SampleQuestions from the own origin: %d %s", code, body)
	}
	if code, body := call("SampleQuestions", token, "http://localhost:5173"); code != 200 {
		t.Errorf("SampleQuestions from the --allow-origin: %d %s", code, body)
	}
	if code, body := call("SampleQuestions", "", ""); code != http.StatusUnauthorized || !strings.Contains(body, "#token=") {
		t.Errorf("SampleQuestions without the token: %d %s", code, body)
	}
	if code, _ := call("SampleQuestions", token+"x", ""); code != http.StatusUnauthorized {
		t.Errorf("SampleQuestions with a wrong token: %d", code)
	}
	if code, body := call("SampleQuestions", token, "http://localhost:8080"); code != http.StatusForbidden || !strings.Contains(body, "--allow-origin") {
		t.Errorf("SampleQuestions from a foreign origin: %d %s", code, body)
	}
	res, err := http.Get(url + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), "Loupe test") {
		t.Errorf("the --assets folder is not served: %s", body)
	}
	// An open event stream does not keep the server from stopping.
	req, _ := http.NewRequest(http.MethodGet, url+"/api/events", nil)
	req.Header.Set(web.TokenHeader, token)
	events, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer events.Body.Close()
	if events.StatusCode != 200 {
		t.Errorf("events: %d", events.StatusCode)
	}
	stop()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("exit %d: %s", code, errb.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop on cancel")
	}
	// The token is on the first line only, never in a log line.
	if strings.Count(out.String(), token) != 2 || strings.Contains(errb.String(), token) {
		t.Errorf("the token is printed elsewhere than the addresses: stdout %q stderr %q", out.String(), errb.String())
	}
}

func TestServeRefusesNonLoopback(t *testing.T) {
	code, _, errs := run(t, "", "serve", "--addr", "0.0.0.0:0", "--workspace", t.TempDir())
	if code != ExitError || !strings.Contains(errs, "loopback") {
		t.Errorf("exit %d: %s", code, errs)
	}
	code, _, _ = run(t, "", "serve", "--assets", filepath.Join(t.TempDir(), "missing"))
	if code != ExitUsage {
		t.Errorf("missing assets folder: exit %d", code)
	}
	code, _, errs = run(t, "", "serve", "--allow-origin", "http://evil.example", "--workspace", t.TempDir())
	if code != ExitUsage || !strings.Contains(errs, "loopback") {
		t.Errorf("a foreign --allow-origin: exit %d: %s", code, errs)
	}
}
