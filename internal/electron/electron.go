// Package electron classifies an Electron app's renderers from its main
// process.
//
// A renderer's CDP endpoint (--remote-debugging-port) lists page targets but
// does not say which are a BrowserWindow's own page, which a WebContentsView
// composed by the main process, and which a <webview> guest. The main
// process knows: Inspect asks it, through its Node inspector (--inspect),
// for every web contents, its type, its host and its CDP target id, and
// Classify turns that into a kind per CDP target id. Target ids come from
// each web contents itself (its own debugger, or
// getOrCreateDevToolsTargetId where Electron has it), never from a URL or a
// title, so the mapping to CDP targets is exact.
//
// The package is self-contained: it needs the inspector endpoint only and
// leaves the renderer connection to its caller.
package electron

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"
)

// The kinds Classify gives, as in the surface descriptor's kind.
const (
	KindWindow          = "window"
	KindWebContentsView = "webcontents_view"
	KindWebview         = "webview"
	KindOther           = "other"
)

// Contents is one Electron web contents as the main process reports it.
type Contents struct {
	// ID is webContents.id, unique within the app's run; 0 is never used.
	ID int `json:"id"`
	// Type is webContents.getType(): "window", "browserView", "webview",
	// "remote", "backgroundPage" or "offscreen" (empty if it could not be
	// read).
	Type string `json:"type"`
	// TargetID is the contents' CDP target id, as Target.getTargetInfo
	// answers on its own debugger; empty when it could not be learnt.
	TargetID string `json:"targetId"`
	// TargetError says why TargetID is empty.
	TargetError string `json:"targetError,omitempty"`
	// HostID is hostWebContents.id for a <webview> guest, 0 otherwise.
	HostID int `json:"hostId"`
	// OwnWindow is true when this is some BrowserWindow's own webContents.
	OwnWindow bool `json:"ownWindow"`
	// DevTools is true when this is a DevTools front end opened for another
	// web contents.
	DevTools bool `json:"devTools,omitempty"`
	// URL is for display only; it never identifies a target. Truncated to
	// 2,048 characters.
	URL string `json:"url"`
}

// Class is the kind of one CDP target and, for a webview guest, the CDP
// target id of its host.
type Class struct {
	Kind           string `json:"kind"`
	ParentTargetID string `json:"parentTargetId,omitempty"`
}

// Classify maps CDP target ids to kinds. Only contents with a target id
// appear: a caller treats a target missing from the map as "other". The
// rules, first match wins:
//
//  1. OwnWindow → "window". Only the web contents a BrowserWindow owns
//     (win.webContents) is that window's page; the main process says so
//     directly, which getType cannot: Electron reports a WebContentsView's
//     contents as "window" too.
//  2. Type "webview" → "webview", with ParentTargetID the target id of the
//     contents named by HostID (the embedder page, from hostWebContents).
//     The parent is left empty when the host has no known target id rather
//     than guessed.
//  3. DevTools → "other". A DevTools front end opened for another contents
//     is not part of the app's UI, whatever its type says.
//  4. Type "window" or "browserView" that is not a window's own →
//     "webcontents_view". Such contents exist only as a view composed by
//     the main process: a WebContentsView (reported as "window") or a
//     legacy BrowserView (reported as "browserView", and since Electron 30
//     itself a WebContentsView).
//  5. Anything else ("remote", "backgroundPage", "offscreen" not owned by a
//     window, an unreadable type) → "other": loupe does not claim a kind it
//     does not know.
//
// A target id reported for two contents is ambiguous, so every contents
// carrying it is "other".
func Classify(cs []Contents) map[string]Class {
	targetOf := make(map[int]string, len(cs))
	seen := make(map[string]int, len(cs))
	for _, c := range cs {
		if c.TargetID == "" {
			continue
		}
		targetOf[c.ID] = c.TargetID
		seen[c.TargetID]++
	}
	out := make(map[string]Class, len(seen))
	for _, c := range cs {
		if c.TargetID == "" {
			continue
		}
		if seen[c.TargetID] > 1 {
			out[c.TargetID] = Class{Kind: KindOther}
			continue
		}
		out[c.TargetID] = classify(c, targetOf)
	}
	return out
}

func classify(c Contents, targetOf map[int]string) Class {
	switch {
	case c.OwnWindow:
		return Class{Kind: KindWindow}
	case c.Type == "webview":
		cl := Class{Kind: KindWebview}
		if c.HostID != 0 && c.HostID != c.ID {
			cl.ParentTargetID = targetOf[c.HostID]
		}
		return cl
	case c.DevTools:
		return Class{Kind: KindOther}
	case c.Type == "window" || c.Type == "browserView":
		return Class{Kind: KindWebContentsView}
	default:
		return Class{Kind: KindOther}
	}
}

