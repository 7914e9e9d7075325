package engine

// Opener is the surface id of the tab that opened this one (window.open),
// or "" when it was not opened by a page or its opener has gone.
func (t *Tab) Opener() string {
	t.b.mu.Lock()
	defer t.b.mu.Unlock()
	return t.openerSurface()
}
