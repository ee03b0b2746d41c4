package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/secret"
)

// The connectors (PostgreSQL, MySQL/MariaDB, SQLite) are registered by
// package app, which this package imports.
func init() {
	register(command{"connect", "connect add|list|test|remove|import …", "save, list, test and remove database connections; import a query's result", runConnect})
}

var connectUsage = `Usage:
  loupe connect add NAME --kind postgres|mysql --host H [--port N] --database D --user U [--tls MODE] [--password-stdin]
  loupe connect add NAME --url postgres://USER@HOST:PORT/DB [--password-stdin]
  loupe connect add NAME --kind sqlite --path FILE
  loupe connect list [--json]
  loupe connect test NAME [--json]
  loupe connect remove NAME
  loupe connect import NAME --as TABLE [--limit N] [--replace] [--workspace DIR] QUERY

TLS modes: disable, prefer (default), require, verify-full. The password is read from standard
input with --password-stdin, or asked for on a terminal; it is never a flag. It is kept in the OS
keychain (or, where there is none, in a file only you can read); $LOUPE_SECRET_<NAME> overrides it.
add tests the connection before saving it; --no-test saves it untested.

Connect with a read-only database role: add and test warn when the role can do more than read
(superuser, reading or writing server files, running programs, writing tables). PostgreSQL:
` + indent(remote.ReadOnlyRoleSQL(remote.Postgres, "mydb")) + `
MySQL/MariaDB:
` + indent(remote.ReadOnlyRoleSQL(remote.MySQL, "mydb")) + `
`

func runConnect(ctx context.Context, e env, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, connectUsage)
		return ExitUsage
	}
	switch args[0] {
	case "add":
		return connectAdd(ctx, e, args[1:])
	case "list", "ls":
		return connectList(e, args[1:])
	case "test":
		return connectTest(ctx, e, args[1:])
	case "remove", "rm":
		return connectRemove(e, args[1:])
	case "import":
		return connectImport(ctx, e, args[1:])
	case "help", "-h", "--help":
		fmt.Fprint(e.stdout, connectUsage)
		return ExitOK
	}
	fmt.Fprintf(e.stderr, "loupe connect: unknown subcommand %q\n\n%s", args[0], connectUsage)
	return ExitUsage
}

// connections opens the profile store and the secret keeper.
func connections() (*remote.Store, *secret.Keeper, error) {
	path, err := remote.DefaultStorePath()
	if err != nil {
		return nil, nil, err
	}
	k, err := secret.New()
	if err != nil {
		return nil, nil, err
	}
	return remote.NewStore(path), k, nil
}

