// Package mcpserver serves loupe's operations as Model Context Protocol
// tools. The tools are generated from the operation descriptors in
// internal/ops (each op's Tools): names, descriptions, input schemas and
// which operation a call runs all come from there, so MCP never drifts from
// the CLI and the local API. Every call runs through a Backend (the
// daemon, a broker on the browser's machine, or — wired in from the
// daemon's side, package mcplocal — an executor in this process) as this
// server's own client of the session: its current tab and last snapshots
// are its own. The package links no engine: a remote front end (loupe mcp
// --broker) is built of it alone.
//
// What an agent gets:
//   - inputs checked against each tool's schema before anything runs; a
//     malformed call is a BAD_INPUT tool error naming the field it
//     probably meant, never a Go error string;
//   - errors as tool results (isError) carrying the registry's code,
//     message, hint (in tool calls, never CLI flags) and not_executed, as
//     text and as structured content;
//   - writes that report what changed (the executor's write report): a
//     navigation, pages opened or closed, dialogs answered, and the lines
//     of the agent's last snapshot of that surface that changed (capped);
//     navigations return the new page's snapshot;
//   - each result's _meta with its estimated token count and the time the
//     call took.
package mcpserver

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/secret"
)

// Options configure a server.
type Options struct {
	Backend Backend
	Version string
	// Tools is "core" (the tools most pages need) or "full" (default).
	Tools string
	// AllowEval adds browser_eval.
	AllowEval bool
	// NoTools registers no browser tools: browser control is turned off
	// (settings controlEnabled false).
	NoTools bool
	// Offered, when set, names the operations the backend offers (a
	// broker's capabilities): a tool none of whose operations is offered
	// is not listed, and a call of it says so.
	Offered map[string]bool
}

// Server is an MCP server over one browser session.
type Server struct {
	b    Backend
	srv  *mcp.Server
	opts Options

	reg   *ops.Registry
	tools map[string]*tool // by name
}

// New builds the server and registers its tools.
func New(o Options) (*Server, error) {
	if o.Tools == "" {
		o.Tools = "full"
	}
	if o.Tools != "core" && o.Tools != "full" {
		return nil, fmt.Errorf("--tools %q: want core or full", o.Tools)
	}
	instructions := "loupe drives a browser. Call browser_snapshot to see the page as a tree with [ref=eN] on every " +
		"actionable node, then act on refs (or locators such as role=button[name=\"Save\"]). Writes report what " +
		"changed since your last snapshot of that surface. Frames and popups are surfaces: see browser_surfaces. " +
		"Your current tab is your own: other clients of the session keep theirs."
	if o.NoTools {
		instructions = "Browser control is turned off by the person who runs loupe (setting controlEnabled): this session has no browser tools. Ask them to turn it on, then start a new session."
	}
	s := &Server{
		b: o.Backend, opts: o, reg: ops.New(),
		srv: mcp.NewServer(&mcp.Implementation{Name: "loupe", Version: o.Version}, &mcp.ServerOptions{Instructions: instructions}),
	}
	s.tools = buildTools(s.reg)
	unoffered := map[string]*apitype.Error{} // tools loupe has that this server does not offer
	for _, t := range sortedTools(s.tools) {
		var e *apitype.Error
		switch {
		case o.NoTools:
			e = apitype.Errorf(apitype.BadInput, "browser control is turned off by the person who runs loupe (setting controlEnabled)")
			e.Hint = "ask them to turn it on, then start a new session"
		case t.gate == "eval" && !o.AllowEval:
			e = apitype.Errorf(apitype.BadInput, "this server does not offer %s (scripts in the page)", t.tool.Name)
			e.Hint = "use the other tools, or ask the person who runs loupe to start it with loupe mcp --allow-eval"
		case o.Tools == "core" && !t.core:
			e = apitype.Errorf(apitype.BadInput, "%s is not in this server's core tool set", t.tool.Name)
			e.Hint = "ask the person who runs loupe to start it with loupe mcp --tools full"
		case o.Offered != nil && !t.offered(o.Offered):
			e = apitype.Errorf(apitype.TransportUnsupported, "the broker this server forwards to does not offer %s", t.tool.Name)
			e.Hint = "use the other tools; the person who runs the browser's machine decides what its broker offers"
		default:
			s.srv.AddTool(t.tool, s.handler(t))
			continue
		}
		unoffered[t.tool.Name] = e
	}
	s.srv.AddReceivingMiddleware(s.unofferedTools(unoffered))
	return s, nil
}

