package tabturn

import (
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// A tab whose renderer crashes this often (MaxCrashes within CrashWindow)
// is left crashed for a person rather than reloaded again: a page that
// kills its renderer on load would otherwise loop.
const (
	MaxCrashes  = 3
	CrashWindow = 10 * time.Minute
)

// Crashes counts recent renderer crashes per tab. The zero value is
// ready.
type Crashes struct {
	mu sync.Mutex
	m  map[key][]time.Time
}

// Again records a crash of a session's tab at now and reports whether
// the tab may be reloaded.
func (c *Crashes) Again(session, page string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[key][]time.Time{}
	}
	k := key{session, page}
	recent := c.m[k][:0]
	for _, t := range c.m[k] {
		if now.Sub(t) < CrashWindow {
			recent = append(recent, t)
		}
	}
	c.m[k] = append(recent, now)
	return len(c.m[k]) <= MaxCrashes
}

// CrashError is the refusal of an operation on a tab that crashed: while
// its renderer is down (reloading), and after, until a person hands it
// back.
func CrashError(page string, reloading bool) *apitype.Error {
	msg := "tab %s's renderer crashed; it was reloaded for a person to check, and the agents get it back when they resume it; nothing was read or sent"
	if reloading {
		msg = "tab %s's renderer crashed; it is being reloaded for a person to check; nothing was read or sent"
	}
	return apitype.Errorf(apitype.TabCrashed, msg, page).
		Fix("work in another tab ({1}), or wait until the person hands this one back and take a new snapshot ({2})",
			apitype.Step{Op: "tabs"}, apitype.Step{Op: "snapshot"})
}