func connectFlags(e env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("loupe connect "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { fmt.Fprint(e.stderr, connectUsage) }
	return fs
}

// oneName parses flags and returns the single NAME argument.
func oneName(e env, fs *flag.FlagSet, args []string, sub string) (string, bool) {
	pos, err := parse(fs, args)
	if err != nil {
		return "", false
	}
	if len(pos) != 1 {
		fmt.Fprintf(e.stderr, "loupe connect %s: give one connection name\n", sub)
		return "", false
	}
	return pos[0], true
}

func connectAdd(ctx context.Context, e env, args []string) int {
	fs := connectFlags(e, "add")
	kind := fs.String("kind", "", "postgres, mysql or sqlite")
	host := fs.String("host", "", "server host name")
	port := fs.Int("port", 0, "server port (default 5432 or 3306)")
	database := fs.String("database", "", "database name")
	user := fs.String("user", "", "user name")
	tlsMode := fs.String("tls", "", "disable, prefer, require or verify-full")
	path := fs.String("path", "", "SQLite file")
	rawURL := fs.String("url", "", "connection URL without the password")
	pwStdin := fs.Bool("password-stdin", false, "read the password from standard input")
	noTest := fs.Bool("no-test", false, "save without testing the connection")
	asJSON := fs.Bool("json", false, "print one JSON object")
	name, ok := oneName(e, fs, args, "add")
	if !ok {
		return ExitUsage
	}
	p := remote.Profile{Name: name}
	if *rawURL != "" {
		var pw string
		var err error
		p, pw, err = remote.ParseURL(name, *rawURL)
		if err != nil {
			return fail(e, err)
		}
		if pw != "" {
			fmt.Fprintln(e.stderr, "loupe connect add: the URL holds a password; leave it out of the URL (and your shell history) and give it with --password-stdin or at the prompt")
			return ExitUsage
		}
	}
	setIf := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	k := string(p.Kind)
	setIf(&k, *kind)
	if k == "" && *path != "" {
		k = string(remote.SQLite)
	}
	p.Kind = remote.Kind(k)
	setIf(&p.Host, *host)
	setIf(&p.Database, *database)
	setIf(&p.User, *user)
	setIf(&p.Path, *path)
	if *port != 0 {
		p.Port = *port
	}
	if *tlsMode != "" {
		m, err := remote.ParseTLS(*tlsMode)
		if err != nil {
			return fail(e, err)
		}
		p.TLS = m
	}
	p, err := p.Normalize()
	if err != nil {
		return fail(e, err)
	}
	store, keeper, err := connections()
	if err != nil {
		return fail(e, err)
	}
	password := ""
	havePassword := false
	if p.Kind != remote.SQLite {
		password, havePassword, err = readPassword(e, p, *pwStdin)
		if err != nil {
			return fail(e, err)
		}
		if !havePassword {
			// Re-adding a connection keeps the password stored before.
			if old, _, err := keeper.Get(p.Name); err == nil {
				password = old
			}
		}
	}
	out := connectResult{Name: p.Name, Kind: p.Kind, URL: p.URL(), Password: "none"}
	var sch *remote.Schema
	if !*noTest {
		if sch, err = testConnection(ctx, p, password, &out); err != nil {
			fmt.Fprintln(e.stderr, "loupe connect add: not saved: "+err.Error())
			fmt.Fprintln(e.stderr, "  (fix the settings and try again, or add --no-test to save it anyway)")
			return ExitError
		}
	}
	if havePassword && password != "" {
		where, err := keeper.Set(p.Name, password)
		if err != nil {
			return fail(e, fmt.Errorf("store the password: %w", err))
		}
		out.Password = string(where)
		if where == secret.File {
			out.Warning = keeper.WarningFor(p.Name)
			fmt.Fprintln(e.stderr, "loupe: warning: "+out.Warning)
		}
	} else if password != "" {
		out.Password = "kept"
	}
	if _, err := store.Put(p); err != nil {
		return fail(e, err)
	}
	if sch != nil {
		if err := keepSchema(ctx, store, p.Name, sch, &out); err != nil {
			return fail(e, fmt.Errorf("saved connection %s, but not its schema (loupe connect test %s tries again): %w", p.Name, p.Name, err))
		}
		if err := store.SetRole(p.Name, out.Role); err != nil {
			return fail(e, err)
		}
	}
	printRole(e, out.Role)
	if *asJSON {
		return printJSON(e, out)
	}
	fmt.Fprintf(e.stdout, "saved connection %s: %s", p.Name, p.URL())
	if out.Tested {
		fmt.Fprintf(e.stdout, " (%s %s, %d tables and views)", out.Dialect, out.Version, out.Tables)
	}
	switch out.Password {
	case string(secret.Keychain):
		fmt.Fprint(e.stdout, "; password in the OS keychain")
	case string(secret.File):
		fmt.Fprint(e.stdout, "; password in the fallback file (see the warning)")
	}
	fmt.Fprintln(e.stdout)
	return ExitOK
}

// readPassword reads the password from standard input (--password-stdin)
// or asks for it on a terminal. ok is false when neither was possible.
func readPassword(e env, p remote.Profile, fromStdin bool) (string, bool, error) {
	if fromStdin {
		r := bufio.NewReader(e.stdin)
		line, err := r.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", false, fmt.Errorf("read the password: %w", err)
		}
		return strings.TrimRight(line, "\r\n"), true, nil
	}
	f, ok := e.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return "", false, nil
	}
	fmt.Fprintf(e.stderr, "Password for %s@%s (input hidden): ", p.User, p.Target())
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(e.stderr)
	if err != nil {
		return "", false, fmt.Errorf("read the password: %w", err)
	}
	return string(b), true, nil
}

// connectResult is what add and test report.
type connectResult struct {
	Name      string         `json:"name"`
	Kind      remote.Kind    `json:"kind"`
	URL       string         `json:"url"`
	OK        bool           `json:"ok"`
	Tested    bool           `json:"tested"`
	Dialect   string         `json:"dialect,omitempty"`
	Version   string         `json:"version,omitempty"`
	Tables    int            `json:"tables,omitempty"`
	ElapsedMS float64        `json:"elapsed_ms,omitempty"`
	Password  string         `json:"password,omitempty"` // keychain, file, env, kept, none
	Warning   string         `json:"warning,omitempty"`
	Problem   remote.Problem `json:"problem,omitempty"`
	Message   string         `json:"message,omitempty"`
	Hint      string         `json:"hint,omitempty"`
	// Role is set when the role connected as can do more than read.
	Role *remote.RoleWarning `json:"role,omitempty"`
	// Catalog says how the discovered schema was kept (catalog file and
	// schema index) after a successful test.
	Catalog *retrieve.CatalogStats `json:"catalog,omitempty"`
}

// keepSchema stores sch as the catalog and schema index of the connection
// called name (see retrieve.Catalog).
func keepSchema(ctx context.Context, store *remote.Store, name string, sch *remote.Schema, out *connectResult) error {
	st, err := retrieve.Catalog(ctx, store.CacheDir(name), name, sch)
	if err != nil {
		return err
	}
	st.DiscoverMS = sch.ElapsedMS
	out.Catalog = &st
	return nil
}

