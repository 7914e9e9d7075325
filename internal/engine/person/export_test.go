package person

import "github.com/loupe-dev/loupe/internal/engine"

// WithInputCounted is WithInput, with the counts of the trusted-input
// reports taken for a person's input and for loupe's own echo.
func WithInputCounted(h Handler) (engine.Option, func() (persons, echoes int)) {
	w := newWatcher(h)
	return w.option(), func() (int, int) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.persons, w.echoes
	}
}
