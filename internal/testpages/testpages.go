// Package testpages serves loupe's fixture pages to behaviour tests over
// real HTTP on loopback. Pages live in pages/ and are embedded, so every
// test package sees the same files.
package testpages

import (
	"embed"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

//go:embed pages
var pages embed.FS

// Handler serves the fixture pages at the root, and the generated
// /large.html.
func Handler() http.Handler {
	sub, err := fs.Sub(pages, "pages")
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.FS(sub)))
	mux.HandleFunc("/large.html", serveLarge)
	return mux
}

// Server is a fixture server on a loopback address.
type Server struct {
	*httptest.Server
}

// URL returns the address of a page on this server.
func (s *Server) Page(name string) string {
	return s.Server.URL + "/" + strings.TrimPrefix(name, "/")
}

// Start serves the pages on host (for example "127.0.0.1" or "127.0.0.2":
// two loopback addresses are two sites, so a page from one framed by the
// other is an out-of-process iframe). The server closes when the test ends.
func Start(t testing.TB, host string) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatalf("listen on %s: %v", host, err)
	}
	s := httptest.NewUnstartedServer(Handler())
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	return &Server{s}
}
