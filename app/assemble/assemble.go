// Package assemble builds Loupe's engine for one workspace — data, tools,
// agent — the same way for the window and the command line.
package assemble
