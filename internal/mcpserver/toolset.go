package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
)

// navSnapshotChars caps the snapshot that browser_open and browser_navigate
// return: past it the text is cut at a line, and the agent can take a
// scoped or interactive snapshot.
const navSnapshotChars = 20000

// snapshotChars is browser_snapshot's default budget (about 10k tokens):
// a whole large page would flood the agent's context. The cut is stated in
// the text with the ways to get the rest; max_chars raises it.
const snapshotChars = 40000

// Wait bounds of browser_wait.
const (
	waitDefault = 3 * time.Second
	waitMax     = 8 * time.Second
)

// tools lists every tool. Core tools (core: true) are the ones most pages
// need; --tools core serves only those, to keep the tool list's own tokens
// low.
func (s *Server) tools() []toolDef {
	ts := []toolDef{
		def("browser_navigate", "Open a URL in the current tab (or go back, forward, reload) and wait for the load; returns the page's snapshot.", true,
			map[string][]any{"action": {"back", "forward", "reload"}},
			func(ctx context.Context, in *navigateIn) (*mcp.CallToolResult, error) {
				switch {
				case (in.URL == "") == (in.Action == ""):
					return nil, apitype.Errorf(apitype.BadInput, "give a url or an action (back, forward, reload), not both")
				case in.URL != "":
					return s.navigate(ctx, "open", &ops.OpenIn{URL: in.URL}, in.Snapshot)
				}
				return s.navigate(ctx, in.Action, &ops.NoIn{}, in.Snapshot)
			}),
		def("browser_open", "Open a URL, in a new tab if asked, and wait for the load; returns the page's snapshot.", false, nil,
			func(ctx context.Context, in *openIn) (*mcp.CallToolResult, error) {
				return s.navigate(ctx, "open", &ops.OpenIn{URL: in.URL, NewTab: in.NewTab}, in.Snapshot)
			}),
		def("browser_snapshot", "The page as a tree of roles and names, frames included, with [ref=eN] on every actionable node.", true, nil,
			func(ctx context.Context, in *snapshotIn) (*mcp.CallToolResult, error) {
				limit := in.MaxChars
				if limit == 0 {
					limit = snapshotChars
				}
				snap, err := s.snapshot(ctx, ops.SnapshotIn{Interactive: in.Interactive, Depth: in.Depth, Scope: in.Scope,
					Viewport: in.Viewport, Locators: in.Locators, MaxChars: limit})
				if err != nil {
					return nil, err
				}
				return textResult(snapText(snap), nil), nil
			}),
		def("browser_click", "Click an element (trusted mouse input) by ref or locator; reports what changed.", true,
			map[string][]any{"button": {"left", "right", "middle"}},
			func(ctx context.Context, in *clickIn) (*mcp.CallToolResult, error) {
				op := "click"
				if in.Double {
					op = "dblclick"
				}
				return s.writeResult(ctx, op, &ops.ClickIn{Target: in.Ref, Button: in.Button, Modifiers: in.Modifiers}, in.Snapshot)
			}),
		def("browser_type", "Type text into a field key by key (clear first, submit with Enter if asked); reports what changed.", true, nil,
			func(ctx context.Context, in *typeIn) (*mcp.CallToolResult, error) {
				return s.writeResult(ctx, "type", &ops.TypeIn{Target: in.Ref, Text: in.Text, Clear: in.Clear, Submit: in.Submit}, in.Snapshot)
			}),
		def("browser_press", "Press keys or chords (Enter, Tab, Escape, Control+A) on the focused element.", true, nil,
			func(ctx context.Context, in *pressIn) (*mcp.CallToolResult, error) {
				return s.writeResult(ctx, "press", &ops.PressIn{Keys: in.Keys}, in.Snapshot)
			}),
		def("browser_select", "Choose options of a <select> by value or label.", true, nil,
			func(ctx context.Context, in *selectIn) (*mcp.CallToolResult, error) {
				return s.writeResult(ctx, "select", &ops.SelectIn{Target: in.Ref, Values: in.Values}, in.Snapshot)
			}),
		def("browser_scroll", "Scroll an element into view, or turn the mouse wheel by dx/dy pixels.", true, nil,
			func(ctx context.Context, in *scrollIn) (*mcp.CallToolResult, error) {
				return s.writeResult(ctx, "scroll", &ops.ScrollIn{Target: in.Ref, DX: in.DX, DY: in.DY}, in.Snapshot)
			}),
		def("browser_hover", "Move the mouse over an element.", false, nil,
			func(ctx context.Context, in *refIn) (*mcp.CallToolResult, error) {
				return s.writeResult(ctx, "hover", &ops.TargetIn{Target: in.Ref}, in.Snapshot)
			}),
		def("browser_drag", "Drag an element onto another (pointer drags and HTML5 drag and drop).", false, nil,
			func(ctx context.Context, in *dragIn) (*mcp.CallToolResult, error) {
				return s.writeResult(ctx, "drag", &ops.DragIn{From: in.From, To: in.To}, in.Snapshot)
			}),
		def("browser_upload", "Choose files for a file input; files are named in the session's files directory.", false, nil,
			func(ctx context.Context, in *uploadIn) (*mcp.CallToolResult, error) {
				return s.writeResult(ctx, "upload", &ops.UploadIn{Target: in.Ref, Files: in.Files}, in.Snapshot)
			}),
		def("browser_wait", "Wait (default 3 s, at most 8 s) for a text, an element, a URL or the load event.", true, nil,
			func(ctx context.Context, in *waitIn) (*mcp.CallToolResult, error) {
				d := waitDefault
				if in.TimeoutMS > 0 {
					d = time.Duration(in.TimeoutMS) * time.Millisecond
				}
				if d > waitMax {
					return nil, apitype.Errorf(apitype.BadInput, "timeout_ms %d is over the limit of %d", in.TimeoutMS, waitMax.Milliseconds())
				}
				return s.read(ctx, "wait", &ops.WaitIn{Text: in.Text, Target: in.Ref, URL: in.URL, Load: in.Load, Timeout: d.String()})
			}),
		def("browser_query", "Find elements by role, name or text (in a container or a ref's frame); lists each match with its ref and says when ambiguous.", true, nil,
			func(ctx context.Context, in *queryIn) (*mcp.CallToolResult, error) {
				return s.read(ctx, "query", &ops.QueryIn{Role: in.Role, Name: in.Name, Text: in.Text, Exact: in.Exact,
					Within: in.Within, FrameOf: in.FrameOf, Limit: in.Limit})
			}),
		def("browser_read", "Read an element's text, value, attribute, box, state or HTML (text without ref: the page).", true,
			map[string][]any{"what": {"text", "value", "attribute", "box", "state", "html"}},
			func(ctx context.Context, in *readIn) (*mcp.CallToolResult, error) {
				switch in.What {
				case "text":
					return s.read(ctx, "text", &ops.TextIn{Target: in.Ref})
				case "attribute":
					return s.read(ctx, "attr", &ops.AttrIn{Target: in.Ref, Name: in.Name})
				case "value", "box", "state", "html":
					return s.read(ctx, in.What, &ops.TargetIn{Target: in.Ref})
				}
				return nil, apitype.Errorf(apitype.BadInput, "what %q: want text, value, attribute, box, state or html", in.What)
			}),
		def("browser_screenshot", "A PNG of the viewport, the full page or one element; returns the image and the file's path.", true, nil,
			func(ctx context.Context, in *screenshotIn) (*mcp.CallToolResult, error) {
				out, err := s.b.Do(ctx, "screenshot", &ops.ScreenshotIn{Target: in.Ref, Full: in.FullPage, Inline: true})
				if err != nil {
					return nil, err
				}
				shot := out.(*ops.ScreenshotOut)
				return &mcp.CallToolResult{Content: []mcp.Content{
					&mcp.ImageContent{Data: shot.PNG, MIMEType: "image/png"},
					&mcp.TextContent{Text: fmt.Sprintf("saved %s (%d bytes)", shot.Path, shot.Bytes)},
				}, StructuredContent: map[string]any{"path": shot.Path, "bytes": shot.Bytes}}, nil
			}),
		def("browser_tabs", "List tabs, or open (new), close or select one.", true,
			map[string][]any{"action": {"list", "new", "close", "select"}},
			func(ctx context.Context, in *tabsIn) (*mcp.CallToolResult, error) {
				switch in.Action {
				case "", "list":
					return s.read(ctx, "tabs", &ops.NoIn{})
				case "new":
					return s.writeResult(ctx, "tab new", &ops.TabNewIn{URL: in.URL}, false)
				case "close":
					return s.writeResult(ctx, "tab close", &ops.TabIDIn{ID: in.ID}, false)
				case "select":
					return s.writeResult(ctx, "tab activate", &ops.TabIDIn{ID: in.ID}, false)
				}
				return nil, apitype.Errorf(apitype.BadInput, "action %q: want list, new, close or select", in.Action)
			}),
		def("browser_close", "Close the browser session (the next call starts a new one).", false, nil,
			func(ctx context.Context, _ *noIn) (*mcp.CallToolResult, error) {
				s.forget()
				return s.read(ctx, "close", &ops.NoIn{})
			}),
		def("browser_download", "List downloads, or wait for one to finish; files land in the session's files/downloads.", false, nil,
			func(ctx context.Context, in *downloadIn) (*mcp.CallToolResult, error) {
				if in.TimeoutMS > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, time.Duration(in.TimeoutMS)*time.Millisecond)
					defer cancel()
				}
				return s.read(ctx, "downloads", &ops.DownloadsIn{Wait: in.Wait})
			}),
		def("browser_surfaces", "List every surface (tabs, popups, frames, Electron windows and views), parent-first, with the active one.", false, nil,
			func(ctx context.Context, _ *noIn) (*mcp.CallToolResult, error) {
				return s.read(ctx, "surfaces", &ops.NoIn{})
			}),
		def("browser_switch_surface", "Make a surface (a tab or a frame) the target of every later call.", false, nil,
			func(ctx context.Context, in *switchIn) (*mcp.CallToolResult, error) {
				return s.read(ctx, "switch", &ops.SurfaceIDIn{ID: in.SurfaceID})
			}),
		def("browser_console", "Console messages of the session, with the surface each came from.", false, nil,
			func(ctx context.Context, in *logIn) (*mcp.CallToolResult, error) {
				return s.read(ctx, "console", &ops.LogIn{Surface: in.Surface, Clear: in.Clear})
			}),
		def("browser_network", "Network requests of the session with status and timing.", false, nil,
			func(ctx context.Context, in *logIn) (*mcp.CallToolResult, error) {
				return s.read(ctx, "network", &ops.LogIn{Surface: in.Surface, Clear: in.Clear})
			}),
		def("browser_dialogs", "JavaScript dialogs seen and how they were answered; set how later ones are.", false,
			map[string][]any{"policy": {"accept", "dismiss", "auto"}},
			func(ctx context.Context, in *dialogsIn) (*mcp.CallToolResult, error) {
				return s.read(ctx, "dialogs", &ops.DialogsIn{Accept: in.Policy == "accept", Dismiss: in.Policy == "dismiss",
					Auto: in.Policy == "auto", PromptText: in.PromptText})
			}),
	}
	if s.opts.AllowEval {
		ts = append(ts, def("browser_eval", "Evaluate JavaScript in the page and return its JSON value; reports what changed.", true, nil,
			func(ctx context.Context, in *evalIn) (*mcp.CallToolResult, error) {
				return s.writeResult(ctx, "eval", &ops.EvalIn{JS: in.Expression}, in.Snapshot)
			}))
	}
	return ts
}

