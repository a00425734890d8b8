// Package mcp is Ben10's MCP server: it lets an assistant search and read
// its own past (every archive Ben10 keeps, through the recall index of
// package index) and leave a checkpoint of its own, over the Model Context
// Protocol (the official Go SDK, github.com/modelcontextprotocol/go-sdk).
//
// # Tools
//
//	search          query the recall index (this project, or all)
//	show            the messages, commands and outputs around a hit
//	recall_file     what the session did to a file before the compaction
//	list_sessions   this project's sessions
//	list_snapshots  this project's pre-compaction snapshots
//	session_digest  store an agent-written checkpoint in the project's store
//
// Every result is text of at most MaxResult characters. The read tools never
// write (not even the index: the background worker and the CLI keep it up to
// date); session_digest writes one redacted file in the project's store,
// authenticated with the user's key (snapshot.SaveAgentDigest), which the
// next SessionStart of the project offers and `ben10 context status` lists.
// The project is the client's first file:// root when the client offers
// roots, else the server's working directory. Encrypted archives are never
// indexed, and recall_file refuses them.
//
// Only this user's archives are served: those the user's key authenticates
// and the team archives the user pulled (see index.Trusted; recall_file and
// list_snapshots, which read the store directly, only the former). A
// result says how many hits, sessions or archives it withheld and why,
// never what they hold.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/store"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name is the server's name, and the key it is registered under in Claude
// Code's configuration (its tools are then mcp__ben10__search, …).
const Name = "ben10"

// MaxResult bounds the text of every tool result, in characters.
const MaxResult = 10000

// ToolNames lists the server's tools.
var ToolNames = []string{"search", "show", "recall_file", "list_sessions", "list_snapshots", "session_digest"}

// Options configure a server.
type Options struct {
	// Home is the user's home directory (the index and the fallback
	// stores are under it). Empty means store.HomeDir.
	Home string
	// Dir is the project when the client offers no roots. Empty means the
	// working directory.
	Dir string
	// Version is reported to clients.
	Version string
	// IndexPath overrides the index file (tests).
	IndexPath string
	// Now replaces time.Now (tests).
	Now func() time.Time
}

type server struct {
	opts  Options
	mu    sync.Mutex // guards x and key
	x     *index.Index
	key   *archive.AuthKey
	roots sync.Map // *sdk.ServerSession → *rootState
}

// rootState is a client's first root, asked once the session is
// initialized (a server may not ask while it serves a tool call).
type rootState struct {
	done chan struct{}
	root string
}

// askRoots starts asking a newly initialized client for its roots.
func (s *server) askRoots(_ context.Context, req *sdk.InitializedRequest) {
	if req == nil || req.Session == nil {
		return
	}
	rs := &rootState{done: make(chan struct{})}
	s.roots.Store(req.Session, rs)
	go func() {
		defer close(rs.done)
		rs.root = clientRoot(context.Background(), req.Session)
	}()
}

// NewServer returns the MCP server with every tool registered. Close the
// returned function when done to close the index.
func NewServer(opts Options) (*sdk.Server, func() error, error) {
	if opts.Home == "" {
		h, err := store.HomeDir()
		if err != nil {
			return nil, nil, fmt.Errorf("mcp: %w", err)
		}
		opts.Home = h
	}
	if opts.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, nil, fmt.Errorf("mcp: %w", err)
		}
		opts.Dir = wd
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &server{opts: opts}
	srv := sdk.NewServer(&sdk.Implementation{Name: Name, Title: "Ben10 recall", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: "Ben10 keeps every past session of this user losslessly, including what compaction summarized away. " +
			"Use search to find earlier commands, errors, paths and decisions (this project or all projects), show to read around a hit, " +
			"recall_file for what was done to a file before the compaction, and session_digest to leave a checkpoint for the next session.",
		InitializedHandler: s.askRoots,
	})
	s.register(srv)
	return srv, s.close, nil
}

// Serve serves MCP on in and out (newline-delimited JSON-RPC, as over
// stdio) until the client disconnects or ctx ends. In is closed at the
// end when it is an io.ReadCloser (that ends a pending read); out is not.
func Serve(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	srv, closeFn, err := NewServer(opts)
	if err != nil {
		return err
	}
	defer closeFn()
	rc, ok := in.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(in)
	}
	return srv.Run(ctx, &sdk.IOTransport{Reader: rc, Writer: nopWriteCloser{out}})
}

// nopWriteCloser is an io.WriteCloser whose Close does nothing.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func (s *server) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.x == nil {
		return nil
	}
	err := s.x.Close()
	s.x = nil
	return err
}

// index opens the recall index on first use.
func (s *server) index() (*index.Index, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.x != nil {
		return s.x, nil
	}
	x, err := index.Open(index.Options{Home: s.opts.Home, Path: s.opts.IndexPath})
	if err != nil {
		return nil, err
	}
	s.x = x
	return x, nil
}

// catchUp brings the index up to date before a search, as `ben10 search`
// does: the archives noted by saves since the last update (internal/indexnotes)
// and those of project ("" : every project) are indexed; unchanged ones
// cost a stat. A failure leaves the search to answer from what is indexed.
func (s *server) catchUp(ctx context.Context, x *index.Index, project string) {
	opts := index.UpdateOptions{}
	if project != "" {
		opts = index.UpdateOptions{Projects: []string{project}, Only: true}
	}
	_, _ = x.Update(ctx, opts)
}

// project is the client's first file:// root, else the server's directory,
// made canonical.
func (s *server) project(ctx context.Context, req *sdk.CallToolRequest) (string, error) {
	dir := s.opts.Dir
	if req != nil && req.Session != nil {
		v, ok := s.roots.Load(req.Session)
		if !ok {
			// No initialized notification (newer protocol versions):
			// ask now; a client that cannot answer inside a call says
			// so at once.
			rs := &rootState{done: make(chan struct{})}
			if v, ok = s.roots.LoadOrStore(req.Session, rs); !ok {
				rs.root = clientRoot(ctx, req.Session)
				close(rs.done)
			}
		}
		rs := v.(*rootState)
		select {
		case <-rs.done:
			if rs.root != "" {
				dir = rs.root
			}
		case <-time.After(time.Second):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	c, err := store.CanonicalDir(dir)
	if err != nil {
		return "", fmt.Errorf("project %s: %w", dir, err)
	}
	return c, nil
}

// clientRoot asks the client for its first file:// root ("" when it
// offers none, or does not answer within a second).
func clientRoot(ctx context.Context, ss *sdk.ServerSession) string {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	//lint:ignore SA1019 roots are how a client names its project (deprecated by SEP-2577, served at least a year more)
	res, err := ss.ListRoots(ctx, nil)
	if err != nil || res == nil {
		return ""
	}
	for _, r := range res.Roots {
		u, err := url.Parse(r.URI)
		if err == nil && u.Scheme == "file" && u.Path != "" {
			return filepath.FromSlash(u.Path)
		}
	}
	return ""
}

// text is a tool result of at most MaxResult characters.
func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: Clip(s, MaxResult)}}}
}

// Clip cuts s to at most n characters, saying so at the end.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	const note = "\n… (cut to fit the result limit)"
	keep := n - utf8.RuneCountInString(note)
	i := 0
	for k := 0; k < keep; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + note
}

// errBadArgs marks an invalid argument.
var errBadArgs = errors.New("bad arguments")

func badArgs(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errBadArgs, fmt.Sprintf(format, args...))
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
