package action

import "github.com/loupe-dev/loupe/internal/apitype"

// executedErr marks a failure that happened while input was being sent:
// part of it may have reached the page.
func executedErr(err error) error {
	if e, ok := apitype.As(err); ok {
		return e.Executed()
	}
	return &partialError{err}
}

// partialError is a low-level failure after the page may have seen input.
type partialError struct{ err error }

func (e *partialError) Error() string { return e.err.Error() }
func (e *partialError) Unwrap() error { return e.err }

// Executed reports that the action may have run.
func (e *partialError) Executed() bool { return true }
