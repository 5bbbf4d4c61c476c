package git

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// Service is a git transport service run on the server side.
type Service string

// Transport services.
const (
	UploadPack    Service = "upload-pack"
	ReceivePack   Service = "receive-pack"
	UploadArchive Service = "upload-archive"
)

// ParseService accepts a service name with or without the "git-" prefix
// ("git-upload-pack", as smart HTTP and SSH clients send it).
func ParseService(name string) (Service, bool) {
	switch s := Service(strings.TrimPrefix(name, "git-")); s {
	case UploadPack, ReceivePack, UploadArchive:
		return s, true
	}
	return "", false
}

// ServiceOptions configures RunService.
type ServiceOptions struct {
	// StatelessRPC runs one request/response exchange (smart HTTP).
	StatelessRPC bool
	// AdvertiseRefs only prints the reference advertisement
	// (GET info/refs).
	AdvertiseRefs bool
	// Protocol is the client's GIT_PROTOCOL (HTTP header Git-Protocol, SSH
	// environment); only "version=N" entries are passed on.
	Protocol string
	// Env holds extra KEY=VALUE pairs, e.g. what hooks need to call back
	// into Cairn.
	Env []string
	// Stdin, Stdout: the client's request and the response stream.
	// Stderr, when set, also receives the process's standard error (SSH
	// sends it to the client); it is captured for errors either way.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// RunService runs git upload-pack, receive-pack or upload-archive on a
// repository, streaming opts.Stdin to the process and its output to
// opts.Stdout. upload-archive supports neither StatelessRPC nor
// AdvertiseRefs.
func (g *Git) RunService(ctx context.Context, repoPath string, svc Service, opts ServiceOptions) error {
	abs, err := absRepo(repoPath)
	if err != nil {
		return err
	}
	var cmd *Cmd
	switch svc {
	case UploadPack:
		cmd = g.Command("upload-pack")
	case ReceivePack:
		cmd = g.Command("receive-pack")
		cmd.config = append(cmd.config, receiveConfig()...)
	case UploadArchive:
		if opts.StatelessRPC || opts.AdvertiseRefs {
			return fmt.Errorf("%w: upload-archive has no stateless or advertise mode", ErrInvalidArgument)
		}
		cmd = g.Command("upload-archive")
	default:
		return fmt.Errorf("%w: service %q", ErrInvalidArgument, svc)
	}
	if opts.StatelessRPC {
		cmd.Args("--stateless-rpc")
	}
	if opts.AdvertiseRefs {
		cmd.Args("--advertise-refs")
	}
	if svc != UploadArchive {
		// upload-archive passes its arguments on to a helper that does
		// not accept --end-of-options; the path is absolute anyway.
		cmd.EndOfOptions()
	}
	cmd.Values(abs).Dir(abs)
	if p := SanitizeProtocol(opts.Protocol); p != "" {
		cmd.Env("GIT_PROTOCOL=" + p)
	}
	return cmd.Env(opts.Env...).Stdin(opts.Stdin).Stdout(opts.Stdout).Stderr(opts.Stderr).Run(ctx)
}

// SanitizeProtocol keeps the "version=N" entries (N a number) of a
// colon-separated GIT_PROTOCOL value and drops everything else.
func SanitizeProtocol(s string) string {
	var keep []string
	for _, part := range strings.Split(s, ":") {
		v, ok := strings.CutPrefix(part, "version=")
		if !ok || v == "" || len(v) > 3 {
			continue
		}
		digits := true
		for i := 0; i < len(v); i++ {
			if v[i] < '0' || v[i] > '9' {
				digits = false
				break
			}
		}
		if digits {
			keep = append(keep, part)
		}
	}
	return strings.Join(keep, ":")
}