// unofferedTools answers a call of a tool loupe has but this server does
// not offer with a tool error that says why and how to get it, not the
// bare JSON-RPC error an unknown name gets: the agent reads tool errors.
// Nothing runs.
func (s *Server) unofferedTools(why map[string]*apitype.Error) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
					if e, ok := why[p.Name]; ok {
						// Its _meta like any tool result's: an agent
						// that budgets by loupe/estimatedTokens reads
						// it on every reply.
						c := *e
						return withMeta(s.errorResult(&c), time.Now()), nil
					}
				}
			}
			return next(ctx, method, req)
		}
	}
}

// Run serves MCP on the transport until the client disconnects or ctx
// ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.srv.Run(ctx, t)
}

// HTTPOptions guard the HTTP transport beyond its loopback checks.
type HTTPOptions struct {
	// Token, when set, must come with every request as
	// "Authorization: Bearer TOKEN" (compared in constant time); others
	// get 401 and reach nothing.
	Token secret.String
	// MaxSessions caps the MCP sessions open at once (0: 16); one more
	// initialize gets 503. A session idle for SessionIdle ends.
	MaxSessions int
}

// SessionIdle is how long an HTTP MCP session may sit idle before it ends
// (and frees its place under MaxSessions).
const SessionIdle = 30 * time.Minute