// read runs an operation and returns its text, with its output as
// structured content.
func (s *Server) read(ctx context.Context, op string, in any) (*mcp.CallToolResult, error) {
	out, err := s.b.Do(ctx, op, in)
	if err != nil {
		return nil, err
	}
	return textResult(text(out), out), nil
}

// writeResult runs a write and reports what changed.
func (s *Server) writeResult(ctx context.Context, op string, in any, full bool) (*mcp.CallToolResult, error) {
	t, out, err := s.write(ctx, op, in, full)
	if err != nil {
		return nil, err
	}
	return textResult(t, out), nil
}

// navigate runs a navigation and, unless asked not to, returns the new
// page's snapshot (capped), which the agent needs next anyway.
func (s *Server) navigate(ctx context.Context, op string, in any, withSnapshot *bool) (*mcp.CallToolResult, error) {
	out, err := s.b.Do(ctx, op, in)
	if err != nil {
		return nil, err
	}
	t := text(out)
	if withSnapshot == nil || *withSnapshot {
		snap, err := s.snapshot(ctx, ops.SnapshotIn{MaxChars: navSnapshotChars})
		if err != nil {
			t += fmt.Sprintf("\n(no snapshot: %v)", err)
		} else {
			t += "\n\n" + snapText(snap)
		}
	}
	return textResult(t, out), nil
}

// forget drops the remembered snapshots (the session is closing).
func (s *Server) forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = map[string]lastSnapshot{}
}
