package sandbox_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/loupeapp/loupe/tools/python/sandbox"
	"github.com/loupeapp/loupe/tools/python/sandbox/sandboxtest"
)

// stoppingProxy stands between a sandbox and the test daemon and, once
// armed, kills the exec's container just before it passes the next exec
// start on: the daemon then answers as it does when a container dies
// between the exec's creation and its start.
type stoppingProxy struct {
	armed  atomic.Bool
	killed atomic.Int32
}

var execStart = regexp.MustCompile(`/exec/([0-9a-f]+)/start$`)

// start serves the proxy on a unix socket in dir and returns its address.
func (p *stoppingProxy) start(t *testing.T, daemon string, dir string) string {
	t.Helper()
	sock := strings.TrimPrefix(daemon, "unix://")
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}
	cli, err := client.New(client.WithHost(daemon))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	rp := &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.SetURL(&url.URL{Scheme: "http", Host: "docker"}) },
		Transport: &http.Transport{DialContext: dial},
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m := execStart.FindStringSubmatch(r.URL.Path); m != nil && p.armed.CompareAndSwap(true, false) {
			ins, err := cli.ExecInspect(r.Context(), m[1], client.ExecInspectOptions{})
			if err == nil {
				w := cli.ContainerWait(r.Context(), ins.ContainerID, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
				if _, err = cli.ContainerKill(r.Context(), ins.ContainerID, client.ContainerKillOptions{Signal: "KILL"}); err == nil {
					select {
					case <-w.Result:
						p.killed.Add(1)
					case err = <-w.Error:
					}
				}
			}
			if err != nil {
				t.Errorf("stop the container before the exec starts: %v", err)
			}
		}
		rp.ServeHTTP(w, r)
	})
	path := filepath.Join(dir, "proxy.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return "unix://" + path
}

// A container that stops between the run's exec being created and started
// (its init killed from outside, the daemon restarting) does not pass off
// the daemon's refusal as the code's result: the run starts a new
// container and runs the code there, once.
func TestRunRestartsAStoppedContainer(t *testing.T) {
	daemon, image := sandboxtest.Image(t)
	p := &stoppingProxy{}
	host := p.start(t, daemon, t.TempDir())
	sb, err := sandbox.New(sandbox.Config{Host: host, Image: image})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	se := newSession(t, sb, nil)
	mustSucceed(t, run(t, se, "print('warm')"))

	p.armed.Store(true)
	out := run(t, se, "print('ran')")
	if p.killed.Load() != 1 {
		t.Fatalf("the proxy stopped %d containers, want 1", p.killed.Load())
	}
	mustSucceed(t, out)
	if stdout(out) != "ran" || !out.Cold {
		t.Errorf("after the container stopped: cold %v, exit %d, stdout %q, stderr %q", out.Cold, out.ExitCode, out.Stdout, out.Stderr)
	}
	if again := run(t, se, "print('again')"); stdout(again) != "again" || again.Cold {
		t.Errorf("the next run: cold %v, %q", again.Cold, again.Stdout)
	}
}