// HTTPHandler serves MCP as streamable HTTP. It refuses requests whose Host
// is not a loopback name or address, and requests whose Origin (when a
// browser sends one) is not loopback: a web page must not reach a local
// browser runtime through DNS rebinding or a cross-site request. With
// o.Token, every request needs it; o.MaxSessions bounds the sessions.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	if o.MaxSessions <= 0 {
		o.MaxSessions = 16
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{SessionTimeout: SessionIdle})
	live := &sessionCount{max: o.MaxSessions, seen: map[string]time.Time{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			http.Error(w, "loupe mcp: Host must be a loopback address", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || !loopbackHost(u.Host) {
				http.Error(w, "loupe mcp: cross-origin requests are refused", http.StatusForbidden)
				return
			}
		}
		if o.Token != "" && !bearer(r, string(o.Token)) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="loupe mcp"`)
			http.Error(w, "loupe mcp: a bearer token is required", http.StatusUnauthorized)
			return
		}
		id := r.Header.Get("Mcp-Session-Id")
		if id == "" && r.Method == http.MethodPost {
			// A new session holds its place from now until the SDK has
			// named it (or refused it): initializes that arrive together
			// cannot all see the same free place.
			if !live.reserve() {
				http.Error(w, fmt.Sprintf("loupe mcp: %d sessions are open already; close one first", o.MaxSessions), http.StatusServiceUnavailable)
				return
			}
			defer live.release()
		}
		sw := &sessionWriter{ResponseWriter: w, live: live, code: http.StatusOK}
		h.ServeHTTP(sw, r)
		switch {
		case id != "" && (r.Method == http.MethodDelete || sw.code == http.StatusNotFound):
			live.end(id)
		case id != "" && sw.code < 400:
			live.touch(id)
		}
	})
}

// CloseSessions ends every MCP session the server has open (each HTTP
// session's goroutines run until it ends, SessionIdle at the latest): the
// HTTP server's owner calls it after Shutdown.
func (s *Server) CloseSessions() {
	for ss := range s.srv.Sessions() {
		_ = ss.Close()
	}
}

// bearer reports whether the request carries the token.
func bearer(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// sessionCount tracks the HTTP sessions open: started when a response
// names a new session id, ended by DELETE or SessionIdle without a request.
type sessionCount struct {
	max     int
	mu      sync.Mutex
	seen    map[string]time.Time // session id → last request
	pending int                  // new sessions being made (reserve, release)
}

// reserve takes a place for a session being made, if there is one.
func (c *sessionCount) reserve() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, t := range c.seen {
		if time.Since(t) > SessionIdle {
			delete(c.seen, id)
		}
	}
	if len(c.seen)+c.pending >= c.max {
		return false
	}
	c.pending++
	return true
}

// release gives back the place reserve took: the session is made (and
// counted by its id) or refused.
func (c *sessionCount) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending--
}

func (c *sessionCount) touch(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[id] = time.Now()
}

func (c *sessionCount) end(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.seen, id)
}

// sessionWriter notes the session id the SDK gives a new session.
type sessionWriter struct {
	http.ResponseWriter
	live *sessionCount
	code int
	done bool
}

func (w *sessionWriter) WriteHeader(code int) {
	if !w.done {
		w.code = code
	}
	w.note()
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionWriter) Write(b []byte) (int, error) {
	w.note()
	return w.ResponseWriter.Write(b)
}

func (w *sessionWriter) note() {
	if w.done {
		return
	}
	w.done = true
	if id := w.Header().Get("Mcp-Session-Id"); id != "" && w.code < 400 {
		w.live.touch(id)
	}
}

// Flush passes streaming through.
func (w *sessionWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		w.note()
		f.Flush()
	}
}

// loopbackHost reports whether a Host header (host or host:port) names
// this machine's loopback: localhost, 127.0.0.0/8 or ::1.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// errorResult turns an error into a tool error with the registry's code,
// message, hint and not_executed.
func (s *Server) errorResult(err error) *mcp.CallToolResult {
	e, ok := apitype.As(err)
	if !ok {
		e = apitype.Wrap(apitype.Internal, err, "%v", err)
	}
	e = e.Render(renderer{s})
	text := fmt.Sprintf("%s: %s", e.Code, e.Message)
	if e.Hint != "" {
		text += "\nhint: " + e.Hint
	}
	if len(e.Candidates) > 0 {
		text += "\ncandidates: " + strings.Join(e.Candidates, ", ")
	}
	if len(e.SimilarRefs) > 0 {
		text += "\nsimilar refs: " + strings.Join(e.SimilarRefs, ", ")
	}
	if e.NotExecuted {
		text += "\nnot executed: safe to retry after fixing the cause"
	} else {
		text += "\nnot_executed: false (the action may have run)"
	}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: map[string]*apitype.Error{"error": e},
	}
}

// withMeta records the result's estimated tokens (characters of its text
// over four) and the call's elapsed time in its _meta.
func withMeta(r *mcp.CallToolResult, start time.Time) *mcp.CallToolResult {
	n := 0
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			n += len(t.Text)
		}
	}
	if r.Meta == nil {
		r.Meta = mcp.Meta{}
	}
	r.Meta["loupe/estimatedTokens"] = (n + 3) / 4
	r.Meta["loupe/elapsedMs"] = float64(time.Since(start).Microseconds()) / 1000
	return r
}

// text is an output's terse form.
func text(out any) string {
	if t, ok := out.(ops.Texter); ok {
		return t.Text()
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// Tools lists the names of the tools the server offers.
func (s *Server) Tools() []string {
	var names []string
	for _, t := range sortedTools(s.tools) {
		if s.opts.Tools == "core" && !t.core || t.gate == "eval" && !s.opts.AllowEval {
			continue
		}
		names = append(names, t.tool.Name)
	}
	return names
}
