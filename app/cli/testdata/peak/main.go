// Command peak runs a command and writes its peak resident memory, in KiB,
// to the file named by $PEAK_OUT; the command's stdin, stdout, stderr and
// exit code pass through. A test measures a child through it because Go
// starts a child sharing the parent's memory until exec, and Linux counts
// that in the child's peak: started from a small process like this one,
// the figure is the command's own.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: peak COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "peak:", err)
		os.Exit(2)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if err := os.WriteFile(os.Getenv("PEAK_OUT"), []byte(fmt.Sprint(ru.Maxrss)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "peak:", err)
		os.Exit(2)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
