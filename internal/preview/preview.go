// Package preview serves local HTML files to the browser for a task: a
// file is authorised for one tab, and it and the files beside it are
// served from a loopback HTTP server under a random, unguessable token in
// the host name, http://TOKEN.localhost:PORT/NAME: the file's directory is
// the site's root, so root-relative links (/assets/app.js, /child.html)
// resolve as they do on the site the page was written for, and each
// preview is an origin of its own. The browser resolves every name under
// localhost to loopback itself (no DNS). Nothing else is served: another
// token or host name, a path outside the file's directory, a directory,
// a dotfile or a symlink is 404.
//
// A grant lasts while its tab shows it: it ends when the tab closes,
// navigates away from the token's pages (checked at each request), its
// task ends, or the file is previewed again (a new token replaces the
// old). Tokens live in memory only: nothing of them is persisted.
package preview

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Grant is one authorised preview.
type Grant struct {
	Token string
	Dir   string // the directory served (the file's)
	File  string // the file's name in Dir
	Path  string // the file, whole
	Tab   string // the tab it is bound to
	Task  string
	// shows reports whether the tab still shows the grant's pages (its
	// address starts with prefix); false ends the grant.
	shows func(prefix string) bool
	// opened: the file itself was served once, to the navigation that
	// opens it (before the tab shows it); after that it too is served
	// only while the tab shows the grant's pages.
	opened bool
	// seen: the tab was seen showing the grant's pages. Until then the
	// page's own requests (its stylesheet, scripts) may come before loupe
	// has heard that the tab shows it — a race a loaded machine lost —
	// and are served; once seen, a tab that shows something else ends
	// the grant.
	seen bool
}

// Server serves the grants. The zero value is not usable; call New.
type Server struct {
	mu     sync.Mutex
	ln     net.Listener
	srv    *http.Server
	grants map[string]*Grant // by token
}

// New returns a server; it listens on first use.
func New() *Server {
	return &Server{grants: map[string]*Grant{}}
}

// Allow authorises file (an existing .html or .htm file, absolute) for a
// tab of a task and returns its URL; shows tells, at each request for a
// file beside it, whether the tab still shows the grant's pages. An
// earlier grant of the same tab ends: its token is 404 from now on.
func (s *Server) Allow(file, tab, task string, shows func(prefix string) bool) (string, error) {
	ext := strings.ToLower(filepath.Ext(file))
	if ext != ".html" && ext != ".htm" {
		return "", fmt.Errorf("%s: a preview is of an .html or .htm file", file)
	}
	fi, err := os.Lstat(file)
	if err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s: no such file (a symlink is not followed)", file)
	}
	port, err := s.listen()
	if err != nil {
		return "", err
	}
	tok, err := token()
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for t, g := range s.grants {
		if g.Tab == tab {
			delete(s.grants, t)
		}
	}
	s.grants[tok] = &Grant{Token: tok, Dir: filepath.Dir(file), File: filepath.Base(file), Path: file, Tab: tab, Task: task, shows: shows}
	return siteOf(tok, port) + urlPath(filepath.Base(file)), nil
}

// siteOf is the root address of a token's pages.
func siteOf(tok, port string) string { return "http://" + tok + ".localhost:" + port + "/" }

// Release ends every grant of a tab.
func (s *Server) Release(tab string) { s.drop(func(g *Grant) bool { return g.Tab == tab }) }

// EndTask ends every grant of a task.
func (s *Server) EndTask(task string) { s.drop(func(g *Grant) bool { return g.Task == task }) }

func (s *Server) drop(match func(*Grant) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for t, g := range s.grants {
		if match(g) {
			delete(s.grants, t)
		}
	}
}

// Path is the file a tab's grant authorises ("" for none).
func (s *Server) Path(tab string) string {
	g, _ := s.Of(tab)
	return g.Path
}

// Of returns the grant a tab holds, if any.
func (s *Server) Of(tab string) (Grant, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.grants {
		if g.Tab == tab {
			return *g, true
		}
	}
	return Grant{}, false
}

// Showing returns the file a tab's grant authorises when address (the
// tab's) is one of the grant's pages.
func (s *Server) Showing(tab, address string) (string, bool) {
	g, ok := s.Of(tab)
	if !ok {
		return "", false
	}
	port := s.port()
	return g.Path, port != "" && strings.HasPrefix(address, siteOf(g.Token, port))
}

// Close stops serving and ends every grant.
func (s *Server) Close() error {
	s.mu.Lock()
	srv := s.srv
	s.srv, s.ln, s.grants = nil, nil, map[string]*Grant{}
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(ctx)
}

// listen starts the server on a loopback port the first time and
// returns the port.
func (s *Server) listen() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		return portOf(s.ln), nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	s.ln = ln
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	srv := s.srv
	go func() { _ = srv.Serve(ln) }() // ends with Close (Shutdown)
	return portOf(ln), nil
}

func portOf(ln net.Listener) string {
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// port is the server's port ("" before it listens).
func (s *Server) port() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return portOf(s.ln)
}

func token() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// serve answers GET /NAME on TOKEN.localhost:PORT with the file NAME of
// the token's directory, while the grant's tab still shows the token's
// pages. Any other host name is 404: a name that resolves here by DNS
// (rebinding) does not carry a live token.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.NotFound(w, r)
		return
	}
	port := s.port()
	tok, ok := strings.CutSuffix(strings.ToLower(r.Host), ".localhost:"+port)
	if !ok || port == "" || strings.Contains(tok, ".") {
		http.NotFound(w, r)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/")
	s.mu.Lock()
	g := s.grants[tok]
	var gc Grant
	first := false
	if g != nil {
		gc = *g
		if name == g.File && !g.opened {
			first, g.opened = true, true
		}
	}
	s.mu.Unlock()
	if g == nil {
		http.NotFound(w, r)
		return
	}
	prefix := siteOf(tok, port)
	shows := gc.shows(prefix)
	if shows && !gc.seen {
		s.mu.Lock()
		g.seen = true
		s.mu.Unlock()
	}
	if !first && !shows && gc.seen {
		// The tab moved on: the grant ends. (The file itself is served
		// once to the navigation that opens it, before the tab shows it.)
		s.drop(func(x *Grant) bool { return x.Token == tok })
		http.NotFound(w, r)
		return
	}
	f, ok := open(gc.Dir, name)
	if !ok {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = io.Copy(w, f)
}

// open opens name inside dir: a regular file, reached without symlinks,
// no part of its path a dotfile.
func open(dir, name string) (*os.File, bool) {
	if name == "" || strings.Contains(name, "\\") {
		return nil, false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || strings.HasPrefix(part, ".") {
			return nil, false
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, false
	}
	defer root.Close()
	p := dir
	for _, part := range strings.Split(name, "/") {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			return nil, false
		}
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, false
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, false
	}
	return f, true
}

func urlPath(name string) string { return neturl.PathEscape(name) }
