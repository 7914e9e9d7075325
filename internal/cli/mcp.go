package cli

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/homedir"
	"github.com/loupe-dev/loupe/internal/mcpserver"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/secret"
	"github.com/loupe-dev/loupe/internal/settings"
)

const mcpUsage = "usage: loupe mcp [--http 127.0.0.1:PORT] [--daemon | --broker URL [--reroute]] [--headed] [--cdp URL | --grid URL] [--session NAME] [--task ID] [--allow-eval] [--allow-local-pages] [--tools core|full] [--token TOKEN|auto | --no-token] [--max-sessions N] [--print-config CLIENT]"

const mcpHelp = mcpUsage + `

Serve loupe's tools over the Model Context Protocol: on stdin/stdout, or with
--http as streamable HTTP on a loopback address (requests whose Host or Origin
is not loopback are refused).

By default the engine runs in this process: a browser session (default name
"mcp") started on the first tool call and closed when the server stops. Its
profile and files are under LOUPE_HOME/mcp/sessions/NAME, apart from the
daemon's sessions.

  --http 127.0.0.1:PORT  streamable HTTP on this loopback address, not stdio
  --daemon               use the daemon's sessions instead (shared with the CLI)
  --broker URL           forward every call to the loupe broker at URL (the
                         browser's machine, through an SSH reverse forward):
                         the token comes from LOUPE_BROKER_TOKEN, never a flag;
                         --session names the remote session; screenshots and
                         recordings land in LOUPE_HOME/broker-relay/SESSION,
                         and uploads name files there
  --reroute              with --broker URL --session NAME: point the running
                         front end of that session at URL (after the SSH
                         forward moved to another port), then exit
  --headed               show the browser window (in-process engine)
  --cdp URL              attach the session to a running browser or Electron app
  --grid URL             take the session's browser from the Selenium Grid 4 at
                         URL (capabilities: LOUPE_GRID_CAPABILITIES)
  --session NAME         the session to use
  --task ID              the task the agent works as (default: one per server);
                         it writes only in tabs no other task owns
  --allow-eval           add browser_eval (JavaScript in the page)
  --allow-local-pages    let the agent open file: and chrome: pages (local files,
                         the browser's own pages); refused by default
  --token TOKEN|auto     with --http: every request needs
                         "Authorization: Bearer TOKEN"; auto (the default)
                         makes a random one and prints it once on stderr
  --no-token             with --http: serve without a token (any process on
                         this machine can then drive the browser; said on
                         stderr)
  --max-sessions N       with --http: at most N MCP sessions at once (default 16)
  --print-config CLIENT  print the configuration that makes CLIENT start this
                         server (with the other flags given), and where it goes:
                         claude-code, claude-desktop, cursor, vscode, codex or
                         windsurf; nothing is served
  --tools core|full      core: only the core tools (fewer tokens in the tool
                         list); full (the default): every tool`

type mcpFlags struct {
	http, cdp, tools, token string
	printConfig             string
	// serverArgs are the flags without --print-config: what a client's
	// configuration starts loupe mcp with.
	serverArgs               []string
	daemon, headed, allowEva bool
	localPages, noToken      bool
	broker, grid             string
	reroute                  bool
	maxSessions              int
}

