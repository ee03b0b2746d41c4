// Package cli is Loupe's command line: the same engine as the window, one
// command per invocation. Exit codes: 0 ok, 1 error, 2 usage, 3 refused by
// the read-only guard.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"

	"github.com/loupeapp/loupe/app/buildinfo"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/workspace"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitError   = 1
	ExitUsage   = 2
	ExitRefused = 3
)

// env is what a command runs with.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

type command struct {
	name, usage, summary string
	run                  func(ctx context.Context, e env, args []string) int
}

// commands is filled by register from each command's file.
var commands []command

// order is the order commands are listed in; unlisted ones come last.
var order = []string{"load", "sql", "search", "note", "ask", "chats", "connect", "sandbox", "eval", "doctor"}

// register adds a command; each command's file calls it from init.
func register(c command) {
	commands = append(commands, c)
	rank := func(n string) int {
		for i, o := range order {
			if o == n {
				return i
			}
		}
		return len(order)
	}
	sort.SliceStable(commands, func(i, j int) bool { return rank(commands[i].name) < rank(commands[j].name) })
}

func init() {
	register(command{"load", "load [--workspace DIR] [--as-one NAME] FILE|FOLDER...", "load files (or a folder's files) as tables; one JSON line per table", runLoad})
	register(command{"sql", "sql [--workspace DIR] [--json | --out FILE.csv|.xlsx|.parquet] QUERY", "run one read-only query through the guard; --out writes its rows to a file", runSQL})
}

// Main runs the command in args (without the program name) and returns the
// process exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := env{stdin: stdin, stdout: stdout, stderr: stderr}
	level := slog.LevelWarn
	if os.Getenv("LOUPE_DEBUG") != "" {
		level = slog.LevelDebug
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})))
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	if args[0] == "--version" || args[0] == "version" {
		fmt.Fprintln(stdout, "loupe", buildinfo.Version())
		return ExitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, e, args[1:])
		}
	}
	fmt.Fprintf(stderr, "loupe: unknown command %q\n\n", args[0])
	usage(stderr)
	return ExitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, "Loupe — ask your data questions, locally.\n\n",
		"Usage: loupe                open the window\n",
		"       loupe FILE…          open the window and load the files (what \"Open with Loupe\" runs)\n",
		"       loupe COMMAND …      run a command without the window (below)\n",
		"       loupe --version      print the version (the one Settings › About shows)\n",
		"\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  loupe %-45s %s\n", c.usage, c.summary)
	}
	fmt.Fprintf(w, "\nThe workspace folder is --workspace DIR, else $%s, else Loupe's folder in your user data directory.\n", workspace.EnvDir)
	fmt.Fprintln(w, "Exit codes: 0 ok, 1 error, 2 usage, 3 refused by the read-only guard.")
}

// parse parses flags wherever they appear among the positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
		if len(args) > 0 && args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
	}
}

func newFlags(name string, e env) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("loupe "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	ws := fs.String("workspace", "", "workspace folder (default $"+workspace.EnvDir+" or the user data folder)")
	return fs, ws
}

// openWorkspace opens the workspace the flags point at.
func openWorkspace(ctx context.Context, dir string) (*workspace.Workspace, error) {
	if dir == "" {
		d, err := workspace.DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	return workspace.Open(ctx, dir)
}

// fail prints err and returns its exit code.
func fail(e env, err error) int {
	msg := err.Error()
	var se *session.Error
	if errors.As(err, &se) { // said for the window: its message and what to do
		msg = strings.TrimSpace(se.Message + " " + se.Hint)
	}
	if !strings.HasPrefix(msg, "loupe") {
		msg = "loupe: " + msg
	}
	fmt.Fprintln(e.stderr, msg)
	switch {
	case errors.Is(err, guard.ErrRefused):
		return ExitRefused
	case errors.Is(err, guard.ErrEmpty):
		return ExitUsage
	}
	return ExitError
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
