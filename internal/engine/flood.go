package engine

import "github.com/loupe-dev/loupe/internal/engine/eventlog"

// ErrPageBlocked means the page opens JavaScript dialogs without end and
// loupe holds the last one open (see eventlog.Holds).
var ErrPageBlocked = eventlog.ErrPageBlocked

// Blocked reports whether the tab's page is stopped in a held dialog.
func (t *Surface) Blocked() bool { return t.held.Held(t.sess) }
