package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

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
			"--config", t.TempDir(), "--assets", assets, "--save-dir", t.TempDir()}, strings.NewReader(""), &out, &errb)
	}()
	listening := regexp.MustCompile(`loupe serve: listening on (http://127\.0\.0\.1:\d+)`)
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == ""; {
		if m := listening.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no listening line; stdout %q stderr %q", out.String(), errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	res, err := http.Post(url+"/api/SampleQuestions", "application/json", strings.NewReader("[]"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "revenue") {
		t.Errorf("SampleQuestions: %d %s", res.StatusCode, body)
	}
	res, err = http.Get(url + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), "Loupe test") {
		t.Errorf("the --assets folder is not served: %s", body)
	}
	// An open event stream does not keep the server from stopping.
	events, err := http.Get(url + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer events.Body.Close()
	stop()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("exit %d: %s", code, errb.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop on cancel")
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
}
