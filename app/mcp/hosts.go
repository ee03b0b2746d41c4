package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
)

// Host is an MCP host Loupe can be added to: where its configuration
// lives, whether Loupe is in it, and the snippet that adds it.
type Host struct {
	ID   string `json:"id"`   // claude, vscode, cursor
	Name string `json:"name"` // Claude Desktop, VS Code, Cursor
	// ConfigPath is the host's configuration file for the user (where the
	// snippet goes); Where says it in words.
	ConfigPath string `json:"configPath"`
	Where      string `json:"where"`
	// Configured says the file names a server called "loupe".
	Configured bool   `json:"configured"`
	Snippet    string `json:"snippet"`
}

// Hosts are Claude Desktop, VS Code and Cursor with snippets that start
// binary (the installed loupe) as `loupe mcp`. home and appData are the
// user's home and configuration folders (os.UserHomeDir,
// os.UserConfigDir); goos picks where each host keeps its file.
func Hosts(binary, home, appData, goos string) []Host {
	type server struct {
		Type    string   `json:"type,omitempty"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	args := []string{"mcp"}
	claude := map[string]any{"mcpServers": map[string]server{"loupe": {Command: binary, Args: args}}}
	vscode := map[string]any{"servers": map[string]server{"loupe": {Type: "stdio", Command: binary, Args: args}}}
	claudeDir := filepath.Join(appData, "Claude")
	codeDir := filepath.Join(appData, "Code", "User")
	if goos == "linux" {
		claudeDir = filepath.Join(home, ".config", "Claude")
	}
	hs := []Host{
		{ID: "claude", Name: "Claude Desktop", ConfigPath: filepath.Join(claudeDir, "claude_desktop_config.json"),
			Where: "Settings → Developer → Edit Config, then restart Claude Desktop", Snippet: indent(claude)},
		{ID: "vscode", Name: "VS Code", ConfigPath: filepath.Join(codeDir, "mcp.json"),
			Where: "Command Palette → MCP: Open User Configuration (or .vscode/mcp.json in a project)", Snippet: indent(vscode)},
		{ID: "cursor", Name: "Cursor", ConfigPath: filepath.Join(home, ".cursor", "mcp.json"),
			Where: "Cursor Settings → MCP → Add new global MCP server (or .cursor/mcp.json in a project)", Snippet: indent(claude)},
	}
	for i := range hs {
		hs[i].Configured = names(hs[i].ConfigPath, "loupe")
	}
	return hs
}

// DefaultHosts is Hosts for this machine and user.
func DefaultHosts(binary string) []Host {
	home, _ := os.UserHomeDir()
	appData, _ := os.UserConfigDir()
	return Hosts(binary, home, appData, runtime.GOOS)
}

// names reports whether the host file at path lists a server called
// name (under "mcpServers" or "servers"). A missing or damaged file does
// not.
func names(path, name string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var f struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]json.RawMessage `json:"servers"`
	}
	if json.Unmarshal(b, &f) != nil {
		return false
	}
	_, a := f.MCPServers[name]
	_, b2 := f.Servers[name]
	return a || b2
}

func indent(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// Setup is what the window shows of MCP: the binary the snippets start,
// each host with its snippet, the recent calls, and whether Loupe is set
// up (a host lists it, or a client has called it).
type Setup struct {
	Binary string `json:"binary"`
	SetUp  bool   `json:"setUp"`
	Hosts  []Host `json:"hosts"`
	Calls  []Call `json:"calls"`
	// CallLog is where the calls are read from.
	CallLog string `json:"callLog"`
}

// RecentShown is how many calls Setup reads.
const RecentShown = 20

// SetupOf is the MCP setup of this machine for binary, with the calls
// logged in the config folder dir.
func SetupOf(binary, dir string) (*Setup, error) {
	calls, err := RecentCalls(dir, RecentShown)
	if err != nil {
		return nil, err
	}
	s := &Setup{Binary: binary, Hosts: DefaultHosts(binary), Calls: calls, CallLog: filepath.Join(dir, CallLogFile), SetUp: len(calls) > 0}
	for _, h := range s.Hosts {
		s.SetUp = s.SetUp || h.Configured
	}
	return s, nil
}
