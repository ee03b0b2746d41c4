package sandbox_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/tools/python/sandbox"
)

// attackLimits keep the attacks short: a 6 s timeout and a 4 MB flood
// limit; memory, pids, CPU and the tmpfs sizes are the defaults.
var attackLimits = sandbox.Limits{Timeout: 6 * time.Second, FloodLimit: 4 << 20}

// Each isolation property is proven by trying to break it from inside the
// container. Every attack ends in a clean outcome, and the session still
// runs code afterwards.
func TestIsolation(t *testing.T) {
	sb := newSandbox(t, attackLimits)
	se := newSession(t, sb, map[string]string{"data.csv": "a,b\n1,2\n"})
	cases := []struct {
		name  string
		code  string
		check func(t *testing.T, out *sandbox.Outcome)
	}{
		{"no network", networkPy, func(t *testing.T, out *sandbox.Outcome) {
			mustSucceed(t, out)
			s := stdout(out)
			if strings.Contains(s, "CONNECTED") || strings.Contains(s, "RESOLVED") || !strings.Contains(s, "interfaces ['lo']") {
				t.Errorf("the network is reachable:\n%s", s)
			}
		}},
		{"no writes outside /tmp and /output", writePy, func(t *testing.T, out *sandbox.Outcome) {
			mustSucceed(t, out)
			s := stdout(out)
			if strings.Contains(s, "WROTE") || strings.Count(s, "EROFS") < 6 {
				t.Errorf("writes outside /tmp and /output:\n%s", s)
			}
		}},
		{"/tmp is capped at 64 MB", fillPy("/tmp/fill", 200), func(t *testing.T, out *sandbox.Outcome) {
			mustSucceed(t, out)
			if mb := filled(t, stdout(out)); mb > 64 {
				t.Errorf("wrote %d MB into /tmp", mb)
			}
		}},
		{"/output is capped at 32 MB", fillPy("/output/fill", 200), func(t *testing.T, out *sandbox.Outcome) {
			mustSucceed(t, out)
			if mb := filled(t, stdout(out)); mb > 32 {
				t.Errorf("wrote %d MB into /output", mb)
			}
		}},
		{"/dev/shm is capped at 16 MB", fillPy("/dev/shm/fill", 200), func(t *testing.T, out *sandbox.Outcome) {
			mustSucceed(t, out)
			if mb := filled(t, stdout(out)); mb > 16 {
				t.Errorf("wrote %d MB into /dev/shm", mb)
			}
		}},
		{"no root, no capabilities, no setuid", privilegePy, func(t *testing.T, out *sandbox.Outcome) {
			mustSucceed(t, out)
			s := stdout(out)
			for _, want := range []string{"uid 1000 1000 gid 1000", "CapEff 0000000000000000", "CapPrm 0000000000000000",
				"CapBnd 0000000000000000", "NoNewPrivs 1", "setuid refused", "mount refused"} {
				if !strings.Contains(s, want) {
					t.Errorf("missing %q:\n%s", want, s)
				}
			}
			if strings.Contains(s, "ROOT") {
				t.Errorf("became root:\n%s", s)
			}
		}},
		{"no host files; inputs read-only", hostFilesPy(t), func(t *testing.T, out *sandbox.Outcome) {
			mustSucceed(t, out)
			s := stdout(out)
			if strings.Contains(s, "READ ") || strings.Contains(s, "WROTE") || strings.Contains(s, "HOST HOSTNAME") ||
				!strings.Contains(s, "inputs ['data.csv'] a,b") || !strings.Contains(s, "input write refused EROFS") {
				t.Errorf("host files or inputs:\n%s", s)
			}
		}},
		{"forks stop at the pids limit", forkCountPy, func(t *testing.T, out *sandbox.Outcome) {
			mustSucceed(t, out)
			m := regexp.MustCompile(`forks (\d+) BlockingIOError`).FindStringSubmatch(stdout(out))
			if m == nil {
				t.Fatalf("no pids limit:\n%s\n%s", out.Stdout, out.Stderr)
			}
			if n, _ := strconv.Atoi(m[1]); n >= 128 {
				t.Errorf("%d processes forked under a 128 pids limit", n)
			}
			if out.Recycled {
				t.Errorf("the runner should have killed the sleeping children, keeping the container")
			}
		}},
		{"a fork bomb is stopped", "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n", func(t *testing.T, out *sandbox.Outcome) {
			if out.Stopped != sandbox.StopTimeout || !out.Recycled {
				t.Errorf("fork bomb: stopped %q recycled %v exit %d", out.Stopped, out.Recycled, out.ExitCode)
			}
		}},
		{"a memory hog is killed", memoryPy, func(t *testing.T, out *sandbox.Outcome) {
			if !out.OOMKilled || out.ExitCode != 137 {
				t.Fatalf("memory hog: oom %v exit %d\n%s\n%s", out.OOMKilled, out.ExitCode, out.Stdout, out.Stderr)
			}
			lines := strings.Split(stdout(out), "\n")
			if mb, _ := strconv.Atoi(strings.Fields(lines[len(lines)-1])[0]); mb > 512 {
				t.Errorf("held %d MB under a 512 MB limit", mb)
			}
		}},
		{"sleep past the timeout is killed", "import time\nprint('going to sleep', flush=True)\ntime.sleep(60)\n", func(t *testing.T, out *sandbox.Outcome) {
			if out.Stopped != sandbox.StopTimeout || !out.Recycled || stdout(out) != "going to sleep" {
				t.Errorf("sleep: stopped %q recycled %v stdout %q", out.Stopped, out.Recycled, out.Stdout)
			}
			if out.Elapsed < attackLimits.Timeout || out.Elapsed > attackLimits.Timeout+3*time.Second {
				t.Errorf("stopped after %s with a %s timeout", out.Elapsed, attackLimits.Timeout)
			}
		}},
		{"closing stdout and stderr does not escape the timeout", "import os, time\nos.close(1)\nos.close(2)\ntime.sleep(60)\n", func(t *testing.T, out *sandbox.Outcome) {
			if out.Stopped != sandbox.StopTimeout || !out.Recycled {
				t.Errorf("closed streams: stopped %q recycled %v exit %d", out.Stopped, out.Recycled, out.ExitCode)
			}
		}},
		{"an output flood is capped", "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n", func(t *testing.T, out *sandbox.Outcome) {
			if out.Stopped != sandbox.StopFlood || !out.Recycled {
				t.Fatalf("flood: stopped %q recycled %v", out.Stopped, out.Recycled)
			}
			l := sb.Limits()
			if out.Stdout.Total < attackLimits.FloodLimit || len(out.Stdout.Head) != l.StreamHead || len(out.Stdout.Tail) != l.StreamTail {
				t.Errorf("flood: total %d, kept %d + %d", out.Stdout.Total, len(out.Stdout.Head), len(out.Stdout.Tail))
			}
			if out.Elapsed > attackLimits.Timeout {
				t.Errorf("the flood ran to the timeout (%s)", out.Elapsed)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := run(t, se, c.code)
			c.check(t, out)
			after := run(t, se, "print('still works')")
			mustSucceed(t, after)
			if stdout(after) != "still works" {
				t.Fatalf("after the attack: %q", after.Stdout)
			}
		})
	}
}

func filled(t *testing.T, s string) int {
	t.Helper()
	m := regexp.MustCompile(`stopped after (\d+) MB: ENOSPC`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("the disk never filled:\n%s", s)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

const networkPy = `import os, socket
for host, port in [("1.1.1.1", 53), ("8.8.8.8", 443), ("172.17.0.1", 2375), ("10.0.2.2", 80)]:
    try:
        socket.create_connection((host, port), timeout=2).close()
        print("CONNECTED", host)
    except OSError as e:
        print("blocked", host, type(e).__name__)
try:
    socket.getaddrinfo("deb.debian.org", 80)
    print("RESOLVED")
except OSError as e:
    print("no dns", type(e).__name__)
print("interfaces", sorted(os.listdir("/sys/class/net")))
`

const writePy = `import errno
for p in ["/etc/loupe", "/x", "/usr/lib/python3/dist-packages/evil.py", "/var/tmp/x", "/opt/loupe/x", "/input/x", "/home/x"]:
    try:
        with open(p, "w") as f:
            f.write("x")
        print("WROTE", p)
    except OSError as e:
        print("refused", p, errno.errorcode.get(e.errno, e.errno))
`

func fillPy(path string, mb int) string {
	return `import errno, os
n = 0
try:
    with open("` + path + `", "wb") as f:
        for _ in range(` + strconv.Itoa(mb) + `):
            f.write(b"\0" * (1 << 20))
            f.flush()
            n += 1
    print("wrote", n, "MB")
except OSError as e:
    print("stopped after", n, "MB:", errno.errorcode.get(e.errno, e.errno))
os.remove("` + path + `")
`
}

const privilegePy = `import os, subprocess
st = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
print("uid", os.getuid(), os.geteuid(), "gid", os.getgid())
for k in ("CapEff", "CapPrm", "CapBnd", "NoNewPrivs"):
    print(k, st[k].strip())
try:
    os.setuid(0)
    print("BECAME ROOT")
except PermissionError:
    print("setuid refused")
r = subprocess.run(["mount", "-t", "tmpfs", "none", "/mnt"], capture_output=True, text=True)
print("mount refused" if r.returncode != 0 else "MOUNTED AS ROOT", r.stderr.strip())
r = subprocess.run(["su", "-c", "id", "root"], capture_output=True, text=True, input="")
print("su", r.returncode, "ROOT" if "uid=0" in r.stdout else "no root")
`

// hostFilesPy tries to read files that exist on the host (this test's
// source, the host's hostname, the Docker socket) and to write the inputs.
func hostFilesPy(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	return `import os, errno
print("inputs", sorted(os.listdir("/input")), open("/input/data.csv").read().split()[0])
for p in ["/input/new.txt", "/input/data.csv"]:
    try:
        open(p, "a").write("x")
        print("WROTE", p)
    except OSError as e:
        print("input write refused", errno.errorcode.get(e.errno))
if open("/etc/hostname").read().strip() == "` + host + `":
    print("HOST HOSTNAME")
for p in ["` + filepath.Join(wd, "isolation_test.go") + `", "/var/run/docker.sock", "/run/docker.sock", "/etc/shadow", "/root/.bashrc", "/proc/kcore", "/dev/mem"]:
    try:
        open(p, "rb").read(1)
        print("READ", p)
    except OSError as e:
        print("refused", p, type(e).__name__)
`
}

const forkCountPy = `import os, time
n = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(120)
            os._exit(0)
        n += 1
except OSError as e:
    print("forks", n, type(e).__name__)
`

const memoryPy = `chunks = []
while True:
    chunks.append(bytearray(32 << 20))
    print(len(chunks) * 32, "MB", flush=True)
`
