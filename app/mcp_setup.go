package app

import (
	"os"

	"github.com/loupeapp/loupe/app/mcp"
)

// MCPSetup is the MCP section of Settings: whether Loupe is set up as an
// MCP server, the configuration snippet of each host with this binary's
// path filled in, and the recent calls (mcp.Setup).
type MCPSetup = mcp.Setup

// MCPHost is one MCP host of MCPSetup.
type MCPHost = mcp.Host

// MCPCall is one recent call of MCPSetup.
type MCPCall = mcp.Call

// MCPSetup returns the MCP section of Settings.
func (a *App) MCPSetup() (*MCPSetup, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, wrap(err)
	}
	dir, err := a.configDir()
	if err != nil {
		return nil, wrap(err)
	}
	s, err := mcp.SetupOf(bin, dir)
	return s, wrap(err)
}
