package network_test

import (
	"encoding/json"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/network"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/testpages"
)

func TestMain(m *testing.M) { os.Exit(enginetest.Main(m)) }

// One browser with the package's session hook serves the tests below,
// each in a tab of its own.
func TestNetwork(t *testing.T) {
	t.Parallel()
	b := enginetest.OwnBrowser(t, network.Option())
	t.Run("routes", func(t *testing.T) { t.Parallel(); testRoutes(t, b) })
	t.Run("har", func(t *testing.T) { t.Parallel(); testHAR(t, b) })
}

// fixture is a tab at frames/top.html: a page of A with a frame of B, a
// cross-site (out-of-process) frame.
type fixture struct {
	tab, cross *engine.Surface
	a, bSite   *testpages.Server
}

func openFixture(t *testing.T, b *engine.Browser) *fixture {
	t.Helper()
	a, bs := enginetest.StartPair(t)
	tab, err := surface.NewTab(enginetest.Ctx(t), b)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{tab: tab, a: a, bSite: bs}
	f.load(t)
	return f
}

// load (re)loads the page and finds its cross-site frame's surface, which
// is new with each load.
func (f *fixture) load(t *testing.T) {
	t.Helper()
	if _, err := nav.Navigate(enginetest.Ctx(t), f.tab, f.a.Page("frames/top.html")); err != nil {
		t.Fatal(err)
	}
	f.cross = nil
	// The frame's surface is listed once its session has attached, which
	// no reply of the load's orders: poll (bounded) for it.
	enginetest.Eventually(t, "the cross-site frame", func() bool {
		for _, s := range f.tab.FrameSurfaces() {
			if fr, ok := f.tab.Frame(s.Root()); ok && strings.HasPrefix(fr.URL, f.bSite.URL) && fr.Session != f.tab.Session() {
				f.cross = s
				return true
			}
		}
		return false
	})
}

