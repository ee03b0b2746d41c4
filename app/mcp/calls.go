package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The call log is how the window learns what the MCP server (a separate
// process, started by the host) did: one JSON line per tool call in
// mcp-calls.jsonl in the config folder, the newest last. It is bounded:
// past 2×MaxCalls lines it is cut to the newest MaxCalls. It holds the
// tool, the client, the status and, for a failure, Loupe's message; never
// the arguments or the result.

// CallLogFile is the log's name in the config folder.
const CallLogFile = "mcp-calls.jsonl"

// MaxCalls is how many calls the log keeps at least.
const MaxCalls = 200

// Statuses of a call.
const (
	StatusOK       = "ok"
	StatusError    = "error"    // a tool error the client was told of
	StatusRefused  = "refused"  // the read-only guard refused the statement
	StatusPrivacy  = "privacy"  // the privacy gate kept the result back
	StatusCanceled = "canceled" // the client canceled it
)

// Call is one tool call.
type Call struct {
	At     time.Time `json:"at"`
	Tool   string    `json:"tool"`
	Client string    `json:"client"`
	Status string    `json:"status"`
	Millis int64     `json:"ms"`
	Source string    `json:"source,omitempty"` // the workspace or connection served
	Level  string    `json:"level,omitempty"`  // the privacy level in force
	Error  string    `json:"error,omitempty"`
}

// CallLog appends calls to the log at Path. A nil *CallLog records
// nothing. It is safe for concurrent use; two servers appending at once
// interleave whole lines.
type CallLog struct {
	Path string
	mu   sync.Mutex
	n    int // lines appended since the last count
}

// CallLogIn is the call log of the config folder dir.
func CallLogIn(dir string) *CallLog { return &CallLog{Path: filepath.Join(dir, CallLogFile)} }

// Add appends c, cutting the log when it grew past its bound. A failure
// is logged, never the call's: the call already happened.
func (l *CallLog) Add(c Call) {
	if l == nil {
		return
	}
	if err := l.add(c); err != nil {
		slog.Warn("record an MCP call", "subsystem", "mcp", "path", l.Path, "err", err)
	}
}

func (l *CallLog) add(c Call) error {
	line, err := json.Marshal(c)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(l.Path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	l.n++
	if l.n < MaxCalls {
		return nil
	}
	l.n = 0
	return trim(l.Path)
}

// trim cuts the log at path to its newest MaxCalls lines when it holds
// more than 2×MaxCalls, replacing it whole.
func trim(path string) error {
	calls, err := readLines(path)
	if err != nil || len(calls) <= 2*MaxCalls {
		return err
	}
	keep := bytes.Join(calls[len(calls)-MaxCalls:], []byte("\n"))
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(keep, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func readLines(path string) ([][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			out = append(out, append([]byte(nil), line...))
		}
	}
	return out, sc.Err()
}

// RecentCalls returns the newest n calls of the log in the config folder
// dir, newest first; none when there is no log yet. A damaged line is
// skipped.
func RecentCalls(dir string, n int) ([]Call, error) {
	lines, err := readLines(filepath.Join(dir, CallLogFile))
	if errors.Is(err, fs.ErrNotExist) {
		return []Call{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the MCP call log: %w", err)
	}
	out := []Call{}
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		var c Call
		if json.Unmarshal(lines[i], &c) == nil {
			out = append(out, c)
		}
	}
	return out, nil
}

// callStatus is how a call ended.
func callStatus(ctx context.Context, r *reply, err error) string {
	var pe *privacyError
	switch {
	case ctx.Err() != nil:
		return StatusCanceled
	case errors.As(err, &pe):
		return StatusPrivacy
	case err != nil:
		return StatusError
	case r != nil && r.status != "":
		return r.status
	case r != nil && r.failed:
		return StatusError
	}
	return StatusOK
}

// callError is the log's words for a failed call: the text the client
// was sent (Loupe's own message), cut short.
func callError(status string, err error, res *mcp.CallToolResult) string {
	if status == StatusOK || status == StatusCanceled {
		return ""
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if res != nil && len(res.Content) > 0 {
		if t, ok := res.Content[0].(*mcp.TextContent); ok {
			msg = t.Text
		}
	}
	if r := []rune(msg); len(r) > 200 {
		msg = string(r[:199]) + "…"
	}
	return msg
}
