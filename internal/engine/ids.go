package engine

import (
	"strconv"
	"sync/atomic"

	"github.com/loupe-dev/loupe/internal/snapshot"
)

// IDs are the id spaces of a session: surface ids and ref numbers. They
// outlive any one browser: when a session's browser dies and another
// starts, numbering goes on, so an id or a ref from the old browser never
// names something in the new one — it is refused as gone (SURFACE_CLOSED,
// STALE_REF), never acted on. The zero value is ready; a session keeps one
// and passes it to every browser it starts (WithIDs).
type IDs struct {
	surfaces atomic.Int64
	refs     snapshot.Counter
}

// Last returns the last surface and ref numbers drawn (0 before the
// first).
func (ids *IDs) Last() (surfaces, refs int64) { return ids.surfaces.Load(), ids.refs.Last() }

// Skip moves both id spaces past numbers an earlier daemon of the session
// drew, so that none is drawn again: ids from before a restart are
// refused as gone, never acted on. It is called before the session's
// first browser starts.
func (ids *IDs) Skip(surfaces, refs int64) {
	for {
		cur := ids.surfaces.Load()
		if cur >= surfaces || ids.surfaces.CompareAndSwap(cur, surfaces) {
			break
		}
	}
	ids.refs.Skip(refs)
}

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
	n, err := snapshot.ParseRef(ref)
	return err == nil && n >= 1 && n < t.b.firstRef
}
