// Package idspace holds a session's id spaces: its surface ids and ref
// numbers. They outlive any one browser: when a session's browser dies and
// another starts, numbering goes on, so an id or a ref from the old
// browser never names something in the new one — it is refused as gone
// (SURFACE_CLOSED, STALE_REF), never acted on.
package idspace

import (
	"strconv"
	"sync/atomic"

	"github.com/loupe-dev/loupe/internal/locator"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// Spaces are one session's id spaces. The zero value is ready; it is safe
// for concurrent use.
type Spaces struct {
	surfaces atomic.Int64
	refs     snapshot.Counter
}

// NextSurface draws a new surface id ("s1", "s2", …).
func (s *Spaces) NextSurface() string { return "s" + strconv.FormatInt(s.surfaces.Add(1), 10) }

// Refs is the ref numbering the session's ref tables draw from.
func (s *Spaces) Refs() *snapshot.Counter { return &s.refs }

// Last returns the last surface and ref numbers drawn (0 before the
// first).
func (s *Spaces) Last() (surfaces, refs int64) { return s.surfaces.Load(), s.refs.Last() }

// Skip moves both spaces past numbers an earlier daemon of the session
// drew, so that none is drawn again: ids from before a restart are
// refused as gone, never acted on. It is called before the session's
// first browser starts.
func (s *Spaces) Skip(surfaces, refs int64) {
	for {
		cur := s.surfaces.Load()
		if cur >= surfaces || s.surfaces.CompareAndSwap(cur, surfaces) {
			break
		}
	}
	s.refs.Skip(refs)
}

// Start is where one browser's numbering began in a session's spaces: the
// ids and refs below it were an earlier browser's, whose elements are
// gone with it.
type Start struct{ surface, ref int64 }

// Start returns where the next browser's numbering begins.
func (s *Spaces) Start() Start {
	surfaces, refs := s.Last()
	return Start{surfaces + 1, refs + 1}
}

// SurfaceBefore reports whether a surface id ("s3") was drawn before st.
func (st Start) SurfaceBefore(id string) bool {
	if len(id) < 2 || id[0] != 's' {
		return false
	}
	n, err := strconv.ParseInt(id[1:], 10, 64)
	return err == nil && n >= 1 && n < st.surface
}

// RefBefore reports whether a ref ("e12") was issued before st.
func (st Start) RefBefore(ref string) bool {
	n, err := locator.ParseRef(ref)
	return err == nil && n >= 1 && n < st.ref
}
