package engine

import (
	"strconv"

	"github.com/loupe-dev/loupe/internal/engine/idspace"
	"github.com/loupe-dev/loupe/internal/locator"
)

// IDs are the id spaces of a session (package idspace); a session keeps
// one and passes it to every browser it starts (WithIDs).
type IDs = idspace.Spaces

// Option configures Launch and Attach.
type Option func(*Browser)

// WithIDs makes the browser draw its surface ids and refs from ids (by
// default it has its own).
func WithIDs(ids *IDs) Option { return func(b *Browser) { b.ids = ids } }

// beforeThisBrowser reports whether a surface id was handed out to an
// earlier browser of the session.
func (b *Browser) beforeThisBrowser(surface string) bool {
	if len(surface) < 2 || surface[0] != 's' {
		return false
	}
	n, err := strconv.ParseInt(surface[1:], 10, 64)
	return err == nil && n >= 1 && n < b.firstSurface
}

// RefBeforeThisBrowser reports whether a ref was issued by an earlier
// browser of the session than the tab's: its element is gone with that
// browser.
func (t *Surface) RefBeforeThisBrowser(ref string) bool {
	n, err := locator.ParseRef(ref)
	return err == nil && n >= 1 && n < t.b.firstRef
}
