package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/loupeapp/loupe/tools/python/sandbox"
	"github.com/loupeapp/loupe/tools/python/sandbox/sandboxtest"
)

// envCrash makes the test binary a Loupe that starts a sandbox container
// and is then killed (see TestMain).
const envCrash = "LOUPE_SANDBOX_TEST_CRASH"

func TestMain(m *testing.M) {
	if os.Getenv(envCrash) != "" {
		crash()
		return
	}
	os.Exit(m.Run())
}

// crash starts a container, says so on stdout, and waits to be killed.
func crash() {
	host, image, _ := strings.Cut(os.Getenv(envCrash), " ")
	sb, err := sandbox.New(sandbox.Config{Host: host, Image: image})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "loupe-crash-")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	se := sb.NewSession(dir)
	if _, err := se.Run(context.Background(), "print(1)"); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("started", dir)
	time.Sleep(time.Minute)
}

// Later runs reuse the warm container and skip its start.
func TestWarmReuse(t *testing.T) {
	sb := newSandbox(t, sandbox.Limits{})
	se := newSession(t, sb, nil)
	cold := run(t, se, "print('hello')")
	mustSucceed(t, cold)
	if !cold.Cold {
		t.Fatal("the first run did not start a container")
	}
	fastest := time.Hour
	for range 3 {
		warm := run(t, se, "print('hello')")
		mustSucceed(t, warm)
		if warm.Cold || stdout(warm) != "hello" {
			t.Fatalf("warm run: cold %v, %q", warm.Cold, warm.Stdout)
		}
		fastest = min(fastest, warm.Elapsed)
	}
	t.Logf("first run (container start) %.0f ms, warm run %.0f ms", ms(cold.Elapsed), ms(fastest))
	if fastest >= cold.Elapsed {
		t.Errorf("the warm run (%s) is not faster than the cold one (%s)", fastest, cold.Elapsed)
	}
	// State in /tmp survives between runs of a session.
	mustSucceed(t, run(t, se, "open('/tmp/state', 'w').write('kept')"))
	if out := run(t, se, "print(open('/tmp/state').read())"); stdout(out) != "kept" {
		t.Errorf("/tmp between runs: %q %q", out.Stdout, out.Stderr)
	}
}

// A failing script's traceback names the lines of the code, not the
// runner's, and the exit status is the script's.
func TestTraceback(t *testing.T) {
	sb := newSandbox(t, sandbox.Limits{})
	se := newSession(t, sb, nil)
	cases := []struct {
		name, code string
		exit       int
		want       []string
	}{
		{"exception", "x = 1\ny = 0\nprint('before')\nprint(x / y)\n", 1,
			[]string{"Traceback (most recent call last):", `File "analysis.py", line 4, in <module>`, "print(x / y)", "ZeroDivisionError: division by zero"}},
		{"syntax error", "print('a'\nfor\n", 1, []string{`File "analysis.py", line`, "SyntaxError"}},
		{"sys.exit", "import sys\nsys.exit(3)\n", 3, nil},
		{"missing input", "df = load('nothing')\n", 1, []string{"KeyError", "no input called 'nothing'"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := run(t, se, c.code)
			if out.ExitCode != c.exit {
				t.Fatalf("exit %d, want %d\n%s", out.ExitCode, c.exit, out.Stderr)
			}
			errText := out.Stderr.String()
			for _, w := range c.want {
				if !strings.Contains(errText, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errText)
				}
			}
			if strings.Contains(errText, "<string>") || strings.Contains(errText, "_main") || strings.Contains(errText, "exec(compile") {
				t.Errorf("the runner's own frames show:\n%s", errText)
			}
		})
	}
}

// Cancelling the context kills the run within a second.
func TestCancelKillsTheRun(t *testing.T) {
	sb := newSandbox(t, sandbox.Limits{})
	se := newSession(t, sb, nil)
	mustSucceed(t, run(t, se, "pass")) // start the container first
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := se.Run(ctx, "import time\nprint('sleeping', flush=True)\ntime.sleep(30)\n")
		done <- err
	}()
	time.Sleep(1500 * time.Millisecond)
	cancel()
	at := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
		t.Logf("returned %.0f ms after the cancel", ms(time.Since(at)))
		if d := time.Since(at); d > time.Second {
			t.Errorf("returned %s after the cancel", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the run did not stop")
	}
	mustSucceed(t, run(t, se, "print('next')"))
}

// Files left in the output folder come back; past the limits, they are
// named in Skipped.
func TestOutputFiles(t *testing.T) {
	sb := newSandbox(t, sandbox.Limits{MaxFiles: 3})
	se := newSession(t, sb, nil)
	out := run(t, se, `import os
os.makedirs("sub", exist_ok=True)
open("a.csv", "w").write("x,y\n1,2\n")
open("sub/b.txt", "w").write("in a folder")
for i in range(3):
    open("n%d.txt" % i, "w").write(str(i))
`)
	mustSucceed(t, out)
	if len(out.Files) != 3 || out.Files[0].Name != "a.csv" || string(out.Files[0].Data) != "x,y\n1,2\n" || len(out.Skipped) != 2 {
		t.Fatalf("files %v skipped %v", names(out.Files), out.Skipped)
	}
	// The next run starts with an empty output folder.
	out = run(t, se, "import os\nprint(os.listdir('.'))")
	if stdout(out) != "[]" || len(out.Files) != 0 {
		t.Errorf("output folder not emptied: %q %v", out.Stdout, names(out.Files))
	}
}

func names(fs []sandbox.File) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// A Loupe killed while its container runs leaves it behind; Cleanup at the
// next start removes it by its label, and leaves live owners' alone.
func TestCleanupAfterCrash(t *testing.T) {
	host, image := sandboxtest.Image(t)
	sb := newSandbox(t, sandbox.Limits{})
	mine := newSession(t, sb, nil)
	mustSucceed(t, run(t, mine, "pass"))

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envCrash+"="+host+" "+image)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 512)
	n, _ := pipe.Read(buf)
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(buf[:n])), "started ")
	if !ok {
		cmd.Process.Kill()
		t.Fatalf("helper: %s", buf[:n])
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	pid := cmd.Process.Pid
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	cli, err := client.New(client.WithHost(host))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	hostname, _ := os.Hostname()
	owned := func(owner string) int {
		list, err := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true,
			Filters: make(client.Filters).Add("label", sandbox.LabelOwner+"="+owner)})
		if err != nil {
			t.Fatal(err)
		}
		return len(list.Items)
	}
	crashed := hostname + "/" + strconv.Itoa(pid)
	if owned(crashed) != 1 {
		t.Fatalf("the crashed process left %d containers, want 1", owned(crashed))
	}
	removed, err := sb.Cleanup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if removed < 1 || owned(crashed) != 0 {
		t.Errorf("removed %d; %d left of the crashed process", removed, owned(crashed))
	}
	if owned(hostname+"/"+strconv.Itoa(os.Getpid())) != 1 {
		t.Errorf("Cleanup removed a live process's container")
	}
	mustSucceed(t, run(t, mine, "print('alive')"))
}
