package executor

import (
	"github.com/loupe-dev/loupe/internal/engine/download"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/policy"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// downloadPolicy is the download policy of one session's browser: the
// approval policy's rules for the download class (or operation) decide each
// download a page starts, by the origin of that page. Under deny it is
// cancelled and nothing is kept; under ask it is held out of the
// session's files — downloading, but not where an agent can read it —
// until a person approves (then it is filed in files/downloads) or denies
// it, the approval times out, or the tab is taken over.
func (x *Executor) downloadPolicy(s *sessions.Session) download.Options {
	session := s.Name()
	return download.Options{
		Gate: func(dl *download.Tracker, d download.Download) download.Decision {
			if x.rules == nil {
				return download.Allow
			}
			origin := originOf(d.PageURL)
			if origin == "" {
				origin = originOf(d.URL)
			}
			dec, rule := x.rules.Decide("download", string(ops.ActDownload), origin)
			switch dec {
			case policy.Deny:
				return download.Deny
			case policy.Ask:
				w := guard.Write{Op: "download", Action: ops.ActDownload, Session: session, Surface: d.SurfaceID, Page: d.SurfaceID,
					Origin: origin, Digest: ledger.Digest("download", d.URL)}
				timeout := x.rules.ApprovalTimeout()
				x.bgWork.Go(func() {
					_, err := guard.Ask(x.bg, x.waiting, w, timeout, rule.Name())
					_, _ = dl.Release(d.ID, err == nil) // the browser may have gone: then nothing is kept
				})
				return download.Hold
			}
			return download.Allow
		},
		Notify: func(d download.Download) {
			kind := events.DownloadDone
			switch d.State {
			case "in_progress":
				kind = events.DownloadStarted
			case "held":
				return // it ends when a person answers
			}
			x.events.Publish(events.Event{Kind: kind, Session: session, SurfaceID: d.SurfaceID, URL: d.URL, File: d.Path, State: d.State,
				Bytes: d.Bytes, Total: d.Total})
		},
		Progress: func(d download.Download) {
			x.events.Publish(events.Event{Kind: events.DownloadProgress, Session: session, SurfaceID: d.SurfaceID, URL: d.URL,
				State: d.State, Bytes: d.Bytes, Total: d.Total})
		},
	}
}
