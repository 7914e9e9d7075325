// Package broker is loupe's HTTP front end for remote agents: a loopback
// server in the daemon (loupe broker serve) that a remote host reaches
// through a forwarded port. Routes:
//
//	GET  /v1/capabilities    the broker's version and operations
//	POST /v1/browser/OP      run an operation (OP as in the local API:
//	                         tab.new); body: the operation's JSON input
//	GET  /v1/files/NAME      a file of the remote session's own files
//	                         directory on this machine (a recording it
//	                         made), for its front end to write on its side
//
// A reply is the local API's: apitype.OpResponse, with the output, the
// write's operation id, its report, or an error with its code, hint and
// not_executed — so a remote MCP front end can be a thin client of it.
// Optional request headers: Loupe-Operation-Id, Loupe-Document-Token and
// Loupe-Report (diff or snapshot) carry what the local API's request
// body does.
//
// Access: every request needs Authorization: Bearer TOKEN, a token minted
// by loupe broker register for one host connection generation (see
// Store); a missing, unknown, revoked or replaced token is 401. The
// server binds loopback only, and a request whose Host is not a loopback
// address (DNS rebinding: a name that resolves here) or that carries an
// Origin (a web page) is refused before it is read. Any port is taken:
// through a forward the Host names the forward's port on the agent's
// machine, which need not be the broker's, and changes when the person
// rotates the forward.
//
// Routing: every request names its remote session in Loupe-Session. The
// call runs in the broker's loupe session as task remote:HOST#GEN/NAME,
// confined to the tabs that task opened (executor.Request.Confined): a
// remote session never sees or acts in another's tabs or the person's
// (NO_GRANT, not executed). Its first open opens a tab of its own.
package broker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/filesdir"
	"github.com/loupe-dev/loupe/internal/ops"
)

// Request headers.
const (
	HeaderSession       = "Loupe-Session"
	HeaderOperationID   = "Loupe-Operation-Id"
	HeaderDocumentToken = "Loupe-Document-Token"
	HeaderReport        = "Loupe-Report"
)

// maxBody bounds a request body: inputs are small. maxFilesBody bounds
// one that carries files (an upload staged from the remote side), as
// the remote front end bounds a reply.
const (
	maxBody      = 1 << 20
	maxFilesBody = 64 << 20
)

// Executor is what the broker needs of the daemon's executor.
type Executor interface {
	Do(ctx context.Context, req executor.Request) (*executor.Result, error)
	Registry() *ops.Registry
	OwnsTab(session, task string) bool
	// FilesOf is a remote session's own files directory.
	FilesOf(session, task string) filesdir.Dir
}

// Config configures a broker server.
type Config struct {
	X     Executor
	Store *Store
	// Addr is where to listen: a loopback address ("" is 127.0.0.1 on a
	// free port).
	Addr  string
	Build string
	// Session is the loupe session remote agents work in ("" is
	// "default"): the person's browser, where their tabs are kept apart.
	Session string
}

// Server is one running broker.
type Server struct {
	cfg     Config
	offered map[string]*ops.Op
	ln      net.Listener
	srv     *http.Server
	mux     *http.ServeMux
}

// Task is the task a remote session works as: one per host, connection
// generation and session, so that a new generation starts with nothing
// of the old one's.
func Task(host string, gen int64, session string) string {
	return fmt.Sprintf("remote:%s#%d/%s", host, gen, session)
}

// HostTasks matches the tasks of a host's generations older than gen:
// a registration of generation gen ends those below it, a revocation of
// generation gen ends those below gen+1 — never a later generation's.
func HostTasks(host string, gen int64) func(task string) bool {
	prefix := "remote:" + host + "#"
	return func(task string) bool {
		rest, ok := strings.CutPrefix(task, prefix)
		if !ok {
			return false
		}
		var g int64
		if _, err := fmt.Sscanf(rest, "%d/", &g); err != nil {
			return false
		}
		return g < gen
	}
}

// CheckAddr refuses an address that is not loopback: the broker is
// reached through a forwarded port, never directly from the network.
func CheckAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("broker address %q: want HOST:PORT, such as 127.0.0.1:8766", addr)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("broker address %q is not loopback: the broker listens on 127.0.0.1 or ::1 only (forward a port to reach it from another host)", addr)
	}
	return nil
}

