package engine_test

import (
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
)

// The shared test helpers, by their short names.
var (
	openTab     = enginetest.OpenTab
	ctxT        = enginetest.Ctx
	snap        = enginetest.Snap
	ref         = enginetest.Ref
	wantStep    = enginetest.WantStep
	codeOf      = enginetest.CodeOf
	eventually  = enginetest.Eventually
	ownBrowser  = enginetest.OwnBrowser
	refsByFrame = enginetest.RefsByFrame
	startPair   = enginetest.StartPair
)
