package engine

import "github.com/loupe-dev/loupe/internal/engine/idspace"

// IDs are the id spaces of a session (package idspace); a session keeps
// one and passes it to every browser it starts (WithIDs).
type IDs = idspace.Spaces

// Option configures Launch and Attach.
type Option func(*Browser)

// WithIDs makes the browser draw its surface ids and refs from ids (by
// default it has its own).
func WithIDs(ids *IDs) Option { return func(b *Browser) { b.ids = ids } }

// RefBeforeThisBrowser reports whether a ref was issued by an earlier
// browser of the session than the tab's: its element is gone with that
// browser.
func (t *Surface) RefBeforeThisBrowser(ref string) bool { return t.b.first.RefBefore(ref) }
