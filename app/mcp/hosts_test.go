package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/app/mcp"
)

// Each host's snippet starts the binary as `loupe mcp` in the shape the
// host reads, and a host whose file lists "loupe" is configured.
func TestHosts(t *testing.T) {
	home, appData := t.TempDir(), t.TempDir()
	bin := `/opt/Loupe "x"/loupe`
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(cursor), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cursor, []byte(`{"mcpServers": {"loupe": {"command": "loupe", "args": ["mcp"]}, "other": {}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	hs := mcp.Hosts(bin, home, appData, "darwin")
	if len(hs) != 3 {
		t.Fatalf("%d hosts", len(hs))
	}
	for _, h := range hs {
		var doc map[string]map[string]struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
		}
		if err := json.Unmarshal([]byte(h.Snippet), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", h.ID, err, h.Snippet)
		}
		key := "mcpServers"
		if h.ID == "vscode" {
			key = "servers"
		}
		s := doc[key]["loupe"]
		if s.Command != bin || len(s.Args) != 1 || s.Args[0] != "mcp" || (h.ID == "vscode") != (s.Type == "stdio") {
			t.Errorf("%s snippet %s", h.ID, h.Snippet)
		}
		if h.Configured != (h.ID == "cursor") {
			t.Errorf("%s configured %v", h.ID, h.Configured)
		}
	}
	if want := filepath.Join(appData, "Claude", "claude_desktop_config.json"); hs[0].ConfigPath != want {
		t.Errorf("Claude Desktop's file on macOS: %s", hs[0].ConfigPath)
	}
}

// The call log keeps the newest calls, bounded, newest first; a damaged
// line is skipped.
func TestCallLogBounded(t *testing.T) {
	dir := t.TempDir()
	if got, err := mcp.RecentCalls(dir, 5); err != nil || len(got) != 0 {
		t.Fatalf("no log: %v %v", got, err)
	}
	log := mcp.CallLogIn(dir)
	for i := range 3*mcp.MaxCalls + 7 {
		log.Add(mcp.Call{At: time.Now(), Tool: "run_sql", Status: mcp.StatusOK, Millis: int64(i)})
	}
	f, err := os.OpenFile(log.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{not json\n")
	f.Close()
	b, _ := os.ReadFile(log.Path)
	if n := strings.Count(string(b), "\n"); n > 2*mcp.MaxCalls+1 {
		t.Errorf("the log holds %d lines", n)
	}
	got, err := mcp.RecentCalls(dir, 3)
	if err != nil || len(got) != 3 || got[0].Millis != 3*mcp.MaxCalls+6 || got[2].Millis != 3*mcp.MaxCalls+4 {
		t.Fatalf("recent %+v %v", got, err)
	}
}
