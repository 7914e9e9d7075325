package localapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// events streams the executor's events as NDJSON, one event a line, until
// the client goes or the daemon shuts down. ?session=S keeps that
// session's events (and those of no session); ?since=SEQ first replays
// the kept events after SEQ (0: all that are kept).
//
// A reader that falls behind is never cut off: while a write waits on it,
// its subscription keeps the newest events it has room for and counts the
// rest, and the reader gets a "dropped" event with that count when it
// reads on (cutting it off left the CLI with a broken stream it could not
// explain). A write that waits is ended only when the client goes or the
// daemon shuts down: then its deadline is set to now.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	session := q.Get("session")
	since := int64(-1)
	if v := q.Get("since"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, apitype.Errorf(apitype.BadInput, "since %q: want an event's sequence number", v))
			return
		}
		since = n
	}
	sub := s.x.Events().Subscribe(1024, since)
	defer sub.Close()
	rc := http.NewResponseController(w)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-r.Context().Done():
			_ = rc.SetWriteDeadline(time.Now())
		case <-s.quit:
			_ = rc.SetWriteDeadline(time.Now())
		}
	}()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	send := func() error {
		for _, e := range sub.Next() {
			if session != "" && e.Session != "" && e.Session != session {
				continue
			}
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		return rc.Flush()
	}
	if err := send(); err != nil { // the headers, and any replay
		return
	}
	for {
		select {
		case <-sub.Ready():
			if err := send(); err != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-s.quit:
			return
		}
	}
}