func parseMCPFlags(args []string) (mcpFlags, error) {
	var f mcpFlags
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.http, "http", "", "")
	fs.StringVar(&f.cdp, "cdp", "", "")
	fs.StringVar(&f.grid, "grid", "", "")
	fs.StringVar(&f.tools, "tools", "full", "")
	fs.BoolVar(&f.daemon, "daemon", false, "")
	fs.StringVar(&f.broker, "broker", "", "")
	fs.BoolVar(&f.reroute, "reroute", false, "")
	fs.BoolVar(&f.headed, "headed", false, "")
	fs.BoolVar(&f.allowEva, "allow-eval", false, "")
	fs.BoolVar(&f.localPages, "allow-local-pages", false, "")
	fs.StringVar(&f.token, "token", "", "")
	fs.BoolVar(&f.noToken, "no-token", false, "")
	fs.IntVar(&f.maxSessions, "max-sessions", 16, "")
	fs.StringVar(&f.printConfig, "print-config", "", "")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--print-config" || a == "-print-config":
			i++ // and its value
		case strings.HasPrefix(a, "--print-config=") || strings.HasPrefix(a, "-print-config="):
		default:
			f.serverArgs = append(f.serverArgs, a)
		}
	}
	if f.printConfig != "" && f.http != "" {
		return f, errors.New("--print-config is for clients that start loupe mcp themselves, over stdio; drop --http")
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if f.tools != "core" && f.tools != "full" {
		return f, fmt.Errorf("--tools %q: want core or full", f.tools)
	}
	if f.reroute && f.broker == "" {
		return f, errors.New("--reroute needs --broker NEW_URL and --session NAME: the address the running front end of that session is to use")
	}
	if f.broker != "" {
		if err := mcpserver.CheckBrokerURL(f.broker); err != nil {
			return f, fmt.Errorf("--broker %w", err)
		}
		if f.daemon || f.headed || f.cdp != "" || f.grid != "" {
			return f, errors.New("--broker forwards to the browser's machine: --daemon, --headed, --cdp and --grid apply to a browser of this one")
		}
	}
	if f.cdp != "" && f.grid != "" {
		return f, errors.New("--cdp and --grid: give one")
	}
	if f.daemon && f.headed {
		return f, errors.New("--headed applies to the in-process engine; start the daemon with LOUPE_HEADED=1 instead")
	}
	if f.http == "" && (f.token != "" || f.noToken || f.maxSessions != 16) {
		return f, errors.New("--token, --no-token and --max-sessions apply to --http")
	}
	if f.noToken && f.token != "" {
		return f, errors.New("--token and --no-token: give one")
	}
	if f.http != "" && f.token == "" && !f.noToken {
		f.token = "auto" // a local process must not drive the browser unasked
	}
	if f.maxSessions < 1 || f.maxSessions > 1024 {
		return f, fmt.Errorf("--max-sessions %d: want 1 to 1024", f.maxSessions)
	}
	if f.token != "" && f.token != "auto" && len(f.token) < 16 {
		return f, errors.New("--token: use at least 16 characters (or auto)")
	}
	if f.http != "" {
		host, port, err := net.SplitHostPort(f.http)
		if err != nil {
			return f, fmt.Errorf("--http %q: want host:port", f.http)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			return f, fmt.Errorf("--http %q: port %s is not between 0 and 65535", f.http, port)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return f, fmt.Errorf("--http %q: loupe serves MCP on loopback addresses only", f.http)
		}
	}
	return f, nil
}

