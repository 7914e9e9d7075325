package nav_test

import (
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
)

// The shared test helpers, by their short names.
var (
	openTab     = enginetest.OpenTab
	ctxT        = enginetest.Ctx
	withTimeout = enginetest.WithTimeout
	snap        = enginetest.Snap
	ref         = enginetest.Ref
	wantCode    = enginetest.WantCode
	startPair   = enginetest.StartPair
)
