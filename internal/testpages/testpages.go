// Package testpages serves loupe's fixture pages to behaviour tests over
// real HTTP on loopback. Pages live in pages/ and are embedded, so every
// test package sees the same files.
//
// In .html files, {{A}} and {{B}} are replaced by the origins of the two
// servers of a pair (StartPair): A on 127.0.0.1 and B on 127.0.0.2, which
// are different sites, so a B page framed by an A page is an out-of-process
// iframe under site isolation.
package testpages

import (
	"bytes"
	"embed"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
)

//go:embed pages
var pages embed.FS

// Handler serves the fixture pages at the root (with {{A}} and {{B}} both
// naming its own origin, which it learns from the request), and the
// generated /large.html (and /medium.html, /huge.html).
func Handler() http.Handler { return handler(nil) }

func handler(vars func() map[string]string) http.Handler {
	sub, err := fs.Sub(pages, "pages")
	if err != nil {
		panic(err)
	}
	files := http.FileServer(http.FS(sub))
	mux := http.NewServeMux()
	mux.HandleFunc("/large.html", serveLarge)
	mux.HandleFunc("/huge.html", serveLarge)
	mux.HandleFunc("/medium.html", serveLarge)
	mux.HandleFunc("/net/echo", echoHeaders)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if !strings.HasSuffix(name, ".html") {
			files.ServeHTTP(w, r)
			return
		}
		b, err := fs.ReadFile(sub, name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		v := map[string]string{"A": "http://" + r.Host, "B": "http://" + r.Host}
		if vars != nil {
			v = vars()
		}
		for k, val := range v {
			b = bytes.ReplaceAll(b, []byte("{{"+k+"}}"), []byte(val))
		}
		w.Header().Set("Content-Type", mime.TypeByExtension(".html"))
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
	})
	return mux
}

// Server is a fixture server on a loopback address.
type Server struct {
	*httptest.Server
}

// Page returns the address of a page on this server.
func (s *Server) Page(name string) string {
	return s.Server.URL + "/" + strings.TrimPrefix(name, "/")
}

// Start serves the pages on host (for example "127.0.0.1"). The server
// closes when the test ends.
func Start(t testing.TB, host string) *Server {
	t.Helper()
	return start(t, host, nil)
}

// StartPair serves the pages on 127.0.0.1 (A) and 127.0.0.2 (B), each
// page's {{A}} and {{B}} naming the two origins.
func StartPair(t testing.TB) (a, b *Server) {
	t.Helper()
	s := StartSites(t, 2)
	return s[0], s[1]
}

// StartSites serves the pages on n loopback addresses, 127.0.0.1 to
// 127.0.0.n: n different sites, so each gets its own renderer process.
// In pages, {{A}}, {{B}}, {{C}}, … name their origins in that order.
func StartSites(t testing.TB, n int) []*Server {
	t.Helper()
	hosts := make([]string, n)
	for i := range hosts {
		hosts[i] = "127.0.0." + strconv.Itoa(i+1)
	}
	return StartHosts(t, hosts...)
}

// StartHosts serves the pages on the given loopback addresses, one site
// each; in pages, {{A}}, {{B}}, {{C}}, … name their origins in that
// order. A browser puts the cross-site frames of one site from all its
// tabs into one renderer process: tests that share a browser keep their
// frames apart with sites no other test uses.
func StartHosts(t testing.TB, hosts ...string) []*Server {
	t.Helper()
	// Every origin is known before any server starts, so handlers only
	// read the map.
	lns := make([]net.Listener, len(hosts))
	vars := map[string]string{}
	for i, h := range hosts {
		lns[i] = listen(t, h)
		vars[string(rune('A'+i))] = "http://" + lns[i].Addr().String()
	}
	get := func() map[string]string { return vars }
	out := make([]*Server, len(hosts))
	for i, ln := range lns {
		out[i] = serve(t, ln, get)
	}
	return out
}

func listen(t testing.TB, host string) net.Listener {
	ln, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatalf("listen on %s: %v", host, err)
	}
	return ln
}

func start(t testing.TB, host string, vars func() map[string]string) *Server {
	return serve(t, listen(t, host), vars)
}

func serve(t testing.TB, ln net.Listener, vars func() map[string]string) *Server {
	s := httptest.NewUnstartedServer(handler(vars))
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	return &Server{s}
}

// echoHeaders answers with the request's X-* headers, one "Name: value"
// a line, sorted (the network tests see what a route sent on), to any
// origin (a cross-site frame fetches it too).
func echoHeaders(w http.ResponseWriter, r *http.Request) {
	var lines []string
	for k, vs := range r.Header {
		if strings.HasPrefix(k, "X-") {
			for _, v := range vs {
				lines = append(lines, k+": "+v)
			}
		}
	}
	slices.Sort(lines)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(strings.Join(lines, "\n")))
}