// fetch fetches a path of the surface's own origin from inside it, and
// says what came back: the body, or how it failed.
func fetch(t *testing.T, s *engine.Surface, path string) string {
	t.Helper()
	return enginetest.EvalString(t, s, `fetch(`+jsString(path)+`, {cache: "no-store"}).then(r => r.text(), e => "failed: " + e.message)`)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// pausedCount counts the requests paused by Fetch in the tab's page
// session (a tap: counted before any later reply arrives).
func pausedCount(tab *engine.Surface) *atomic.Int32 {
	var n atomic.Int32
	tab.Session().Tap(func(cdp.Event) { n.Add(1) }, "Fetch.requestPaused")
	return &n
}

// A fulfilled route serves its body, an aborted one fails the request and
// a continued one sends it on with the route's headers — in the page and
// in its cross-site frame, whether the frame was there when the route was
// set or came after; a dedicated worker's request is routed with its
// frame; clearing the routes turns interception off.
func testRoutes(t *testing.T, b *engine.Browser) {
	f := openFixture(t, b)
	n := network.Of(b)
	ctx := enginetest.Ctx(t)
	set := func(pattern string, a network.Action, status int, headers []network.Header, body string) {
		t.Helper()
		r, err := network.NewRoute(pattern, a, status, headers, []byte(body), "")
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Set(ctx, f.tab, r); err != nil {
			t.Fatal(err)
		}
	}
	if got := fetch(t, f.tab, "/net/data.json"); !strings.Contains(got, `"server"`) {
		t.Fatalf("before any route: %q", got)
	}
	cors := network.Header{Name: "Access-Control-Allow-Origin", Value: "*"}
	set("**/net/data.json", network.Fulfill, 0, []network.Header{{Name: "Content-Type", Value: "application/json"}, cors}, `{"source": "route"}`)
	set("**/net/blocked*", network.Abort, 0, nil, "")
	set("**/net/echo", network.Continue, 0, []network.Header{{Name: "X-Loupe", Value: "routed"}}, "")

	check := func(when string) {
		t.Helper()
		for _, s := range []*engine.Surface{f.tab, f.cross} {
			if got := fetch(t, s, "/net/data.json"); got != `{"source": "route"}` {
				t.Errorf("%s, %s: the fulfilled route gave %q", when, s, got)
			}
			if got := fetch(t, s, "/net/blocked.json"); got != "failed: Failed to fetch" {
				t.Errorf("%s, %s: the aborted route gave %q", when, s, got)
			}
			if got := fetch(t, s, "/net/echo"); got != "X-Loupe: routed" {
				t.Errorf("%s, %s: the continued route sent %q", when, s, got)
			}
		}
	}
	check("frames there before the routes")
	f.load(t)
	check("frames loaded after the routes")

	worker := `new Promise(ok => {
	  const src = "fetch(" + JSON.stringify(location.origin + "/net/data.json") + ").then(r => r.text(), e => 'failed: ' + e.message).then(t => postMessage(t))";
	  const w = new Worker(URL.createObjectURL(new Blob([src])));
	  w.onmessage = e => { ok(e.data); w.terminate(); };
	})`
	if got := enginetest.EvalString(t, f.tab, worker); got != `{"source": "route"}` {
		t.Errorf("a dedicated worker's request: %q", got)
	}

	routes := n.Routes(f.tab)
	if len(routes) != 3 || routes[0].Pattern != "**/net/data.json" || routes[0].Hits < 4 || routes[0].Status != 200 || routes[1].Action != network.Abort {
		t.Errorf("routes: %+v", routes)
	}
	if _, err := n.Clear(ctx, f.tab, "**/nothing"); err != network.ErrNoRoute {
		t.Errorf("clearing a pattern with no route: %v", err)
	}
	if k, err := n.Clear(ctx, f.tab, "**/net/data.json"); err != nil || k != 1 {
		t.Fatalf("clear one: %d %v", k, err)
	}
	if got := fetch(t, f.cross, "/net/data.json"); !strings.Contains(got, `"server"`) {
		t.Errorf("after its route was cleared: %q", got)
	}
	if k, err := n.Clear(ctx, f.tab, ""); err != nil || k != 2 {
		t.Fatalf("clear all: %d %v", k, err)
	}
	paused := pausedCount(f.tab)
	if got := fetch(t, f.tab, "/net/blocked.json"); strings.HasPrefix(got, "failed") {
		t.Errorf("after every route was cleared: %q", got)
	}
	if k := paused.Load(); k != 0 {
		t.Errorf("with no route, %d requests were still paused: Fetch is on", k)
	}
}

// A capture holds the tab's requests, its frames' too, with their
// headers, post data and (bounded) response bodies, and is written as a
// HAR file of the 1.2 shape; without a capture there is no HAR.
func testHAR(t *testing.T, b *engine.Browser) {
	f := openFixture(t, b)
	n := network.Of(b)
	ctx := enginetest.Ctx(t)
	if _, _, err := n.HAR(ctx, f.tab, network.HAROptions{}); err != network.ErrNotCapturing {
		t.Fatalf("a HAR with no capture: %v", err)
	}
	if err := n.Start(ctx, f.tab); err != nil {
		t.Fatal(err)
	}
	r, err := network.NewRoute("**/net/mocked", network.Fulfill, 201, []network.Header{{Name: "Content-Type", Value: "text/plain"}}, []byte("MK-MOCKED"), "mock.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Set(ctx, f.tab, r); err != nil {
		t.Fatal(err)
	}
	fetch(t, f.tab, "/net/data.json?a=1&b=two")
	fetch(t, f.tab, "/net/mocked")
	post := `fetch("/net/echo", {method: "POST", body: "MK-POSTED", headers: {"Content-Type": "text/plain", "X-Probe": "1"}}).then(r => r.text())`
	if _, err := action.Eval(ctx, f.cross, post); err != nil {
		t.Fatal(err)
	}
	data, sum, err := n.HAR(ctx, f.tab, network.HAROptions{Version: "test", Clear: true})
	if err != nil {
		t.Fatal(err)
	}
	validateHAR(t, data)
	var h network.HARLog
	if err := json.Unmarshal(data, &h); err != nil {
		t.Fatal(err)
	}
	byPath := map[string]network.HAREntry{}
	for _, e := range h.Log.Entries {
		path := e.Request.URL[strings.Index(e.Request.URL[8:], "/")+8:]
		byPath[path] = e
	}
	if e := byPath["/net/data.json?a=1&b=two"]; e.Response.Status != 200 || !strings.Contains(e.Response.Content.Text, `"server"`) ||
		len(e.Request.QueryString) != 2 || e.Request.QueryString[1] != (network.HARNameValue{Name: "b", Value: "two"}) || e.ResourceType != "fetch" {
		t.Errorf("the fetch: %+v", e)
	}
	if e := byPath["/net/mocked"]; e.Response.Status != 201 || e.Response.Content.Text != "MK-MOCKED" {
		t.Errorf("the fulfilled request: %+v", e.Response)
	}
	e := byPath["/net/echo"]
	if !strings.HasPrefix(e.Request.URL, f.bSite.URL) || e.Request.Method != "POST" || e.Request.PostData == nil || e.Request.PostData.Text != "MK-POSTED" ||
		e.Response.Content.Text != "X-Probe: 1" {
		t.Errorf("the cross-site frame's POST: %+v", e)
	}
	if sum.Entries != len(h.Log.Entries) || sum.Bodies < 3 || sum.Pending != 0 {
		t.Errorf("summary %+v of %d entries", sum, len(h.Log.Entries))
	}
	// Clear started the capture afresh.
	if _, k, ok := n.Capturing(ctx, f.tab); !ok || k != 0 {
		t.Errorf("after a HAR with clear: capturing %v, %d requests", ok, k)
	}
	if ok, err := n.Stop(ctx, f.tab); !ok || err != nil {
		t.Errorf("stop: %v %v", ok, err)
	}
	if _, _, err := n.HAR(ctx, f.tab, network.HAROptions{}); err != network.ErrNotCapturing {
		t.Errorf("a HAR after stop: %v", err)
	}
}

// validateHAR checks a HAR file against the HAR 1.2 spec's required
// fields and their types (http://www.softwareishard.com/blog/har-12-spec/).
func validateHAR(t *testing.T, data []byte) {
	t.Helper()
	var root map[string]any
	if err := jsonv2.Unmarshal(data, &root); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	type rule struct{ key, kind string } // kind: string, number, object, array, bool
	need := func(where string, v any, rules ...rule) map[string]any {
		t.Helper()
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: not an object: %v", where, v)
		}
		for _, r := range rules {
			x, ok := m[r.key]
			if !ok {
				t.Errorf("%s: no %s", where, r.key)
				continue
			}
			good := false
			switch r.kind {
			case "string":
				_, good = x.(string)
			case "number":
				_, good = x.(float64)
			case "object":
				_, good = x.(map[string]any)
			case "array":
				_, good = x.([]any)
			}
			if !good {
				t.Errorf("%s.%s: want %s, got %T", where, r.key, r.kind, x)
			}
		}
		return m
	}
	nameValues := func(where string, v any, rules ...rule) {
		for i, x := range v.([]any) {
			need(where+"["+string(rune('0'+i%10))+"]", x, rules...)
		}
	}
	log := need("log", need("root", root, rule{"log", "object"})["log"], rule{"version", "string"}, rule{"creator", "object"}, rule{"entries", "array"})
	if log["version"] != "1.2" {
		t.Errorf("version %v", log["version"])
	}
	need("creator", log["creator"], rule{"name", "string"}, rule{"version", "string"})
	if pages, ok := log["pages"].([]any); ok {
		for _, p := range pages {
			need("page", p, rule{"startedDateTime", "string"}, rule{"id", "string"}, rule{"title", "string"}, rule{"pageTimings", "object"})
		}
	}
	entries := log["entries"].([]any)
	if len(entries) == 0 {
		t.Fatal("no entries")
	}
	for _, x := range entries {
		e := need("entry", x, rule{"startedDateTime", "string"}, rule{"time", "number"}, rule{"request", "object"}, rule{"response", "object"},
			rule{"cache", "object"}, rule{"timings", "object"})
		req := need("request", e["request"], rule{"method", "string"}, rule{"url", "string"}, rule{"httpVersion", "string"}, rule{"cookies", "array"},
			rule{"headers", "array"}, rule{"queryString", "array"}, rule{"headersSize", "number"}, rule{"bodySize", "number"})
		nameValues("request.headers", req["headers"], rule{"name", "string"}, rule{"value", "string"})
		nameValues("request.queryString", req["queryString"], rule{"name", "string"}, rule{"value", "string"})
		nameValues("request.cookies", req["cookies"], rule{"name", "string"}, rule{"value", "string"})
		if pd, ok := req["postData"]; ok {
			need("postData", pd, rule{"mimeType", "string"}, rule{"text", "string"})
		}
		resp := need("response", e["response"], rule{"status", "number"}, rule{"statusText", "string"}, rule{"httpVersion", "string"}, rule{"cookies", "array"},
			rule{"headers", "array"}, rule{"content", "object"}, rule{"redirectURL", "string"}, rule{"headersSize", "number"}, rule{"bodySize", "number"})
		nameValues("response.headers", resp["headers"], rule{"name", "string"}, rule{"value", "string"})
		need("content", resp["content"], rule{"size", "number"}, rule{"mimeType", "string"})
		tm := need("timings", e["timings"], rule{"send", "number"}, rule{"wait", "number"}, rule{"receive", "number"})
		for _, k := range []string{"send", "wait", "receive"} {
			if tm[k].(float64) < 0 {
				t.Errorf("timings.%s is %v: the spec wants it non-negative", k, tm[k])
			}
		}
		if _, err := timeParse(e["startedDateTime"].(string)); err != nil {
			t.Errorf("startedDateTime: %v", err)
		}
	}
}

// timeParse reads an ISO 8601 date-time as HAR writes it.
func timeParse(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }
