package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/ben10ctx/ben10/index"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/web"
	"github.com/spf13/cobra"
)

// serveOptions are the command's flags and the global options.
type serveOptions struct {
	g           *globalOptions
	addr        string
	projects    []string
	allowRemote bool
	noLog       bool
}

func newServeCmd(g *globalOptions) *cobra.Command {
	o := serveOptions{g: g}
	c := &cobra.Command{
		Use:   "serve",
		Short: "A local, read-only web UI and JSON API over your saved sessions",
		Long: `Serve runs a read-only web UI over every project Ben10 knows: projects,
their saved contexts and compaction snapshots, each shown as "ben10 view"
shows it, a search, and the commands that resume or restore a session. The
JSON API is described in docs/API.md.

Projects are the --project directories (default: the current directory
when it has saved contexts), the projects of fallback stores
(~/.claude-code/contexts/) and the directories of the audit log's saves.

Every request needs the token kept in ~/.claude-code/serve-token (created
on first use, mode 0600): open the login link serve prints once, or send
"Authorization: Bearer <token>". The server binds 127.0.0.1; another
address needs --allow-remote.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, o) },
	}
	f := c.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:8710", "address to listen on (port 0: any free port)")
	f.StringArrayVar(&o.projects, "project", nil, "a project directory to serve (repeatable)")
	f.BoolVar(&o.allowRemote, "allow-remote", false, "allow an address other than loopback (the token is then sent in clear over the network)")
	f.BoolVar(&o.noLog, "no-log", false, "do not log requests on stderr")
	return c
}

// loopback reports whether host (of a listen address) is a loopback name
// or address.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func serveProjects(o serveOptions, home string) ([]*web.Project, error) {
	var out []*web.Project
	seen := map[string]bool{}
	add := func(dir string, explicit bool) error {
		p, err := web.OpenProject(dir, home)
		if err != nil {
			if explicit {
				return err
			}
			return nil
		}
		if seen[p.ID] || !explicit && !p.HasData() {
			return nil
		}
		seen[p.ID] = true
		out = append(out, p)
		return nil
	}
	for _, d := range o.projects {
		if err := add(d, true); err != nil {
			return nil, err
		}
	}
	if len(o.projects) == 0 {
		if err := add(".", false); err != nil {
			return nil, err
		}
	}
	for _, d := range web.KnownProjects(home) {
		if err := add(d, false); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func runServe(cmd *cobra.Command, o serveOptions) error {
	host, _, err := net.SplitHostPort(o.addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", o.addr, err)
	}
	if !loopback(host) {
		if !o.allowRemote {
			return fmt.Errorf("--addr %s is not a loopback address: pass --allow-remote to serve on it", o.addr)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "ben10: warning: serving on %s: anyone who can reach it and has the token can read your sessions, and the token travels unencrypted\n", o.addr)
	}
	home, err := store.HomeDir()
	if err != nil {
		return err
	}
	projects, err := serveProjects(o, home)
	if err != nil {
		return err
	}
	token, err := web.LoadOrCreateToken(home)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	opts := web.ServerOptions{Token: token, Projects: projects, Addr: addr}
	if !o.noLog {
		opts.Log = log.New(cmd.ErrOrStderr(), "ben10 serve: ", log.LstdFlags)
	}
	// Search goes through the recall index when it opens (brought up to
	// date for the served projects in the background), else project by
	// project through the snapshots.
	if x, err := openIndex(cmd.Context(), o.g, cmd.ErrOrStderr(), nil); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "ben10: warning: the recall index: %v; searching project by project\n", err)
	} else {
		defer x.Close()
		dirs := make([]string, len(projects))
		for i, p := range projects {
			dirs[i] = p.Dir
		}
		go func() {
			if _, err := x.Update(cmd.Context(), index.UpdateOptions{Projects: dirs}); err != nil && opts.Log != nil {
				opts.Log.Printf("updating the recall index: %v", err)
			}
		}()
		opts.Index = x
	}
	srv, err := web.NewServer(opts)
	if err != nil {
		return err
	}
	base := "http://" + addr
	if _, port, err := net.SplitHostPort(addr); err == nil && loopback(host) {
		base = "http://127.0.0.1:" + port
	}
	out := cmd.OutOrStdout()
	if o.g.json {
		if err := printJSON(out, map[string]any{"url": base + "/", "login_url": srv.LoginURL(base),
			"projects": len(projects), "token_file": web.TokenPath(home)}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out, "Serving %d project(s) at %s/ (read-only)\n", len(projects), base)
		fmt.Fprintf(out, "Open this link once to log in: %s\n", srv.LoginURL(base))
		fmt.Fprintf(out, "API: curl -H \"Authorization: Bearer $(cat %s)\" %s/api/checkpoints\n", tildePath(web.TokenPath(home)), base)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 5 * time.Minute, IdleTimeout: time.Minute, MaxHeaderBytes: 64 << 10}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return hs.Shutdown(sctx)
}