// mcp serves MCP until the client goes away (stdio) or a signal arrives.
func (c *cmd) mcp(ctx context.Context, args []string) int {
	f, err := parseMCPFlags(args)
	if err == nil && f.printConfig != "" {
		bin, berr := os.Executable()
		if berr != nil {
			return c.fail(berr)
		}
		server := []string{"mcp"}
		if c.sessionSet {
			server = append(server, "--session", c.session)
		}
		if c.task != "" {
			server = append(server, "--task", c.task)
		}
		return c.printMCPConfig(f.printConfig, bin, append(server, f.serverArgs...))
	}
	if err != nil {
		return c.usage(err, mcpUsage)
	}
	if err := homedir.Prepare(c.home); err != nil {
		return c.fail(err)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	session := "mcp"
	if c.sessionSet || f.daemon {
		session = c.session
	}
	var backend mcpserver.Backend
	var offered map[string]bool
	if f.reroute {
		// No token needed: this only tells the running front end of the
		// session, on this machine, where the broker is now.
		if !c.sessionSet {
			return c.usage(errors.New("--reroute: name the remote session whose front end moves (--session NAME)"), mcpUsage)
		}
		relay := filepath.Join(c.home, "broker-relay", session)
		if err := mcpserver.WriteRoute(relay, f.broker); err != nil {
			return c.fail(apitype.Wrap(apitype.FileError, err, "writing the route of session %s: %v", session, err))
		}
		fmt.Fprintf(c.stdout, "session %s: the running front end uses %s from its next call\n", session, f.broker)
		return 0
	}
	if f.broker != "" {
		token := os.Getenv("LOUPE_BROKER_TOKEN")
		if token == "" {
			return c.usage(errors.New("--broker: set LOUPE_BROKER_TOKEN to the token loupe broker register printed on the browser's machine"), mcpUsage)
		}
		b := &mcpserver.Broker{URL: f.broker, Token: secret.String(token), Session: session,
			Relay: filepath.Join(c.home, "broker-relay", session)}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		offered, err = b.Offered(cctx)
		cancel()
		if err != nil {
			return c.fail(err)
		}
		backend = b
	} else if f.daemon {
		cl, err := c.ensureDaemon(ctx)
		if err != nil {
			return c.fail(err)
		}
		// Each MCP server is its own client of the daemon's session: its
		// current tab and snapshots are its own, apart from the CLI's.
		// A daemon that stopped is started again on the next call, as the
		// CLI does (one start at a time: calls arrive concurrently).
		var starting sync.Mutex
		reconnect := func(ctx context.Context) error {
			starting.Lock()
			defer starting.Unlock()
			if _, err := c.ensureDaemon(ctx); err != nil {
				return mcpserver.StartError(err)
			}
			return nil
		}
		r := &mcpserver.Remote{C: cl, Reconnect: reconnect}
		r.Session, r.Client, r.Task, r.LocalPages = session, fmt.Sprintf("mcp-%d", os.Getpid()), c.task, f.localPages
		backend = r
	} else {
		// The engine in this process, from the daemon's side: its
		// sessions live apart from the daemon's.
		if c.sys.LocalMCP == nil {
			return c.fail(errors.New("this loupe binary has no engine in it: use loupe mcp --daemon or --broker URL"))
		}
		b, closeSys, err := c.sys.LocalMCP(ctx, MCPConfig{Home: c.home, Ledger: os.Getenv(ledgerEnv), Session: session, Client: "mcp", Task: c.task,
			LocalPages: f.localPages, Headed: f.headed})
		if err != nil {
			return c.fail(err)
		}
		backend = b
		defer func() {
			cctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			_ = closeSys(cctx)
		}()
	}
	if f.cdp != "" || f.grid != "" {
		actx, cancel := context.WithTimeout(ctx, 30*time.Second)
		op, _ := c.reg.Lookup("attach")
		in, _ := json.Marshal(ops.AttachIn{CDP: f.cdp, Grid: f.grid})
		if f.grid != "" {
			in, _ = json.Marshal(ops.AttachIn{Grid: f.grid, Capabilities: os.Getenv("LOUPE_GRID_CAPABILITIES")})
		}
		_, err := backend.Do(actx, mcpserver.Call{Op: op, OpRequest: apitype.OpRequest{Input: in}})
		cancel()
		if err != nil {
			return c.fail(err)
		}
	}
	// A person who turned browser control off gets an MCP session without
	// browser tools (one started before keeps its tools; its writes are
	// refused).
	set, err := settings.Open(c.home).Get()
	if err != nil {
		return c.fail(err)
	}
	srv, err := mcpserver.New(mcpserver.Options{Backend: backend, Version: Version, Tools: f.tools, AllowEval: f.allowEva, NoTools: !set.ControlEnabled, Offered: offered})
	if err != nil {
		return c.usage(err, mcpUsage)
	}
	if f.http != "" {
		err = c.serveHTTP(ctx, f, srv)
	} else {
		// Not the SDK's StdioTransport: it ends the session on the first
		// malformed line; this one answers it and reads on.
		err = srv.Run(ctx, mcpserver.StdioTransport())
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(c.stderr, "loupe mcp:", err)
		return 1
	}
	return 0
}

// serveHTTP serves streamable HTTP on a loopback address until ctx ends.
// It prints the address it listens on (useful with port 0).
func (c *cmd) serveHTTP(ctx context.Context, f mcpFlags, srv *mcpserver.Server) error {
	addr, o := f.http, mcpserver.HTTPOptions{Token: secret.String(f.token), MaxSessions: f.maxSessions}
	if o.Token == "auto" {
		var b [24]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		o.Token = secret.String(base64.RawURLEncoding.EncodeToString(b[:]))
		// Printed once, on purpose: the person hands it to the client.
		fmt.Fprintf(c.stderr, "loupe mcp: bearer token %s\n", string(o.Token))
	}
	if f.noToken {
		fmt.Fprintln(c.stderr, "loupe mcp: serving without a token (--no-token): any process on this machine can drive the browser")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv.HTTPHandler(o), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(c.stderr, "loupe mcp: serving MCP at http://%s/\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	srv.CloseSessions()
	return nil
}
