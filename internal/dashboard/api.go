package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine/live"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/wire"
)

// Client and Task name the person at the dashboard to the executor.
const (
	Client = "dashboard"
	Task   = "person"
)

// allowed are the operations the page may run, and whether each works in
// the tab the person is looking at (the dashboard's client switches to it
// first). Nothing else — no eval, no attach — is reachable from a page.
var allowed = map[string]bool{
	"takeover": false, "resume": false, "approve": false, "deny": false, "human-input": false,
	"open": true, "back": true, "forward": true, "reload": true, "diagnostics": true, "pick": true, "viewport": true, "routes": true, "route clear": true, "state save": true, "upload": true,
	"tab new": false, "tab close": false, "tab activate": false,
	"ops ack": false, "console": false, "network": false, "network start": false, "broker hosts": false, "downloads": false, "record": false,
	"settings set": false, "settings clear-cache": false, "settings clear-data": false, "import-cookies": false,
}

// maxBody bounds a request of the page.
const maxBody = 1 << 20

// opRequest is what the page posts to /api/op.
type opRequest struct {
	Op      string          `json:"op"`
	Session string          `json:"session"`
	Surface string          `json:"surface_id,omitempty"` // the tab looked at, for ops in it
	Input   json.RawMessage `json:"input,omitempty"`
}

type opReply struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *apitype.Error  `json:"error,omitempty"`
}

// do runs an operation as the person's own call.
func (s *Server) do(ctx context.Context, op, session string, input json.RawMessage) (any, error) {
	res, err := s.x.Do(ctx, executor.Request{Op: op, Person: true, OpRequest: apitype.OpRequest{Session: session, Client: Client, Task: Task, Input: input}})
	if err != nil {
		return nil, err
	}
	return res.Out, nil
}

func (s *Server) op(w http.ResponseWriter, r *http.Request) {
	var req opRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		reply(w, http.StatusBadRequest, nil, apitype.Errorf(apitype.BadInput, "bad request: %v", err))
		return
	}
	inTab, ok := allowed[req.Op]
	if !ok {
		reply(w, http.StatusBadRequest, nil, apitype.Errorf(apitype.BadInput, "the dashboard does not run %q", req.Op))
		return
	}
	if req.Session == "" {
		req.Session = "default"
	}
	if inTab {
		if req.Surface == "" {
			reply(w, http.StatusBadRequest, nil, apitype.Errorf(apitype.BadInput, "%s needs the tab it works in (surface_id)", req.Op))
			return
		}
		if err := s.lookAt(r.Context(), req.Session, req.Surface); err != nil {
			reply(w, http.StatusConflict, nil, err)
			return
		}
	}
	out, err := s.do(r.Context(), req.Op, req.Session, req.Input)
	if err != nil {
		reply(w, http.StatusConflict, nil, err)
		return
	}
	reply(w, http.StatusOK, out, nil)
}

// lookAt makes the tab the dashboard client's current surface in its
// session, for the operations that work in the current tab. It switches
// every time: a client's current surface is forgotten when its browser
// goes, and remembering it here would send the next operation to
// whichever tab the session then calls first.
func (s *Server) lookAt(ctx context.Context, session, surface string) error {
	in, _ := json.Marshal(map[string]string{"surface_id": surface})
	_, err := s.do(ctx, "switch", session, in)
	return err
}

func reply(w http.ResponseWriter, code int, out any, err error) {
	var rep opReply
	if err != nil {
		e, ok := apitype.As(err)
		if !ok {
			e = apitype.Wrap(apitype.Internal, err, "%v", err)
		}
		rep.Error = e
	} else if b, merr := json.Marshal(out); merr == nil {
		rep.Result = b
	}
	writeJSON(w, code, rep)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// sessionState is one session with a running browser, as the page
// shows it.
type sessionState struct {
	apitype.SessionInfo
	Tabs      []wire.Tab      `json:"tab_list"`
	Downloads []wire.Download `json:"downloads"`
	Error     string          `json:"error,omitempty"`
}

// pageState is everything the page shows, read afresh when an event
// says something changed.
type pageState struct {
	Build      string            `json:"build"`
	Sessions   []sessionState    `json:"sessions"`
	Approvals  []wire.Approval   `json:"approvals"`
	Operations []wire.Operation  `json:"operations"`
	Settings   *wire.SettingsOut `json:"settings,omitempty"`
	Seq        int64             `json:"seq"` // events after this one are news
}

func (s *Server) state(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := pageState{Build: s.build, Seq: s.x.Events().Last(), Sessions: []sessionState{}}
	for _, info := range s.x.Sessions() {
		ss := sessionState{SessionInfo: info, Tabs: []wire.Tab{}, Downloads: []wire.Download{}}
		if out, err := s.do(ctx, "tabs", info.Name, nil); err == nil {
			ss.Tabs = out.(*wire.TabsOut).Tabs
		} else {
			ss.Error = err.Error()
		}
		if out, err := s.do(ctx, "downloads", info.Name, nil); err == nil {
			ss.Downloads = out.(*wire.DownloadsOut).Downloads
		}
		st.Sessions = append(st.Sessions, ss)
	}
	if out, err := s.do(ctx, "approvals", "default", nil); err == nil {
		st.Approvals = out.(*wire.ApprovalsOut).Approvals
	}
	if out, err := s.do(ctx, "ops", "default", json.RawMessage(`{"limit":50}`)); err == nil {
		st.Operations = out.(*wire.OperationsOut).Operations
	}
	if out, err := s.do(ctx, "settings", "default", nil); err == nil {
		st.Settings = out.(*wire.SettingsOut)
	}
	writeJSON(w, http.StatusOK, st)
}

// streamWrite bounds each write of a stream: a page that stops reading is
// cut off rather than holding its handler.
const streamWrite = 10 * time.Second

// sse starts a server-sent event stream.
func sse(w http.ResponseWriter) (send func(event string, v any) error, ok bool) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	return func(event string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_ = rc.SetWriteDeadline(time.Now().Add(streamWrite))
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return err
		}
		return rc.Flush()
	}, rc.Flush() == nil
}

// events pushes the executor's events to the page as they happen.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	sub := s.x.Events().Subscribe(256, -1)
	defer sub.Close()
	send, ok := sse(w)
	if !ok {
		return
	}
	for {
		select {
		case <-sub.Ready():
			for _, e := range sub.Next() {
				if err := send("event", e); err != nil {
					return
				}
			}
		case <-sub.Done():
			return
		case <-r.Context().Done():
			return
		case <-s.quit:
			return
		}
	}
}

// live pushes a tab's pictures to the page while it watches.
func (s *Server) live(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	frames, err := s.x.Watch(ctx, q.Get("session"), q.Get("surface_id"), live.Options{})
	if err != nil {
		reply(w, http.StatusConflict, nil, err)
		return
	}
	send, ok := sse(w)
	if !ok {
		return
	}
	for {
		select {
		case f, ok := <-frames:
			if !ok {
				_ = send("end", map[string]string{"why": "the tab has gone"})
				return
			}
			if err := send("frame", f); err != nil {
				return
			}
		case <-s.quit:
			return
		}
	}
}

// approvalShot is a PNG of what a waiting write would act on.
func (s *Server) approvalShot(w http.ResponseWriter, r *http.Request) {
	png, err := s.x.ApprovalShot(r.Context(), r.PathValue("id"))
	if err != nil {
		code := http.StatusConflict
		if e, ok := apitype.As(err); ok && e.Code == apitype.BadInput {
			code = http.StatusNotFound
		}
		reply(w, code, nil, err)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(png)
}
