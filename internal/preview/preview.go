// Package preview serves local HTML files to the browser for a task: a
// file is authorised for one tab, and it and the files beside it are
// served from a loopback HTTP server under a random, unguessable token,
// http://127.0.0.1:PORT/p/TOKEN/NAME. Nothing else is served: another
// token, a path outside the file's directory, a directory, a dotfile or
// a symlink is 404.
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
	base, err := s.listen()
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
	return base + "/p/" + tok + "/" + urlPath(filepath.Base(file)), nil
}

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
	a := s.addr()
	return g.Path, a != "" && strings.HasPrefix(address, "http://"+a+"/p/"+g.Token+"/")
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

// listen starts the server on a loopback port the first time.
func (s *Server) listen() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		return "http://" + s.ln.Addr().String(), nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	s.ln = ln
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	srv := s.srv
	go func() { _ = srv.Serve(ln) }() // ends with Close (Shutdown)
	return "http://" + ln.Addr().String(), nil
}

func (s *Server) addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

func token() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// serve answers GET /p/TOKEN/NAME with the file NAME of the token's
// directory, while the grant's tab still shows the token's pages.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.NotFound(w, r)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/p/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	tok, name, _ := strings.Cut(rest, "/")
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
	if r.Host != s.addr() {
		http.NotFound(w, r) // another name for this address (DNS rebinding)
		return
	}
	prefix := "http://" + r.Host + "/p/" + tok + "/"
	if !first && !gc.shows(prefix) {
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
