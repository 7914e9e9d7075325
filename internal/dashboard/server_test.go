package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/dashboard"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/settings"
)

// start serves a dashboard over an executor that has no browser: the
// requests here need none.
func start(t *testing.T) (*dashboard.Server, *settings.Store) {
	t.Helper()
	home := t.TempDir()
	st := settings.Open(home)
	x := executor.New(executor.Config{Home: home, Settings: st})
	t.Cleanup(func() { _ = x.Close(context.Background()) })
	s, err := dashboard.Start(x, "", "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, st
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

type req struct {
	method, path, host, origin, fetchSite, ctype, body, cookie string
}

func do(t testing.TB, s *dashboard.Server, r req) (*http.Response, string) {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	hr, err := http.NewRequest(r.method, "http://"+s.Addr()+r.path, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if r.host != "" {
		hr.Host = r.host
	}
	for k, v := range map[string]string{"Origin": r.origin, "Sec-Fetch-Site": r.fetchSite, "Content-Type": r.ctype} {
		if v != "" {
			hr.Header.Set(k, v)
		}
	}
	if r.cookie != "" {
		hr.AddCookie(&http.Cookie{Name: dashboard.CookieName, Value: r.cookie})
	}
	resp, err := noRedirect.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// signIn exchanges the printed URL's token for the cookie.
func signIn(t testing.TB, s *dashboard.Server) string {
	t.Helper()
	u, _ := url.Parse(s.URL())
	resp, _ := do(t, s, req{path: "/?" + u.RawQuery})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("token exchange: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, c := range resp.Cookies() {
		if c.Name == dashboard.CookieName {
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
				t.Fatalf("cookie %+v: want HttpOnly, SameSite=Strict, Path=/", c)
			}
			return c.Value
		}
	}
	t.Fatal("no cookie for the token")
	return ""
}

// TestSignIn: the printed URL's token is exchanged for the cookie; no
// token, a wrong one, or a wrong cookie is 401 everywhere.
func TestSignIn(t *testing.T) {
	s, _ := start(t)
	for _, r := range []req{{path: "/"}, {path: "/?token=00ff"}, {path: "/?token="}, {path: "/api/state"},
		{path: "/api/state", cookie: "forged"}, {path: "/app.js"}, {path: "/api/events"}} {
		resp, _ := do(t, s, r)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s (cookie %q): %d, want 401", r.path, r.cookie, resp.StatusCode)
		}
		if len(resp.Cookies()) != 0 {
			t.Errorf("%s set a cookie without the token", r.path)
		}
	}
	c := signIn(t, s)
	resp, body := do(t, s, req{path: "/", cookie: c})
	if resp.StatusCode != 200 || !strings.Contains(body, "loupe dashboard") {
		t.Fatalf("the page with the cookie: %d", resp.StatusCode)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", csp)
	}
	if resp, body := do(t, s, req{path: "/api/state", cookie: c}); resp.StatusCode != 200 || !strings.Contains(body, `"sessions":[]`) {
		t.Fatalf("state: %d %s", resp.StatusCode, body)
	}
}

// TestRefusesForeignRequests: another Host (DNS rebinding), another
// Origin, a cross-site form post, a cross-site JSON post and a form post
// are refused — with the cookie — and change nothing; the same request
// done right does change the setting (so the checks can tell).
func TestRefusesForeignRequests(t *testing.T) {
	s, st := start(t)
	c := signIn(t, s)
	port := s.Addr()[strings.LastIndex(s.Addr(), ":"):]
	turnOff := `{"op":"settings set","input":{"key":"controlEnabled","value":"false"}}`
	form := "op=settings+set&key=controlEnabled&value=false"
	for name, r := range map[string]req{
		"foreign host":         {path: "/api/state", host: "evil.example" + port, cookie: c},
		"host of another port": {path: "/api/state", host: "127.0.0.1:1", cookie: c},
		"foreign origin":       {path: "/api/state", origin: "http://evil.example", cookie: c},
		"cross-site form":      {method: "POST", path: "/api/op", origin: "http://evil.example", fetchSite: "cross-site", ctype: "application/x-www-form-urlencoded", body: form, cookie: c},
		"cross-site json":      {method: "POST", path: "/api/op", fetchSite: "cross-site", ctype: "application/json", body: turnOff, cookie: c},
		"foreign host post":    {method: "POST", path: "/api/op", host: "evil.example" + port, ctype: "application/json", body: turnOff, cookie: c},
		"same-site form":       {method: "POST", path: "/api/op", ctype: "application/x-www-form-urlencoded", body: form, cookie: c},
		"post without cookie":  {method: "POST", path: "/api/op", ctype: "application/json", body: turnOff},
	} {
		resp, body := do(t, s, r)
		if resp.StatusCode < 400 {
			t.Errorf("%s: %d %s, want a refusal", name, resp.StatusCode, body)
		}
		if v, _ := st.Get(); !v.ControlEnabled {
			t.Fatalf("%s changed the setting", name)
		}
	}
	if resp, body := do(t, s, req{method: "POST", path: "/api/op", ctype: "application/json", body: `{"op":"eval","input":{"expression":"1"}}`, cookie: c}); resp.StatusCode != 400 || !strings.Contains(body, "does not run") {
		t.Errorf("an operation the dashboard does not offer: %d %s", resp.StatusCode, body)
	}
	resp, body := do(t, s, req{method: "POST", path: "/api/op", host: "localhost" + port, origin: "http://localhost" + port, fetchSite: "same-origin", ctype: "application/json", body: turnOff, cookie: c})
	if resp.StatusCode != 200 {
		t.Fatalf("the same-origin post: %d %s", resp.StatusCode, body)
	}
	if v, _ := st.Get(); v.ControlEnabled {
		t.Fatal("the same-origin post did not change the setting")
	}
}
