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

	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/observe"
)

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

const usage = `usage: cairn [--config FILE] [--data-dir DIR] <command> [flags]

commands:
  serve                               run the web interface, API, git over HTTP and SSH
  admin user create                   create an account
  admin user change-password          set an account's password
  admin user list                     list accounts
  admin user delete                   delete an account
  admin user generate-access-token    create an access token for an account
  admin user must-change-password     make accounts change their password at next sign-in
  admin regenerate hooks              write the git hook scripts again, naming this binary
  admin sendmail                      mail every active account
  migrate                             apply pending database migrations (serve does it at start)
  doctor [--fix]                      check the instance (hooks, repository directories, stale files, database)
  dump --file FILE|-                  write one archive of the instance (also while it runs)
  restore --file FILE|-               rebuild an empty instance from a dump, on any database type
  hook <pre|proc|post>-receive        run by git during a push
  --version                           print Cairn's version, the Gitea API level and the build's commit

--config and --data-dir (also accepted after any serve or admin command) name
the instance, as CAIRN_CONFIG and CAIRN_DATA_DIR do. Run 'cairn <command> --help'
for the flags of a command.`

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	global := newFlagSet("cairn")
	inst := addInstanceFlags(global)
	showVersion := global.Bool("version", false, "print the version")
	global.BoolVar(showVersion, "v", false, "print the version")
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, usage)
			return nil
		}
		return usageError{fmt.Sprintf("%v\n%s", err, usage)}
	}
	args = global.Args()
	if *showVersion || len(args) > 0 && args[0] == "version" {
		printVersion(stdout)
		return nil
	}
	if len(args) == 0 {
		return usageError{usage}
	}
	getenv = inst.getenv(getenv)
	switch args[0] {
	case "serve", "web":
		fs := newFlagSet("cairn " + args[0])
		sinst := addInstanceFlags(fs)
		if done, err := parseFlags(fs, args[1:], stdout, "cairn serve [--config FILE] [--data-dir DIR]",
			"Runs the web interface, the API, git over HTTP and the SSH server until SIGINT or SIGTERM.\n"+
				"Settings come from the environment (CAIRN_HTTP_ADDR, CAIRN_SSH_ADDR, CAIRN_ROOT_URL,\n"+
				"CAIRN_DATABASE_URL, CAIRN_<SECTION>_<KEY>) and the configuration file."); done || err != nil {
			return err
		}
		getenv = sinst.getenv(getenv)
	case "hook":
		if len(args) == 2 && (args[1] == "-h" || args[1] == "--help" || args[1] == "-help") {
			fmt.Fprintln(stdout, "usage: cairn hook pre-receive|proc-receive|post-receive\n\nRun by git during a push (the hook scripts Cairn writes): hands the ref updates to the running server.")
			return nil
		}
	}
	switch args[0] {
	case "serve", "web":
		// The logger follows [log] LEVEL and FORMAT from the start.
		cfg, err := config.Load(getenv)
		if err != nil {
			return err
		}
		out := observe.NewBufferedWriter(stderr, observe.LogFlushEvery)
		defer out.Close()
		logger, err := observe.NewLogger(out, cfg.Log.Level, cfg.Log.Format)
		if err != nil {
			return err
		}
		slog.SetDefault(logger)
		ctx, force, stop := shutdownSignals(ctx, func() { _ = out.Flush() })
		defer stop()
		return serve(ctx, stdout, getenv, force)
	case "admin":
		return admin(ctx, args[1:], os.Stdin, stdout, stderr, getenv)
	case "doctor":
		return doctor(ctx, args[1:], adminEnv{stdin: os.Stdin, stdout: stdout, stderr: stderr, getenv: getenv})
	case "migrate":
		return migrateCmd(ctx, args[1:], adminEnv{stdin: os.Stdin, stdout: stdout, stderr: stderr, getenv: getenv})
	case "dump":
		return dump(ctx, args[1:], adminEnv{stdin: os.Stdin, stdout: stdout, stderr: stderr, getenv: getenv})
	case "restore":
		return restore(ctx, args[1:], adminEnv{stdin: os.Stdin, stdout: stdout, stderr: stderr, getenv: getenv})
	case "hook":
		if len(args) != 2 || (args[1] != "pre-receive" && args[1] != "proc-receive" && args[1] != "post-receive") {
			return usageError{"usage: cairn hook pre-receive|proc-receive|post-receive (run by git)"}
		}
		if args[1] == "proc-receive" {
			return hooks.RunProcReceive(ctx, os.Stdin, stdout, stderr, getenv)
		}
		return hooks.Run(ctx, args[1], os.Stdin, stderr, getenv)
	case "help":
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

// parseFlags parses the flags of a command that takes no arguments. On -h or
// --help it prints the usage line, about and the flags to stdout and reports
// done, so the command does nothing else.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer, synopsis, about string) (done bool, err error) {
	err = fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(stdout, fs, synopsis, about)
		return true, nil
	}
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err != nil {
		return false, usageError{fmt.Sprintf("%v\nusage: %s\n(run '%s --help' for the flags)", err, synopsis, fs.Name())}
	}
	return false, nil
}

// printHelp writes a command's usage and its flags, GNU style.
func printHelp(w io.Writer, fs *flag.FlagSet, synopsis, about string) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n\nflags:\n", synopsis, about)
	fs.VisitAll(func(f *flag.Flag) {
		kind, text := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if len(f.Name) == 1 {
			name = "-" + f.Name
		}
		if kind != "" {
			name += " " + kind
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" {
			text += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  %-28s %s\n", name, text)
	})
}

// instanceFlags are --config and --data-dir, which name the instance a
// command works on in place of CAIRN_CONFIG and CAIRN_DATA_DIR.
type instanceFlags struct{ config, dataDir *string }

func addInstanceFlags(fs *flag.FlagSet) instanceFlags {
	return instanceFlags{
		config:  fs.String("config", "", "configuration `FILE` (instead of CAIRN_CONFIG; default <data dir>/cairn.ini)"),
		dataDir: fs.String("data-dir", "", "data `DIR` (instead of CAIRN_DATA_DIR; default ./data)"),
	}
}

// getenv returns next with the flags given in place of their variables.
func (f instanceFlags) getenv(next func(string) string) func(string) string {
	config, dataDir := *f.config, *f.dataDir
	if config == "" && dataDir == "" {
		return next
	}
	return func(key string) string {
		switch {
		case key == "CAIRN_CONFIG" && config != "":
			return config
		case key == "CAIRN_DATA_DIR" && dataDir != "":
			return dataDir
		}
		return next(key)
	}
}
