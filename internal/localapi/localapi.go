// Package localapi serves the daemon's local API: HTTP over a unix socket
// that only the daemon's user can open. Routes:
//
//	POST /v0/op/NAME   run an operation (body: apitype.OpRequest)
//	GET  /v0/status    daemon build, pid, memory, sessions
//	POST /v0/shutdown  stop every session and exit
//	GET  /v0/events    the event stream, NDJSON (?session=S&since=SEQ)
//
// The socket's permissions are the access control. As defence in depth the
// handler refuses any request that carries an Origin header or a Host other
// than apitype.Host: a browser page can never be a client.
package localapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/executor"
)

// maxBody bounds a request body: inputs are small, but an upload carries
// its files.
const maxBody = 64 << 20

// Server is the local API handler.
type Server struct {
	x        *executor.Executor
	build    string
	home     string
	started  time.Time
	instance string // HeaderDaemon's value
	shutdown func()
	mux      *http.ServeMux
	quit     chan struct{} // closed by Close: event streams end
	quitOnce sync.Once
}

// New returns the handler. shutdown is called (once, asynchronously) when a
// client asks the daemon to stop.
func New(x *executor.Executor, build, home string, shutdown func()) *Server {
	s := &Server{x: x, build: build, home: home, started: time.Now(), shutdown: shutdown, mux: http.NewServeMux(), quit: make(chan struct{})}
	s.instance = fmt.Sprintf("%d-%d", os.Getpid(), s.started.UnixNano())
	s.mux.HandleFunc("POST "+apitype.Prefix+"/op/{name}", s.op)
	s.mux.HandleFunc("GET "+apitype.Prefix+"/status", s.status)
	s.mux.HandleFunc("POST "+apitype.Prefix+"/shutdown", s.stop)
	s.mux.HandleFunc("GET "+apitype.Prefix+"/events", s.events)
	return s
}

// Close ends the event streams (the daemon calls it as it shuts down, so
// that they do not hold its shutdown up).
func (s *Server) Close() { s.quitOnce.Do(func() { close(s.quit) }) }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Origin") != "" || (r.Host != apitype.Host && r.Host != "") {
		writeError(w, http.StatusForbidden, apitype.Errorf(apitype.ForeignOrigin, "the local API refuses requests that carry an Origin or a Host other than %q", apitype.Host))
		return
	}
	w.Header().Set(apitype.HeaderBuild, s.build)
	w.Header().Set(apitype.HeaderDaemon, s.instance)
	s.mux.ServeHTTP(w, r)
}

func (s *Server) op(w http.ResponseWriter, r *http.Request) {
	name := strings.ReplaceAll(r.PathValue("name"), ".", " ")
	// A client of another build may mean other things by the same input:
	// refuse before anything runs, not after.
	if b := r.Header.Get(apitype.HeaderBuild); b != "" && s.build != "" && b != s.build {
		e := apitype.Errorf(apitype.DaemonUnavailable, "the running daemon is build %s, this loupe is build %s", s.build, b)
		writeError(w, http.StatusConflict, e.Fix("restart the daemon with this build ({1}; its sessions will close)", apitype.Step{Op: "daemon stop"}))
		return
	}
	var req apitype.OpRequest
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err == nil && len(body) > maxBody {
		err = errors.New("request body too large")
	}
	if err == nil && len(body) > 0 {
		dec := json.NewDecoder(strings.NewReader(string(body)))
		dec.DisallowUnknownFields()
		err = dec.Decode(&req)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, apitype.Errorf(apitype.BadInput, "bad request: %v", err))
		return
	}
	out, err := s.x.Do(r.Context(), executor.Request{Op: name, OpRequest: req})
	resp, e := executor.Response(out, err)
	if e != nil {
		writeJSON(w, statusOf(resp.Error.Code), resp)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func statusOf(c apitype.Code) int {
	switch c {
	case apitype.BadInput:
		return http.StatusBadRequest
	case apitype.Internal:
		return http.StatusInternalServerError
	}
	return http.StatusConflict
}

func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, apitype.Status{
		Build: s.build, PID: os.Getpid(), RSSBytes: rss(), Uptime: time.Since(s.started).Round(time.Second).String(),
		Home: s.home, Ledger: s.x.Ledger(), Sessions: s.x.Sessions(),
	})
}

func (s *Server) stop(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusAccepted)
	go s.shutdown()
}

func writeError(w http.ResponseWriter, code int, e *apitype.Error) {
	writeJSON(w, code, apitype.OpResponse{Error: e})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// rss is the daemon's resident memory from /proc (0 where unavailable).
func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	var pages int64
	for _, c := range f[1] {
		pages = pages*10 + int64(c-'0')
	}
	return pages * int64(os.Getpagesize())
}