// ErrNotElectronMain is returned (wrapped) when the endpoint answers but is
// not an Electron main process: a plain Node process, an Electron renderer
// or utility process, or a renderer's --remote-debugging-port endpoint.
var ErrNotElectronMain = errors.New("not an Electron main process")

// ErrUnreachable is returned (wrapped) when the inspector cannot be reached
// or does not speak the Node inspector's HTTP and websocket protocol.
var ErrUnreachable = errors.New("electron main-process inspector unreachable")

// EvalError is an exception thrown by the classification script in the
// main process, or a protocol error the inspector answered with.
type EvalError struct {
	// Text is the inspector's text for it ("Uncaught (in promise)
	// TypeError: …"), with the first line of the exception's description
	// when the text does not already carry it.
	Text string
}

func (e *EvalError) Error() string {
	return "electron main process: evaluation failed: " + e.Text
}

//go:embed inspect.js
var script string

// maxMessage bounds one inspector message: far above any list of web
// contents (URLs are truncated by the script), far below memory trouble.
// The websocket library's default of 32 KiB is too small for a busy app.
const maxMessage = 32 << 20

// result is what the script returns.
type result struct {
	ElectronVersion string     `json:"electronVersion"`
	ProcessType     string     `json:"processType"`
	ElectronVia     string     `json:"electronVia"`
	Contents        []Contents `json:"contents"`
	Error           string     `json:"error"`
	Tried           []string   `json:"tried"`
}

// Inspect connects to an Electron main process's Node inspector, lists its
// web contents with their CDP target ids, and disconnects. endpoint is
// http://host:port, host:port (the --inspect address; the websocket is
// found through /json/list) or the inspector's ws:// URL itself.
//
// Everything is bounded by ctx. The errors wrap ErrUnreachable (nothing
// answers, or not as a Node inspector), ErrNotElectronMain, or are an
// *EvalError carrying the exception's text.
func Inspect(ctx context.Context, endpoint string) ([]Contents, error) {
	r, err := inspect(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	return r.Contents, nil
}

func inspect(ctx context.Context, endpoint string) (*result, error) {
	ws, err := resolve(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	raw, err := evaluate(ctx, ws, script)
	if err != nil {
		return nil, err
	}
	var r result
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, &EvalError{Text: fmt.Sprintf("unexpected result %.200s: %v", raw, err)}
	}
	if r.Error == "no-electron" {
		what := "a Node process without Electron"
		switch {
		case r.ElectronVersion != "" && r.ProcessType != "browser":
			what = fmt.Sprintf("an Electron %s process of type %q, not the main (browser) process", r.ElectronVersion, orNone(r.ProcessType))
		case r.ElectronVersion != "":
			what = fmt.Sprintf("Electron %s, but its electron module could not be loaded", r.ElectronVersion)
		}
		detail := ""
		if len(r.Tried) > 0 {
			detail = " (" + strings.Join(r.Tried, "; ") + ")"
		}
		return nil, fmt.Errorf("%w: %s is %s%s", ErrNotElectronMain, endpoint, what, detail)
	}
	if r.Error != "" {
		return nil, &EvalError{Text: r.Error}
	}
	if r.Contents == nil {
		r.Contents = []Contents{}
	}
	return &r, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// inspectorTarget is one entry of the inspector's /json/list.
type inspectorTarget struct {
	Type string `json:"type"`
	WS   string `json:"webSocketDebuggerUrl"`
}

// resolve turns an endpoint into the inspector's websocket URL. The host
// the inspector reports may not be the one the caller reached it by (a port
// forward, 0.0.0.0), so the caller's host is kept.
func resolve(ctx context.Context, endpoint string) (string, error) {
	raw := strings.TrimSpace(endpoint)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("electron main: not an inspector endpoint: %q (want http://host:port, host:port or ws://)", endpoint)
	}
	switch u.Scheme {
	case "ws", "wss":
		return u.String(), nil
	case "http", "https":
	default:
		return "", fmt.Errorf("electron main: not an inspector endpoint: %q (want http://host:port, host:port or ws://)", endpoint)
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = "/json/list", "", "", ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("electron main: asking %s for its inspector: %w", u.Host, ctx.Err())
		}
		return "", fmt.Errorf("%w: %s: %v (is the app started with --inspect=%s?)", ErrUnreachable, u.Host, err, portOf(u.Host))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", fmt.Errorf("%w: reading %s: %v", ErrUnreachable, u, err)
	}
	if resp.StatusCode != http.StatusOK {
		hint := ""
		if resp.StatusCode == http.StatusBadRequest {
			// Node's inspector refuses a Host header that is neither an IP
			// address nor localhost (DNS rebinding protection).
			hint = " (reach the inspector by IP address or localhost)"
		}
		return "", fmt.Errorf("%w: %s answered %s%s", ErrUnreachable, u, resp.Status, hint)
	}
	var list []inspectorTarget
	if err := json.Unmarshal(body, &list); err != nil {
		return "", fmt.Errorf("%w: %s is not a Node inspector's target list: %v", ErrUnreachable, u, err)
	}
	var pick *inspectorTarget
	var kinds []string
	for i := range list {
		t := &list[i]
		kinds = append(kinds, t.Type)
		if t.Type == "node" && t.WS != "" && pick == nil {
			pick = t
		}
	}
	if pick == nil {
		if len(list) == 0 {
			return "", fmt.Errorf("%w: %s lists no inspector target", ErrUnreachable, u)
		}
		// A renderer's --remote-debugging-port lists page, iframe,
		// service_worker… targets, never a "node" one.
		return "", fmt.Errorf("%w: %s lists %s targets but no Node inspector: this looks like the renderers' --remote-debugging-port, not the main process's --inspect port",
			ErrNotElectronMain, u.Host, strings.Join(dedupe(kinds), ", "))
	}
	ws, err := url.Parse(pick.WS)
	if err != nil || ws.Path == "" {
		return "", fmt.Errorf("%w: %s lists a bad webSocketDebuggerUrl %q", ErrUnreachable, u.Host, pick.WS)
	}
	ws.Host = u.Host
	ws.Scheme = "ws"
	if u.Scheme == "https" {
		ws.Scheme = "wss"
	}
	return ws.String(), nil
}

