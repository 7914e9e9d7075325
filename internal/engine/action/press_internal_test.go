package action

import (
	"errors"
	"fmt"
	"testing"

	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
)

// TestDocumentLeft: after a click, only an error that says the click's
// document went away (or a navigation under way) counts as the click
// having led somewhere; any other failure of the check is reported as
// unchecked.
func TestDocumentLeft(t *testing.T) {
	for _, c := range []struct {
		err        error
		navigating bool
		want       bool
	}{
		{fmt.Errorf("%w: Execution context was destroyed", engine.ErrDocumentGone), false, true},
		{fmt.Errorf("call: %w", cdp.ErrSessionGone), false, true},
		{errors.New("cdp: Inspected target navigated or closed"), false, true},
		{errors.New("context deadline exceeded"), true, true},
		{errors.New("context deadline exceeded"), false, false},
		{errors.New("page agent: TypeError"), false, false},
	} {
		if got := documentLeft(c.err, c.navigating); got != c.want {
			t.Errorf("documentLeft(%v, navigating %v) = %v, want %v", c.err, c.navigating, got, c.want)
		}
	}
}
