// Package dashboard is the web page where a person watches what agents
// do, takes tabs over and drives them through a live picture, answers
// approvals, settles unknown outcomes and changes the browser settings.
// It is a front end like the CLI and MCP: every change goes through the
// executor's operations (as the person's own calls, Request.Person), and
// what it shows comes from operations, the event stream and the
// executor's live pictures.
//
// Access: the server binds loopback unless told otherwise. The URL it
// prints carries a random token, which GET /?token=… exchanges for an
// HttpOnly, SameSite=Strict cookie (and drops from the address bar);
// every other request needs that cookie (compared in constant time) or is
// 401. Every request's Host must be the address the server listens on
// (a name that resolves there — DNS rebinding — is refused), an Origin
// must be the server's own, and a request that changes anything must be a
// same-origin POST of JSON (cross-site form posts are refused before
// they are read).
package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/secret"
)

//go:embed assets
var assets embed.FS

// CookieName is the session cookie the token is exchanged for.
const CookieName = "loupe_dashboard"

// Server is one running dashboard.
type Server struct {
	x      *executor.Executor
	build  string
	token  secret.String // in the printed URL
	cookie secret.String // what the token is exchanged for
	ln     net.Listener
	srv    *http.Server
	mux    *http.ServeMux
	csrf   *http.CrossOriginProtection

	quit     chan struct{} // closed by Close: streams end
	quitOnce sync.Once
}

// Start listens on addr ("" is 127.0.0.1 on a free port) and serves the
// dashboard for the executor's sessions until Close.
func Start(x *executor.Executor, addr, build string) (*Server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	s := &Server{x: x, build: build, token: newSecret(), cookie: newSecret(), ln: ln, mux: http.NewServeMux(),
		csrf: http.NewCrossOriginProtection(), quit: make(chan struct{})}
	s.routes()
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func newSecret() secret.String {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err) // the system's randomness is gone: nothing is safe
	}
	return secret.String(hex.EncodeToString(b))
}

// Addr is the address the dashboard listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the dashboard's address with its token: the one a person opens.
func (s *Server) URL() string { return "http://" + s.Addr() + "/?token=" + string(s.token) }

// Close stops serving and ends every stream.
func (s *Server) Close() error {
	s.quitOnce.Do(func() { close(s.quit) })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

func (s *Server) routes() {
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	s.mux.HandleFunc("GET /{$}", s.index)
	s.mux.Handle("GET /app.js", files)
	s.mux.Handle("GET /app.css", files)
	s.mux.HandleFunc("GET /api/state", s.state)
	s.mux.HandleFunc("POST /api/op", s.op)
	s.mux.HandleFunc("GET /api/events", s.events)
	s.mux.HandleFunc("GET /api/live", s.live)
	s.mux.HandleFunc("GET /api/approval/{id}", s.approvalShot)
}

// ServeHTTP checks every request's Host, Origin and credentials before
// anything is read or run.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.allowedHost(r.Host) {
		http.Error(w, "unknown host: open the address loupe dashboard printed", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return
	}
	if err := s.csrf.Check(r); err != nil {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == "/" && r.URL.Query().Has("token") {
		s.exchange(w, r)
		return
	}
	if !s.signedIn(r) {
		w.Header().Set("Cache-Control", "no-store")
		http.Error(w, "not signed in: open the address loupe dashboard printed (it carries the token)", http.StatusUnauthorized)
		return
	}
	if r.Method == http.MethodPost && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		http.Error(w, "send JSON", http.StatusUnsupportedMediaType)
		return
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; frame-ancestors 'none'")
	s.mux.ServeHTTP(w, r)
}

// allowedHost: the exact address listened on, or localhost at its port;
// on an unspecified address (0.0.0.0), any IP literal at its port — never
// a name, which a page could point here.
func (s *Server) allowedHost(host string) bool {
	la := s.ln.Addr().(*net.TCPAddr)
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != fmt.Sprint(la.Port) {
		return false
	}
	if host == s.Addr() || (h == "localhost" && la.IP.IsLoopback()) {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && la.IP.IsUnspecified()
}

// exchange trades the URL's token for the session cookie.
func (s *Server) exchange(w http.ResponseWriter, r *http.Request) {
	if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), []byte(string(s.token))) != 1 {
		w.Header().Set("Cache-Control", "no-store")
		http.Error(w, "wrong token: open the address loupe dashboard printed", http.StatusUnauthorized)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: string(s.cookie), Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *Server) signedIn(r *http.Request) bool {
	c, err := r.Cookie(CookieName)
	return err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(string(s.cookie))) == 1
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	b, err := assets.ReadFile("assets/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}