// testConnection opens the source, checks it answers and reads its
// schema, which it returns.
func testConnection(ctx context.Context, p remote.Profile, password string, out *connectResult) (*remote.Schema, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	t, err := remote.Test(ctx, p, password)
	out.Tested = true
	if err == nil {
		out.OK = true
		out.Dialect, out.Version, out.Tables = t.Dialect.Name, t.Dialect.Version, len(t.Schema.Tables)
		out.ElapsedMS = float64(t.Elapsed.Microseconds()) / 1000
		out.Role = t.Role
		return t.Schema, nil
	}
	var ce *remote.ConnError
	if errors.As(err, &ce) {
		out.Problem, out.Message, out.Hint = ce.Problem, ce.Msg, ce.Hint
	} else {
		out.Message = err.Error()
	}
	return nil, err
}

// printRole writes the role warning w, if any, to standard error: what
// the role may do and the SQL of a read-only role to use instead.
func printRole(e env, w *remote.RoleWarning) {
	if w == nil {
		return
	}
	fmt.Fprintln(e.stderr, "loupe: warning: "+w.Message+" "+w.Advice)
	for _, r := range w.Risks {
		fmt.Fprintln(e.stderr, "  - "+w.Role+" "+r)
	}
	if w.SQL != "" {
		fmt.Fprintln(e.stderr, "  As an administrator, create a read-only role and connect with it:")
		for _, line := range strings.Split(w.SQL, "\n") {
			fmt.Fprintln(e.stderr, "    "+line)
		}
	}
}

func connectList(e env, args []string) int {
	fs := connectFlags(e, "list")
	asJSON := fs.Bool("json", false, "print a JSON array")
	if pos, err := parse(fs, args); err != nil || len(pos) != 0 {
		return ExitUsage
	}
	store, _, err := connections()
	if err != nil {
		return fail(e, err)
	}
	ps, err := store.List()
	if err != nil {
		return fail(e, err)
	}
	if *asJSON {
		type row struct {
			remote.Profile
			URL string `json:"url"`
		}
		rows := make([]row, len(ps))
		for i, p := range ps {
			rows[i] = row{p, p.URL()}
		}
		return printJSON(e, rows)
	}
	if len(ps) == 0 {
		fmt.Fprintln(e.stdout, "no saved connections (add one with: loupe connect add NAME …)")
		return ExitOK
	}
	width := 4
	for _, p := range ps {
		width = max(width, len(p.Name))
	}
	for _, p := range ps {
		fmt.Fprintf(e.stdout, "%-*s  %-8s  %s\n", width, p.Name, p.Kind, p.URL())
	}
	return ExitOK
}

func connectTest(ctx context.Context, e env, args []string) int {
	fs := connectFlags(e, "test")
	asJSON := fs.Bool("json", false, "print one JSON object")
	name, ok := oneName(e, fs, args, "test")
	if !ok {
		return ExitUsage
	}
	store, keeper, err := connections()
	if err != nil {
		return fail(e, err)
	}
	p, err := store.Get(name)
	if err != nil {
		return fail(e, err)
	}
	out := connectResult{Name: p.Name, Kind: p.Kind, URL: p.URL(), Password: "none"}
	password := ""
	if p.Kind != remote.SQLite {
		pw, where, err := keeper.Get(p.Name)
		switch {
		case err == nil:
			password, out.Password = pw, string(where)
		case !errors.Is(err, secret.ErrNotFound):
			return fail(e, err)
		}
	}
	sch, terr := testConnection(ctx, p, password, &out)
	if terr == nil {
		if err := keepSchema(ctx, store, p.Name, sch, &out); err != nil {
			return fail(e, fmt.Errorf("connect test %s: the connection works, but its schema was not kept: %w", p.Name, err))
		}
		if err := store.SetRole(p.Name, out.Role); err != nil {
			return fail(e, err)
		}
		printRole(e, out.Role)
	}
	if *asJSON {
		if code := printJSON(e, out); code != ExitOK {
			return code
		}
		if terr != nil {
			return ExitError
		}
		return ExitOK
	}
	if terr != nil {
		return fail(e, fmt.Errorf("connect test %s: %w", p.Name, terr))
	}
	fmt.Fprintf(e.stdout, "ok: %s — %s %s, %d tables and views, %.0f ms\n", p.Name, out.Dialect, out.Version, out.Tables, out.ElapsedMS)
	return ExitOK
}

func connectRemove(e env, args []string) int {
	fs := connectFlags(e, "remove")
	name, ok := oneName(e, fs, args, "remove")
	if !ok {
		return ExitUsage
	}
	store, keeper, err := connections()
	if err != nil {
		return fail(e, err)
	}
	if err := store.Remove(name); err != nil {
		return fail(e, err)
	}
	if err := keeper.Delete(name); err != nil {
		return fail(e, fmt.Errorf("removed connection %s, but not its password: %w", name, err))
	}
	fmt.Fprintf(e.stdout, "removed connection %s\n", name)
	return ExitOK
}

func printJSON(e env, v any) int {
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fail(e, err)
	}
	return ExitOK
}
