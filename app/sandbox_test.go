package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/tools/python/sandbox"
)

// fakeDocker is a Docker daemon on loopback that speaks the few endpoints
// the sandbox's build uses: ping, version, image inspect and the classic
// builder's JSON progress stream. The image exists once a build finished.
type fakeDocker struct {
	srv *httptest.Server

	mu     sync.Mutex
	built  bool
	builds int
	// hold, when set, stops the build stream after its first step until
	// the client leaves or hold is closed.
	hold chan struct{}
	// fail, when set, ends the build stream with this error.
	fail string
	// started is signalled when a build begins.
	started chan struct{}
	// labels are the image's labels once built.
	labels map[string]string
}

var apiPrefix = regexp.MustCompile(`^/v[0-9.]+`)

func startFakeDocker(t *testing.T) *fakeDocker {
	d := &fakeDocker{started: make(chan struct{}, 4)}
	d.srv = httptest.NewServer(d)
	t.Cleanup(d.srv.Close)
	return d
}

func (d *fakeDocker) host() string { return "tcp://" + strings.TrimPrefix(d.srv.URL, "http://") }

func (d *fakeDocker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := apiPrefix.ReplaceAllString(r.URL.Path, "")
	w.Header().Set("Api-Version", "1.47")
	switch {
	case path == "/_ping":
		w.Header().Set("Ostype", "linux")
		_, _ = io.WriteString(w, "OK")
	case path == "/version":
		writeJSON(w, http.StatusOK, map[string]any{"Version": "27.5.1", "ApiVersion": "1.47", "MinAPIVersion": "1.24", "Os": "linux", "Arch": "amd64"})
	case strings.HasPrefix(path, "/images/") && strings.HasSuffix(path, "/json"):
		d.mu.Lock()
		built := d.built
		d.mu.Unlock()
		if !built {
			writeJSON(w, http.StatusNotFound, map[string]any{"message": "No such image: " + strings.TrimSuffix(strings.TrimPrefix(path, "/images/"), "/json")})
			return
		}
		d.mu.Lock()
		labels := d.labels
		d.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"Id": "sha256:5eed", "Size": 734 << 20, "Config": map[string]any{"Labels": labels}})
	case path == "/build" && r.Method == http.MethodPost:
		d.build(w, r)
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "fake docker: no " + r.Method + " " + path})
	}
}

