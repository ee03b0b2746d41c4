// Command loupecli is the loupe binary without its window: the command line
// exactly as main.go runs it (cli.Main with SIGINT/SIGTERM cancelling), so
// that tests can build a real process to kill without GTK and WebKit.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/loupeapp/loupe/app/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