func portOf(hostport string) string {
	if _, p, err := net.SplitHostPort(hostport); err == nil {
		return p
	}
	return "PORT"
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if s == "" {
			s = "untyped"
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// The id of the one request evaluate sends.
const evaluateID = 1

type evaluateReply struct {
	ID     int64 `json:"id"`
	Result *struct {
		Result struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception *struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// evaluate runs expression in the inspector's context over one websocket
// connection and returns its value, then closes the connection.
func evaluate(ctx context.Context, wsURL, expression string) (json.RawMessage, error) {
	c, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("electron main: dial %s: %w", wsURL, ctx.Err())
		}
		return nil, fmt.Errorf("%w: dial %s: %v", ErrUnreachable, wsURL, err)
	}
	defer c.CloseNow()
	c.SetReadLimit(maxMessage)

	req, err := json.Marshal(map[string]any{
		"id":     evaluateID,
		"method": "Runtime.evaluate",
		"params": map[string]any{
			"expression":    expression,
			"awaitPromise":  true,
			"returnByValue": true,
			// Makes `require` available when the main module is not
			// CommonJS (process.mainModule undefined).
			"includeCommandLineAPI": true,
			// An exception must not pause an app someone is debugging.
			"silent": true,
		},
	})
	if err != nil {
		return nil, err
	}
	if err := c.Write(ctx, websocket.MessageText, req); err != nil {
		return nil, fmt.Errorf("electron main: send Runtime.evaluate: %w", wrapIO(ctx, err))
	}
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return nil, fmt.Errorf("electron main: waiting for Runtime.evaluate: %w", wrapIO(ctx, err))
		}
		var r evaluateReply
		if err := json.Unmarshal(msg, &r); err != nil {
			return nil, fmt.Errorf("%w: bad inspector message %.200s: %v", ErrUnreachable, msg, err)
		}
		if r.ID != evaluateID {
			continue // an event, or a reply to nothing of ours
		}
		closeConn(ctx, c)
		switch {
		case r.Error != nil:
			return nil, &EvalError{Text: fmt.Sprintf("Runtime.evaluate: %s (%d)", r.Error.Message, r.Error.Code)}
		case r.Result == nil:
			return nil, &EvalError{Text: "Runtime.evaluate answered without a result"}
		case r.Result.ExceptionDetails != nil:
			// text is "Uncaught" or "Uncaught (in promise) TypeError: …";
			// the exception's description starts with "TypeError: …" and
			// goes on with a stack into the script.
			d := r.Result.ExceptionDetails
			text := d.Text
			if d.Exception != nil {
				if first := firstLine(d.Exception.Description); first != "" && !strings.Contains(text, first) {
					text += ": " + first
				}
			}
			return nil, &EvalError{Text: text}
		case len(r.Result.Result.Value) == 0:
			return nil, &EvalError{Text: fmt.Sprintf("Runtime.evaluate returned no value (type %q)", r.Result.Result.Type)}
		}
		return r.Result.Result.Value, nil
	}
}

// closeConn closes c with the websocket handshake, which the library bounds
// by its own timeout only, so ctx cuts it short.
func closeConn(ctx context.Context, c *websocket.Conn) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Close(websocket.StatusNormalClosure, "")
	}()
	select {
	case <-done:
	case <-ctx.Done():
		c.CloseNow()
		<-done
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// wrapIO reports a cancelled or expired ctx as such; any other failure of
// an open connection means the inspector went away.
func wrapIO(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w: %v", ErrUnreachable, err)
}
