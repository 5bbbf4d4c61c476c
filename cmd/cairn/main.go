// Command cairn is the Cairn Git forge: `cairn serve` runs the web interface,
// API, git over HTTP and SSH; `cairn admin …` manages accounts from the shell.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	v1 "github.com/cairn-forge/cairn/internal/api/v1"
	"github.com/cairn-forge/cairn/internal/hooks"
)

// version is Cairn's own release version.
const version = "0.1.0"

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Getenv); err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(os.Stderr, "cairn:", err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "cairn:", err)
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usage = `usage:
  cairn serve
  cairn admin user create --username U --password P --email E [--admin] [--restricted] [--must-change-password=false] [--access-token]
  cairn admin user change-password --username U --password P [--must-change-password=false]
  cairn admin user list [--admin]
  cairn --version`

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		return usageError{usage}
	}
	switch args[0] {
	case "--version", "-version", "version", "-v":
		fmt.Fprintf(stdout, "cairn %s (Gitea API %s, reported as %s)\n", version, v1.GiteaAPILevel, v1.VersionString(version))
		return nil
	case "serve", "web":
		ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
		return serve(ctx, stdout, getenv)
	case "admin":
		return admin(ctx, args[1:], stdout, getenv)
	case "hook":
		if len(args) != 2 || (args[1] != "pre-receive" && args[1] != "post-receive") {
			return usageError{"usage: cairn hook pre-receive|post-receive (run by git)"}
		}
		return hooks.Run(ctx, args[1], os.Stdin, stderr, getenv)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown command %q\n%s", args[0], usage)}
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}