// Start listens and serves until Close.
func Start(cfg Config) (*Server, error) {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Session == "" {
		cfg.Session = "default"
	}
	if err := CheckAddr(cfg.Addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("broker: %w", err)
	}
	s := NewServer(cfg)
	s.ln = ln
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// NewServer is the broker's handler without a listener (Start listens);
// tests serve it themselves.
func NewServer(cfg Config) *Server {
	if cfg.Session == "" {
		cfg.Session = "default"
	}
	s := &Server{cfg: cfg, offered: Offered(cfg.X.Registry()), mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /v1/capabilities", s.capabilities)
	s.mux.HandleFunc("POST /v1/browser/{op}", s.op)
	s.mux.HandleFunc("GET /v1/files/{name...}", s.file)
	return s
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the broker's base URL.
func (s *Server) URL() string { return "http://" + s.Addr() }

// Close stops the server; calls in flight are cut off.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		return errors.Join(err, s.srv.Close())
	}
	return nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Origin") != "" {
		writeError(w, http.StatusForbidden, apitype.Errorf(apitype.ForeignOrigin, "the broker refuses requests from web pages (they carry an Origin)"))
		return
	}
	if !s.loopbackHost(r.Host) {
		writeError(w, http.StatusForbidden, apitype.Errorf(apitype.ForeignOrigin, "the broker refuses Host %q: it answers only to a loopback address", r.Host))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// loopbackHost reports whether a Host header names a loopback address
// (at any port): a name that merely resolves here (DNS rebinding) is
// refused.
func (s *Server) loopbackHost(h string) bool {
	host, _, err := net.SplitHostPort(h)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// authenticate is the host of the request's bearer token, or a 401.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (Host, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if ok {
		if h, ok := s.cfg.Store.Authenticate(strings.TrimSpace(token)); ok {
			return h, true
		}
	}
	e := apitype.Errorf(apitype.NoGrant, "the broker needs a current host token (Authorization: Bearer TOKEN); this request has none, or one that was revoked or replaced by a newer registration").
		Fix("ask the person to register this host again (loupe broker register --host NAME) and use the token it prints")
	w.Header().Set("WWW-Authenticate", `Bearer realm="loupe-broker"`)
	writeError(w, http.StatusUnauthorized, e)
	return Host{}, false
}

func (s *Server) capabilities(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.authenticate(w, r); !ok {
		return
	}
	writeJSON(w, http.StatusOK, capabilities(s.offered, s.cfg.Build))
}

func (s *Server) op(w http.ResponseWriter, r *http.Request) {
	h, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	name := strings.ReplaceAll(r.PathValue("op"), ".", " ")
	op, ok := s.offered[name]
	if !ok {
		writeError(w, http.StatusNotImplemented, apitype.Errorf(apitype.TransportUnsupported, "this broker (version %s) does not offer operation %q", Version, r.PathValue("op")).
			Fix("see GET /v1/capabilities for the operations it offers"))
		return
	}
	session, ok := sessionOf(w, r)
	if !ok {
		return
	}
	limit := int64(maxBody)
	if carriesFiles[op.Name] {
		limit = maxFilesBody
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err == nil && int64(len(body)) > limit {
		err = fmt.Errorf("request body over %d bytes", limit)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, apitype.Errorf(apitype.BadInput, "bad request: %v", err))
		return
	}
	req := executor.Request{Op: op.Name, Confined: true, OpRequest: apitype.OpRequest{
		Session: s.cfg.Session, Task: Task(h.Name, h.Generation, session), Input: json.RawMessage(bytes.TrimSpace(body)),
		OperationID: r.Header.Get(HeaderOperationID), DocumentToken: r.Header.Get(HeaderDocumentToken),
	}}
	req.Client = req.Task // each remote session keeps its own current tab
	switch r.Header.Get(HeaderReport) {
	case "":
	case "diff":
		req.Report = &apitype.ReportOptions{Diff: true}
	case "snapshot":
		req.Report = &apitype.ReportOptions{Snapshot: true}
	default:
		writeError(w, http.StatusBadRequest, apitype.Errorf(apitype.BadInput, "%s: want diff or snapshot", HeaderReport))
		return
	}
	if op.Name == "open" && !s.cfg.X.OwnsTab(req.Session, req.Task) {
		req.Input = inNewTab(req.Input)
	}
	out, err := s.cfg.X.Do(r.Context(), req)
	resp, e := executor.Response(out, err)
	if e != nil {
		writeJSON(w, statusOf(resp.Error.Code), resp)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// sessionOf is the request's remote session (Loupe-Session), or a 400.
func sessionOf(w http.ResponseWriter, r *http.Request) (string, bool) {
	session := r.Header.Get(HeaderSession)
	if session == "" || !apitype.ValidSession(session) {
		writeError(w, http.StatusBadRequest, apitype.Errorf(apitype.BadInput, "every broker request names its session in the %s header (%s); got %q", HeaderSession, apitype.SessionRule, session))
		return "", false
	}
	return session, true
}

// file sends a file of the remote session's own files directory: what it
// recorded there, for its front end to write on the remote side. Names
// resolve as every client's file names do (filesdir: no absolute path,
// no climbing out, no symlink, regular files only), inside this remote
// session's directory, so one session never reads another's files or the
// person's.
func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	h, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	session, ok := sessionOf(w, r)
	if !ok {
		return
	}
	p, err := s.cfg.X.FilesOf(s.cfg.Session, Task(h.Name, h.Generation, session)).Path(r.PathValue("name"))
	if err != nil {
		e, _ := apitype.As(err)
		writeError(w, http.StatusNotFound, e)
		return
	}
	f, err := os.Open(p)
	if err != nil {
		writeError(w, http.StatusNotFound, apitype.Errorf(apitype.FileError, "file %q: %v", r.PathValue("name"), err))
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		writeError(w, http.StatusInternalServerError, apitype.Errorf(apitype.FileError, "file %q: %v", r.PathValue("name"), err))
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(fi.Size(), 10))
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, f)
}

// inNewTab sets new_tab on an open's input: a remote session that owns
// no tab yet opens its first page in a tab of its own, not in the tab
// the person sees (which it could not use anyway). An input that is not
// an object is left for the executor to refuse.
func inNewTab(in json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if len(in) == 0 {
		m = map[string]json.RawMessage{}
	} else if err := json.Unmarshal(in, &m); err != nil || m == nil {
		return in
	}
	m["new_tab"] = json.RawMessage("true")
	b, err := json.Marshal(m)
	if err != nil {
		return in
	}
	return b
}

func statusOf(c apitype.Code) int {
	switch c {
	case apitype.BadInput:
		return http.StatusBadRequest
	case apitype.NoGrant:
		return http.StatusForbidden
	case apitype.TransportUnsupported:
		return http.StatusNotImplemented
	case apitype.Internal:
		return http.StatusInternalServerError
	}
	return http.StatusConflict
}

func writeError(w http.ResponseWriter, code int, e *apitype.Error) {
	writeJSON(w, code, apitype.OpResponse{Error: e})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