// build streams a three-step build, as the classic builder does.
func (d *fakeDocker) build(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	d.mu.Lock()
	d.builds++
	hold, fail := d.hold, d.fail
	d.mu.Unlock()
	d.started <- struct{}{}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	send := func(m map[string]any) {
		_ = enc.Encode(m)
		w.(http.Flusher).Flush()
	}
	send(map[string]any{"stream": "Step 1/3 : FROM python:3.12-slim\n"})
	for i := 1; i <= 4; i++ {
		time.Sleep(60 * time.Millisecond) // a download takes its time: progress events are spaced
		send(map[string]any{"status": "Downloading", "id": "a1b2", "progressDetail": map[string]any{"current": i * 10 << 20, "total": 40 << 20}})
	}
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	send(map[string]any{"stream": "Step 2/3 : RUN pip install -r requirements.txt\n"})
	send(map[string]any{"stream": "Collecting pandas==2.2.3\n"})
	if fail != "" {
		send(map[string]any{"error": fail, "errorDetail": map[string]any{"message": fail}})
		return
	}
	send(map[string]any{"stream": "Step 3/3 : USER 10001\n"})
	send(map[string]any{"stream": "Successfully built 5eed\n"})
	d.mu.Lock()
	d.built = true
	d.mu.Unlock()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// buildEvents returns the sandbox:build events published so far.
func buildEvents(r *recorder) []app.SandboxProgress {
	var out []app.SandboxProgress
	for _, d := range r.of(app.EventSandboxBuild) {
		out = append(out, d.(app.SandboxProgress))
	}
	return out
}

// The status bar says the image is missing and offers the build; the build
// reports its steps, and then Docker is ready.
func TestBuildSandboxReportsProgressAndMakesDockerReady(t *testing.T) {
	d := startFakeDocker(t)
	e := newEnv(t, setup{docker: d.host()})
	st, err := e.app.Status()
	if err != nil {
		t.Fatal(err)
	}
	if st.Docker.OK || st.Docker.Action != app.ActionBuildSandbox || !strings.Contains(st.Docker.Message, "not built yet") {
		t.Fatalf("before the build, Docker's check is %+v", st.Docker)
	}
	built, err := e.app.BuildSandbox(false)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	if built.Recipe != "dockerfile" || built.SizeBytes != 734<<20 || !strings.Contains(built.Versions, "pandas=") || built.Image == "" {
		t.Errorf("built %+v", built)
	}
	evs := buildEvents(e.rec)
	if len(evs) < 4 {
		t.Fatalf("%d sandbox:build events: %+v", len(evs), evs)
	}
	if first := evs[0]; first.Phase != app.BuildStarting {
		t.Errorf("first event %+v", first)
	}
	if last := evs[len(evs)-1]; last.Phase != app.BuildDone || last.Percent != 100 {
		t.Errorf("last event %+v", last)
	}
	var steps []string
	prev := -1.0
	for _, ev := range evs {
		if ev.Percent < prev {
			t.Errorf("progress went back from %.0f%% to %.0f%% (%s)", prev, ev.Percent, ev.Message)
		}
		prev = ev.Percent
		if ev.Phase == app.BuildBuilding && (len(steps) == 0 || steps[len(steps)-1] != ev.Message) {
			steps = append(steps, ev.Message)
		}
	}
	want := []string{"Step 1/3: FROM python:3.12-slim", "Step 2/3: RUN pip install -r requirements.txt", "Step 3/3: USER 10001"}
	if fmt.Sprint(steps) != fmt.Sprint(want) {
		t.Errorf("steps %q, want %q", steps, want)
	}
	// Within the first step the download moves the bar: N of 40 MB of
	// step 1 of 3 is N/40 of a third.
	downloads := 0
	for _, ev := range evs {
		var n int
		if _, err := fmt.Sscanf(ev.Detail, "%d of 40 MB", &n); err == nil && ev.Message == want[0] {
			downloads++
			if p := 100 * float64(n) / 40 / 3; ev.Percent < p-0.01 || ev.Percent > p+0.01 {
				t.Errorf("%d of 40 MB in step 1 of 3 is at %.1f%%, want %.1f%%", n, ev.Percent, p)
			}
		}
	}
	if downloads == 0 {
		t.Errorf("no event said the megabytes downloaded: %+v", evs)
	}
	// The status is checked again: Docker is ready now.
	deadline := time.Now().Add(5 * time.Second)
	for {
		var ok bool
		for _, s := range e.rec.of(app.EventStatusChanged) {
			ok = ok || s.(app.Status).Docker.OK
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no status:changed with Docker ready after the build")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A build can be canceled; a second build while one runs is refused.
func TestBuildSandboxCancelAndBusy(t *testing.T) {
	d := startFakeDocker(t)
	d.hold = make(chan struct{})
	e := newEnv(t, setup{docker: d.host()})
	done := make(chan error, 1)
	go func() {
		_, err := e.app.BuildSandbox(false)
		done <- err
	}()
	select {
	case <-d.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the build did not start")
	}
	if _, err := e.app.BuildSandbox(false); codeOf(t, err) != app.CodeBusy {
		t.Errorf("a second build while one runs: %v", err)
	}
	start := time.Now()
	if err := e.app.CancelSandboxBuild(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if codeOf(t, err) != app.CodeCanceled {
			t.Errorf("canceled build: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the build did not stop within 5 s of Cancel")
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("the build took %s to stop", took)
	}
	evs := buildEvents(e.rec)
	if last := evs[len(evs)-1]; last.Phase != app.BuildCanceled {
		t.Errorf("last event %+v", last)
	}
	// The image is still missing, and a new build may start.
	d.mu.Lock()
	d.hold = nil
	d.mu.Unlock()
	if _, err := e.app.BuildSandbox(false); err != nil {
		t.Errorf("a build after the canceled one: %v", err)
	}
}

// A recipe that fails says where and what to do, with code "docker"; a
// daemon that is not there says so before building anything.
func TestBuildSandboxFailures(t *testing.T) {
	d := startFakeDocker(t)
	d.fail = "failed to resolve source metadata for docker.io/library/python:3.12-slim: dial tcp: lookup registry-1.docker.io: no such host"
	e := newEnv(t, setup{docker: d.host()})
	_, err := e.app.BuildSandbox(false)
	if codeOf(t, err) != app.CodeDocker {
		t.Fatalf("failed build: %v", err)
	}
	ae := err.(*app.Error)
	if !strings.Contains(ae.Message, "RUN pip install") || !strings.Contains(ae.Hint, "--offline") {
		t.Errorf("failed build says %q, hint %q", ae.Message, ae.Hint)
	}
	evs := buildEvents(e.rec)
	if last := evs[len(evs)-1]; last.Phase != app.BuildFailed || last.Message != ae.Message {
		t.Errorf("last event %+v", last)
	}

	none := newEnv(t, setup{})
	_, err = none.app.BuildSandbox(false)
	if codeOf(t, err) != app.CodeDocker || !strings.Contains(err.(*app.Error).Message, "Docker is not running") {
		t.Errorf("no daemon: %v", err)
	}
}

// The Docker check: ready with the current recipe's image; ready but
// offering a rebuild with an older recipe's; without the daemon, no build
// is offered (it could not run).
func TestDockerCheckOffersTheBuildOnlyWhereItHelps(t *testing.T) {
	current := map[string]string{sandbox.LabelKind: sandbox.KindDockerfile, sandbox.LabelRecipe: sandbox.RecipeHash(sandbox.KindDockerfile)}
	older := map[string]string{sandbox.LabelKind: sandbox.KindDockerfile, sandbox.LabelRecipe: "0123456789abcdef"}
	for _, tc := range []struct {
		name   string
		labels map[string]string
		ok     bool
		action string
	}{
		{"current recipe", current, true, ""},
		{"older recipe", older, true, app.ActionBuildSandbox},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startFakeDocker(t)
			d.built, d.labels = true, tc.labels
			e := newEnv(t, setup{docker: d.host()})
			st, err := e.app.Status()
			if err != nil {
				t.Fatal(err)
			}
			if st.Docker.OK != tc.ok || st.Docker.Action != tc.action {
				t.Errorf("Docker check %+v, want ok %v, action %q", st.Docker, tc.ok, tc.action)
			}
		})
	}
	e := newEnv(t, setup{})
	st, err := e.app.Status()
	if err != nil {
		t.Fatal(err)
	}
	if st.Docker.OK || st.Docker.Action != "" || !strings.Contains(st.Docker.Message, "not running") {
		t.Errorf("without a daemon: %+v", st.Docker)
	}
}
